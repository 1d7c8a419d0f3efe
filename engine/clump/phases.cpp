// engine/clump/phases.cpp: run_clump_phases, the composition of phases 1-3 (engine/clump/phases.h).
#include "engine/clump/phases.h"

#include <algorithm>
#include <memory>

#include "kernels/common/enum_names.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "engine/clump/border_table.h"
#include "engine/clump/distributed_borders.h"
#include "engine/clump/phase1_tile_labels.h"
#include "engine/clump/phase2_border_merge.h"
#include "engine/clump/phase2_external_merge.h"
#include "engine/clump/phase3_relabel.h"
#include "engine/clump/region_stats.h"
#include "kernels/clump/label_tile_solver.h"
#include "io/store/external_sorter.h"

namespace terrazo {

const char* to_string(ClumpBy by) {
  static constexpr EnumName<ClumpBy> kNames[] = {{ClumpBy::Value, "value"}, {ClumpBy::Valid, "valid"}, {ClumpBy::Range, "range"}};
  return name_of(kNames, by);
}

ClumpKeyCode clump_gpu_key_code(CellType type, ClumpBy by) {
  if (by != ClumpBy::Value || type == CellType::UInt8) return ClumpKeyCode::UInt16;
  if (type == CellType::Int16 || type == CellType::UInt16 || type == CellType::Float32) return ClumpKeyCode::UInt32;
  return ClumpKeyCode::Float64;
}

namespace {
// The phases' fixed needs, planned before any work (each phase gives its reservations back before
// the next takes its own; only the border table, which grows with the data, is held across them and
// checked as it grows). The CPU solver's bytes stand for the solver, alive in every phase (the GPU one
// sizes its batches to what is left).
void plan_phases(const TileGrid& grid, unsigned threads, bool stats, const MemoryBudget& budget, MemoryPlan& plan) {
  const std::string slots = std::to_string(threads) + " tile slots of " + std::to_string(grid.tile) + "^2 cells";
  const std::string solver = "the tile labeller's " + slots;
  const std::uint64_t solver_bytes = threads * kClumpCpuSolverCellBytes * grid.tile * grid.tile;
  plan.need("clump's tile labels phase", solver, solver_bytes);
  plan.need("clump's tile labels phase", "its " + slots, clump_tile_labels_bytes(grid.tile, threads, threads));
  plan.need("clump's merge phase", solver, solver_bytes);
  plan.need("clump's merge phase", "the border rings of a row of tiles", clump_border_merge_bytes(grid));
  plan.need("clump's relabel phase", solver, solver_bytes);
  plan.need("clump's relabel phase", "rows of " + std::to_string(grid.width) + " columns and the " + slots,
            clump_relabel_row_bytes(grid) + clump_relabel_slot_bytes(grid.tile, threads, 1, stats));
  if (stats) plan.need("clump's relabel phase", "the statistics sorter's least", ExternalSorter::kMinimumBufferBytes);
  for (const char* phase : {"clump's tile labels phase", "clump's merge phase", "clump's relabel phase"})
    plan.other_remedy(phase, "use fewer --threads or a smaller --tile");
  plan.assign(budget);
}

std::unique_ptr<ClumpTileBatchSolver> make_solver(const TileGrid& grid, const ClumpPhaseOptions& options, WorkerPool& pool,
                                                  MemoryBudget& budget) {
  ClumpTileSolverOptions solver_options;
  solver_options.t = grid.tile;
  solver_options.connectivity = options.connectivity;
  solver_options.max_tiles = grid.tile_count();
  solver_options.gpu_memory_bytes = options.gpu_memory_bytes;
  solver_options.key_code = options.gpu_key_code;
  return make_clump_tile_solver(options.device, solver_options, pool, budget);
}

// The in-memory merge and relabel need their rings, rows and slots (and with --stats 24 bytes per
// border region) beside the table; where that is not left, the table goes external now.
void choose_table_mode(const TileGrid& grid, unsigned threads, bool stats, const MemoryBudget& budget, BorderTable& table) {
  if (table.external()) return;
  const std::uint64_t row = clump_max_row_border_regions(grid, table) * clump_relabel_border_bytes(false);
  const std::uint64_t relabel = clump_relabel_row_bytes(grid) + row + clump_relabel_slot_bytes(grid.tile, threads, 1, stats) +
                                (stats ? 24 * table.size() + ExternalSorter::kMinimumBufferBytes : 0);
  if (std::max(clump_border_merge_bytes(grid), relabel) > budget.available()) table.go_external();
}

// Phase 2: the border regions merged, in memory or external (the table's mode).
ClumpMergeTotals run_merge_phase(const TileGrid& grid, const ClumpPhaseOptions& options, unsigned threads,
                                 BorderRecords& records, BorderTable& table, MemoryBudget& budget, Progress& progress,
                                 ClumpPhaseResult& result) {
  if (!table.external()) return run_clump_border_merge(grid, options.connectivity, records, table, budget, progress);
  const ClumpExternalMergeTotals external =
      run_clump_external_merge(grid, options.connectivity, records, table, budget, progress,
                               options.scratch_dir + "/clump_merge_links.bin", threads);
  result.merge_levels = external.levels;
  result.merge_parallel_levels = external.parallel_levels;
  result.merge_links = external.links;
  result.bytes_read += external.bytes_read;
  result.bytes_written += external.bytes_written;
  return external.merge;
}

// With stats: the collector of phase 3's region statistics (W and H below 2^32).
std::unique_ptr<RegionStatsCollector> make_stats_collector(const TileGrid& grid, const ClumpPhaseOptions& options,
                                                           const BorderTable& table, MemoryBudget& budget) {
  if (grid.width >= (1ull << 32) || grid.height >= (1ull << 32))
    throw Error("clump --stats: the raster is " + std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                " cells; the statistics need both below 2^32");
  return std::make_unique<RegionStatsCollector>(options.scratch_dir + "/clump_stats", table.external() ? 0 : table.size(),
                                                budget, options.stats_buffer_bytes);
}
// Phase 1: each rank labels its own tiles (one process: every tile); distributed (options.comm),
// every rank then gets every tile's borders (engine/clump/distributed_borders.h). Failures are
// agreed at the end of each stage.
ClumpTileTotals label_and_share_tiles(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                      ClumpTileBatchSolver& solver, BorderRecords& records, BorderTable& table,
                                      MemoryBudget& budget, Progress& progress, Communicator& comm,
                                      ClumpPhaseResult& result) {
  ClumpTileTotals tiles;
  agreed_stage(comm, "clump: tile labels", [&] {
    tiles = run_clump_tile_labels(input, options, pool, solver, records, table, budget, progress);
    fault_point(comm, "clump: tile labels");
  });
  if (!options.distributed()) return tiles;
  Stopwatch exchange;
  agreed_stage(comm, "clump: border exchange", [&] {
    const ClumpShareTotals share =
        share_clump_borders(comm, *options.ownership, input.grid(), records, table, tiles, budget);
    result.bytes_sent += share.bytes_sent;
    result.bytes_received += share.bytes_received;
  });
  result.exchange_seconds = exchange.seconds();
  return tiles;
}

}  // namespace

ClumpPhaseResult run_clump_phases(const TileInput& input, const ClumpPhaseOptions& options, MemoryBudget& budget,
                                  Progress& progress, ClumpWindowSink* sink, ClumpStatsSink* stats) {
  const TileGrid& grid = input.grid();
  if (options.by == ClumpBy::Range && !(options.range_lo <= options.range_hi))
    throw UsageError("clump: the range's low end is above its high end");
  if (options.scratch_dir.empty()) throw Error("clump: no scratch directory");
  ClumpPhaseResult result;
  WorkerPool pool(options.threads);
  BorderRecords records(options.scratch_dir + "/clump_borders.bin", grid);
  BorderTable table(budget, grid.tile_count(), options.scratch_dir + "/clump_border_regions.bin");
  MemoryPlan own_plan;
  plan_phases(grid, pool.threads(), stats != nullptr, budget, options.plan ? *options.plan : own_plan);
  Stopwatch phase;
  const std::unique_ptr<ClumpTileBatchSolver> solver = make_solver(grid, options, pool, budget);
  result.solver_setup_seconds = phase.seconds();

  phase.restart();
  Communicator& comm = options.distributed() ? *options.comm : world();
  const ClumpTileTotals tiles =
      label_and_share_tiles(input, options, pool, *solver, records, table, budget, progress, comm, result);
  result.device_busy_seconds = tiles.device_seconds;
  result.tile_labels_solve = tiles.solve_seconds;
  result.tile_labels_borders = tiles.borders_seconds;
  result.tile_labels_table = tiles.table_seconds;
  result.tile_labels_seconds = phase.seconds();
  result.border_regions = table.size();
  result.cells_labelled = tiles.cells_labelled;

  phase.restart();
  ClumpMergeTotals merged;
  agreed_stage(comm, "clump: merge", [&] {
    choose_table_mode(grid, pool.threads(), stats != nullptr, budget, table);
    if (options.distributed() && table.external())
      throw BudgetError("clump on " + std::to_string(comm.size()) + " ranks: the merge and relabel of the " +
                        std::to_string(table.size()) + " border regions do not fit --memory beside them on this rank; "
                        "the external merge is not distributed yet: raise --memory");
    result.external_merge = table.external();
    merged = run_merge_phase(grid, options, pool.threads(), records, table, budget, progress, result);
    fault_point(comm, "clump: merge");
  });
  result.merge_seconds = phase.seconds();
  result.merged_border_regions = merged.roots;
  result.regions = tiles.interior_regions + merged.roots;
  result.largest_region = std::max(tiles.interior_largest, merged.largest);
  if (result.regions > options.max_regions)
    throw Error("clump: " + std::to_string(result.regions) + " regions, more than the " +
                std::to_string(options.max_regions) + " that UInt32 labels can number (0 is nodata); nothing was written");

  const std::unique_ptr<RegionStatsCollector> collector =
      stats ? make_stats_collector(grid, options, table, budget) : nullptr;
  phase.restart();
  std::uint64_t external_largest = 0;
  const std::uint64_t labelled = run_clump_relabel(input, options, pool, *solver, records, table, budget, progress, sink,
                                                   collector.get(), &result.relabel, &external_largest);
  if (sink) sink->end_of_windows();
  result.device_busy_seconds += result.relabel.device;
  result.relabel_seconds = phase.seconds();
  result.largest_region = std::max(result.largest_region, external_largest);
  if (collector) {
    phase.restart();
    progress.update("clump: stats", 0, 1);
    if (options.distributed()) collector->combine_border_stats(comm, table, *options.ownership, grid.tile_count());
    collector->finish(table, *stats, comm.root());
    progress.update("clump: stats", 1, 1);
    result.stats_seconds = phase.seconds();
    result.bytes_read += collector->bytes_read();
    result.bytes_written += collector->bytes_written();
  }
  if (labelled != result.regions)
    throw Error("clump: internal error: " + std::to_string(labelled) + " labels given for " +
                std::to_string(result.regions) + " regions");
  result.bytes_read += records.bytes_read() + table.bytes_read();
  result.bytes_written += records.bytes_written() + table.bytes_written();
  return result;
}

}  // namespace terrazo
