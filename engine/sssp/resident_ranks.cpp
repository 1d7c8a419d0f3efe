// engine/sssp/resident_ranks.cpp: the rounds of the resident exchange on several ranks
// (engine/sssp/resident_exchange.h; docs/distributed.md "sssp: the resident exchange on ranks").
//
// Each rank's solver holds its window (engine/sssp/rank_window.h). A round, on every rank alike:
//   1. trade: each rank sends every neighbour rank its copies of the cells they share (one message
//      each way, 8 bytes a cell, in the pair's list order) and lowers its own copies to the
//      received ones (lower_cells: a lowered cell makes its tile and the tiles around it pending);
//   2. agree: all-reduce (min) of the ranks' smallest pending keys; none pending anywhere ends the
//      run on every rank in the same round (every message of step 1 is applied);
//   3. solve: every pending tile whose key is at most that minimum + delta, on each rank (near-far
//      at tile granularity, [Davidson2014]); delta adapts to the all-reduced count of solved tiles
//      (the same on every rank), aiming at round_tiles per rank.
// Exactness: every distance a rank holds is the length of a real path (its window's values are the
// raster's, and a received copy is another rank's such length), and every update is a min. When
// the run ends no tile is pending on any rank, so every edge inside each window is satisfied
// (kernels/sssp/resident_sssp.h's invariant, lower_cells keeping it), and the last trade lowered
// nothing, so both copies of every shared cell are equal. Every edge of the raster has an end u in
// some rank's own tiles and lies in that rank's window with the cells it crosses, so every edge is
// satisfied with the owners' distances: they are the exact shortest distances, the one process's
// bit for bit, whatever the rank count, windows and round timing.
#include <algorithm>
#include <cstring>
#include <string>

#include "engine/sssp/resident_exchange.h"
#include "kernels/common/error.h"
#include "kernels/sssp/resident_sssp_steps.h"

namespace terrazo {

namespace {
constexpr int kSharedCellsTag = 0x55a3;
}  // namespace

void ResidentSsspExchange::trade_shared_cells(std::vector<PathLength>& mine, std::vector<PathLength>& theirs) {
  Communicator& comm = *options_.comm;
  if (solver_) solver_->read_cells(mine.data());
  std::vector<std::unique_ptr<Communicator::Message>> sent;
  std::uint64_t first = 0;
  for (const RankWindow::Neighbour& n : window_.neighbours) {
    std::vector<std::uint8_t> message(n.cells.size() * sizeof(PathLength));
    std::memcpy(message.data(), mine.data() + first, message.size());
    stats_.bytes_sent += message.size();
    sent.push_back(comm.isend(n.rank, kSharedCellsTag, std::move(message)));
    first += n.cells.size();
  }
  first = 0;
  for (const RankWindow::Neighbour& n : window_.neighbours) {
    const std::vector<std::uint8_t> message = comm.recv(n.rank, kSharedCellsTag);
    if (message.size() != n.cells.size() * sizeof(PathLength))
      throw Error("internal: rank " + std::to_string(n.rank) + " sent " + std::to_string(message.size()) +
                  " bytes of shared cells, expected " + std::to_string(n.cells.size() * sizeof(PathLength)));
    std::memcpy(theirs.data() + first, message.data(), message.size());
    stats_.bytes_received += message.size();
    first += n.cells.size();
  }
  for (const auto& m : sent) m->wait();
  if (solver_ && !theirs.empty()) solver_->lower_cells(theirs.data());
}

void ResidentSsspExchange::run_rank_rounds(Progress& progress) {
  const std::string phase = "sssp: exchange";
  progress.update(phase, 0, 0);
  Communicator& comm = *options_.comm;
  std::vector<std::uint64_t> shared;
  for (const RankWindow::Neighbour& n : window_.neighbours) shared.insert(shared.end(), n.cells.begin(), n.cells.end());
  for (std::uint64_t& cell : shared)  // raster cells to the window's
    cell = (cell / grid_.width - window_.y0) * window_.width + (cell % grid_.width - window_.x0);
  if (solver_) solver_->set_exchange_cells(shared);
  std::vector<PathLength> mine(shared.size()), theirs(shared.size());
  stats_.neighbour_ranks = static_cast<std::uint32_t>(window_.neighbours.size());

  NearFarSchedule schedule;
  schedule.target = std::max<std::uint64_t>(1, options_.device == Device::Cuda ? 256 : 4ull * std::max(1u, options_.threads)) *
                    static_cast<std::uint64_t>(comm.size());
  ResidentSsspStats& rs = resident_stats_;
  std::uint64_t round = 0;
  for (;; ++round) {
    trade_shared_cells(mine, theirs);
    const PathLength least = comm.all_reduce(solver_ ? solver_->smallest_key() : kUnreached, ReduceOp::Min);
    if (least == kUnreached) break;
    if (round == 1) fault_point(comm, "sssp: exchange");
    const std::uint64_t solved = solver_ ? solver_->solve_round(schedule.threshold(least), rs) : 0;
    schedule.adapt(comm.all_reduce(solved, ReduceOp::Sum));
    progress.update(phase, rs.solves, 0);
  }
  if (solver_) solver_->read_counters(rs);
  if (comm.all_reduce(std::uint64_t{rs.overflow}, ReduceOp::Max)) throw_weight_overflow(options_.params);
  stats_.solves = rs.solves;
  stats_.tiles_solved = rs.tiles_solved;
  stats_.resolves = rs.solves - rs.tiles_solved;
  stats_.rounds = round;  // every rank's, solving or not
  stats_.cells_improved = rs.cells_improved;
  progress.update(phase, stats_.solves, stats_.solves);
}

}  // namespace terrazo
