// engine/mst/phase1_block_local.cpp: phase 1 of the MST pipeline (engine/mst/phase1_block_local.h).
#include "engine/mst/phase1_block_local.h"

#include <algorithm>
#include <deque>
#include <string>

#include "kernels/common/error.h"
#include "engine/mst/merge_step.h"
#include "engine/mst/summary_file.h"
#include "kernels/mst/block_mst_solver.h"

namespace terrazo {
namespace {

// One tile of a phase-1 batch.
struct TileJob {
  std::uint32_t tx = 0, ty = 0;
  bool present = false;
  std::vector<TileSummaryEdge> summary;
  ClusterSummary cluster;
  std::uint64_t valid = 0, forest_edges = 0, forest_weight = 0;
};

// After the block solvers: nodata cells -> 255, counts and weight of the forest, the level-0 summary.
void finish_tile(const TileGrid& grid, const double* values, std::uint8_t* bits, const WeightParams& params,
                 TileJob* job) {
  const std::uint32_t t = grid.tile;
  for (std::uint32_t l = 0; l < t * t; ++l) {
    if (values[l] != values[l]) {
      bits[l] = 255;
      continue;
    }
    ++job->valid;
    for (int dir = 0; dir < 4; ++dir) {
      if (!(bits[l] & (1u << dir))) continue;
      const std::uint32_t m = l + static_cast<std::uint32_t>(kDirDy[dir]) * t + static_cast<std::uint32_t>(kDirDx[dir]);
      bool overflow = false;
      job->forest_weight += edge_weight(params, values[l], values[m], is_diagonal(dir), &overflow);
      ++job->forest_edges;
    }
  }
  job->cluster = make_tile_summary(grid, job->tx, job->ty, values, job->summary);
  job->summary.clear();
  job->summary.shrink_to_fit();
}

std::string overflow_message(const WeightParams& params) {
  return "edge weights overflow the 32-bit fixed point at --scale " + std::to_string(params.scale) +
         " (a weight exceeds " + std::to_string(kMaxWeight) + "); choose a smaller --scale";
}

// Phase-1 bookkeeping: results are written in Z-order.
struct Phase1Output {
  SequentialWriter& bits_out;
  SequentialWriter& summaries_out;
  MstPhaseResult& result;
  std::vector<std::uint64_t>& offsets;  // byte offset of each tile's summary, row-major tile index
  std::uint64_t tiles_x = 0;
  BlockLocalTotals totals;

  // `bits` holds the forest bits of the present jobs, packed in job order.
  void write(std::vector<TileJob>& jobs, const std::uint8_t* bits, std::uint64_t tile_cells) {
    std::uint64_t p = 0;
    for (TileJob& job : jobs) {
      if (job.present) {
        bits_out.write(bits + p * tile_cells, tile_cells);
        ++p;
      } else {
        job.cluster.cx = job.tx;
        job.cluster.cy = job.ty;
      }
      offsets[static_cast<std::uint64_t>(job.ty) * tiles_x + job.tx] = summaries_out.bytes_written();
      write_cluster_summary(summaries_out, job.cluster);
      result.summary_edges += job.cluster.edges.size();
      totals.forest_edges += job.forest_edges;
      totals.forest_weight += job.forest_weight;
      totals.valid += job.valid;
      job.cluster = ClusterSummary();
    }
  }
};

}  // namespace

// Groups of up to batch_tiles() present tiles (absent tiles ride along in the group's job list),
// read in parallel into the solver's free slot; up to slots() groups in flight. A finished group's
// values stay untouched until that slot is submitted again, so finish_tile reads them from it.
BlockLocalTotals run_block_local(const TileInput& source, const std::vector<std::uint64_t>& order,
                                 const MstPhaseOptions& options, WorkerPool& pool, MemoryBudget& budget,
                                 Progress& progress, SequentialWriter& bits_out, SequentialWriter& summaries_out,
                                 std::vector<std::uint64_t>& summary_offsets, MstPhaseResult& result) {
  const TileGrid& grid = source.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const WeightParams& params = options.params;
  Phase1Output out{bits_out, summaries_out, result, summary_offsets, grid.tiles_x(), {}};
  MstTileSolverOptions solver_options;
  solver_options.t = t;
  solver_options.params = params;
  solver_options.connectivity = options.connectivity;
  solver_options.max_tiles = order.size();
  solver_options.gpu_memory_bytes = options.gpu_memory_bytes;
  solver_options.caller_summary_bytes_per_tile = kMaxSummaryEdgesPerSide * t * sizeof(SummaryEdge);
  auto solver = make_mst_tile_solver(options.cuda ? Device::Cuda : Device::Cpu, solver_options, pool, budget);
  const std::uint64_t batch_tiles = solver->batch_tiles();
  if (solver->device() == Device::Cuda) result.gpu_batch_tiles = batch_tiles;
  struct Group {
    std::vector<TileJob> jobs;
    std::vector<std::uint64_t> present;  // job indices of present tiles, in input order
    bool submitted = false;
  };
  std::deque<Group> in_flight;
  std::vector<std::uint8_t> bits;
  std::uint64_t done = 0;
  auto consume_front = [&] {
    Group& g = in_flight.front();
    if (g.submitted) {
      const MstTileSolved& batch = solver->wait();
      if (batch.overflow) throw Error(overflow_message(params));
      result.gpu_kernel_ms += batch.kernel_ms;
      bits.assign(batch.forest_bits, batch.forest_bits + g.present.size() * tile_cells);
      pool.run(g.present.size(), [&](std::uint64_t p) {
        TileJob& job = g.jobs[g.present[p]];
        job.summary.assign(batch.summary[p], batch.summary[p] + batch.summary_count[p]);
        finish_tile(grid, batch.values + p * tile_cells, bits.data() + p * tile_cells, params, &job);
      });
    }
    out.write(g.jobs, bits.data(), tile_cells);
    done += g.jobs.size();
    progress.update("mst: block-local", done, order.size(), done * tile_cells);
    in_flight.pop_front();
  };
  std::uint64_t position = 0;
  while (position < order.size()) {
    Group g;
    while (position < order.size() && g.present.size() < batch_tiles) {
      TileJob job;
      job.tx = static_cast<std::uint32_t>(order[position] % grid.tiles_x());
      job.ty = static_cast<std::uint32_t>(order[position] / grid.tiles_x());
      job.present = source.tile_present(job.tx, job.ty);
      if (job.present) g.present.push_back(g.jobs.size());
      g.jobs.push_back(std::move(job));
      ++position;
    }
    if (!g.present.empty()) {
      while (solver->pending() == solver->slots()) consume_front();
      MstTileBatch batch;
      batch.tiles = g.present.size();
      batch.read = [&](std::uint64_t p, double* values) {
        source.read_tile(g.jobs[g.present[p]].tx, g.jobs[g.present[p]].ty, values);
      };
      solver->submit(batch);
      g.submitted = true;
    }
    in_flight.push_back(std::move(g));
    // Groups without a present tile wait behind the submitted ones, so the files stay in Z-order.
    while (!in_flight.empty() && !in_flight.front().submitted) consume_front();
  }
  while (!in_flight.empty()) consume_front();
  return out.totals;
}

}  // namespace terrazo
