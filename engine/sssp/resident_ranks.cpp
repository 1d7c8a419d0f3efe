// engine/sssp/resident_ranks.cpp: the rounds of the resident exchange on several ranks
// (engine/sssp/resident_exchange.h; docs/distributed.md "sssp: the resident exchange on ranks").
//
// Each rank's solver holds its window (engine/sssp/rank_window.h).
// A round, on every rank alike:
//   1. trade: each rank sends every neighbour rank the shared cells whose copy changed since it last
//      sent them (16 bytes a cell: its place in the pair's list and its distance; an empty message
//      when none did) and lowers its own copies to the ones received (lower_cells: a lowered cell
//      makes its tile and the tiles around it pending);
//   2. agree: one all-reduce (min) of the ranks' smallest pending keys and of the tiles each rank
//      solved in the last round (complemented: the min over ranks of ~0 and ~solved is ~solved);
//      none pending anywhere ends the run on every rank in the same round (every message of step 1
//      is applied);
//   3. solve: every pending tile whose key is at most that minimum + delta, on each rank (near-far
//      at tile granularity, [Davidson2014]); delta adapts to the tiles all ranks solved in the last
//      round (the same numbers on every rank), aiming at round_tiles per rank.
// Exactness: every distance a rank holds is the length of a real path (its window's values are the
// raster's, and a received copy is another rank's such length), and every update is a min. When
// the run ends no tile is pending on any rank, so every edge inside each window is satisfied
// (kernels/sssp/resident_sssp.h's invariant, lower_cells keeping it), and the last trade lowered
// nothing: every copy equals the one its holder last sent, so both copies of every shared cell are equal. Every edge of the raster has an end u in
// some rank's own tiles and lies in that rank's window with the cells it crosses, so every edge is
// satisfied with the owners' distances: they are the exact shortest distances, the one process's
// bit for bit, whatever the rank count, windows and round timing.
#include <algorithm>
#include <cstring>
#include <string>

#include "engine/sssp/resident_exchange.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/sssp/resident_sssp_steps.h"

namespace terrazo {

namespace {

constexpr int kSharedCellsTag = 0x55a3;

// One changed shared cell in a trade message: its place in the pair's list, its distance.
struct SharedCell {
  std::uint64_t place;
  PathLength dist;
};

}  // namespace

// Step 1. Indices into copies' vectors run over the concatenated lists of window_.neighbours.
void ResidentSsspExchange::trade_shared_cells(SharedCopies& copies) {
  Communicator& comm = *options_.comm;
  if (solver_) solver_->read_cells(copies.mine.data());
  std::vector<std::unique_ptr<Communicator::Message>> sent;
  std::uint64_t first = 0;
  for (const RankWindow::Neighbour& n : window_.neighbours) {
    std::vector<SharedCell> changed;
    for (std::uint64_t i = first; i < first + n.cells.size(); ++i)
      if (copies.mine[i] != copies.sent[i]) changed.push_back(SharedCell{i - first, copies.sent[i] = copies.mine[i]});
    std::vector<std::uint8_t> message(changed.size() * sizeof(SharedCell));
    if (!changed.empty()) std::memcpy(message.data(), changed.data(), message.size());
    stats_.bytes_sent += message.size();
    sent.push_back(comm.isend(n.rank, kSharedCellsTag, std::move(message)));
    first += n.cells.size();
  }
  bool received = false;
  first = 0;
  for (const RankWindow::Neighbour& n : window_.neighbours) {
    const std::vector<std::uint8_t> message = comm.recv(n.rank, kSharedCellsTag);
    const auto malformed = [&] { return Error("internal: rank " + std::to_string(n.rank) + " sent a malformed trade of shared cells"); };
    if (message.size() % sizeof(SharedCell)) throw malformed();  // also when it holds less than one cell
    std::vector<SharedCell> changed(message.size() / sizeof(SharedCell));
    if (!changed.empty()) std::memcpy(changed.data(), message.data(), message.size());
    for (const SharedCell& c : changed) {
      if (c.place >= n.cells.size()) throw malformed();
      copies.theirs[first + c.place] = c.dist;
    }
    received = received || !changed.empty();
    stats_.bytes_received += message.size();
    first += n.cells.size();
  }
  for (const auto& m : sent) m->wait();
  if (solver_ && received) solver_->lower_cells(copies.theirs.data());
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
  SharedCopies copies;
  copies.mine.assign(shared.size(), kUnreached);
  copies.sent.assign(shared.size(), kUnreached);
  copies.theirs.assign(shared.size(), kUnreached);
  stats_.neighbour_ranks = static_cast<std::uint32_t>(window_.neighbours.size());

  const auto ranks = static_cast<std::uint64_t>(comm.size());
  NearFarSchedule schedule;
  schedule.target = round_tiles_ * ranks;
  ResidentSsspStats& rs = resident_stats_;
  std::vector<std::uint64_t> agreed(1 + ranks);
  std::uint64_t round = 0, solved = 0;
  for (;; ++round) {
    Stopwatch clock;
    trade_shared_cells(copies);
    stats_.trade_seconds += clock.seconds();
    clock.restart();
    std::fill(agreed.begin(), agreed.end(), ~std::uint64_t{0});
    agreed[0] = solver_ ? solver_->smallest_key() : kUnreached;
    agreed[1 + static_cast<std::uint64_t>(comm.rank())] = ~solved;
    comm.all_reduce(agreed.data(), agreed.size(), ReduceOp::Min);
    stats_.agree_seconds += clock.seconds();
    if (round > 0) {
      std::uint64_t all = 0;
      for (std::uint64_t r = 0; r < ranks; ++r) all += ~agreed[1 + r];
      schedule.adapt(all);
    }
    if (agreed[0] == kUnreached) break;
    if (round == 1) fault_point(comm, "sssp: exchange");
    solved = solver_ ? solver_->solve_round(schedule.threshold(agreed[0]), rs) : 0;
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
