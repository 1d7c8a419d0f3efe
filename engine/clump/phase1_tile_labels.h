// engine/clump/phase1_tile_labels.h: phase 1 of `terrazo clump` (engine/clump/phases.h): every
// present tile, in row-major tile order, in batches through the tile solver
// (kernels/clump/label_tile_solver.h: label_tile_cpu on the pool, or the CUDA twin, two batches in
// flight): its keys (clump_keys), its labels, then on the pool summarize_tile_border
// (kernels/clump/label_tile.h); the tile's border record to the scratch file, its border regions
// appended to the BorderTable in tile order (in memory while they fit the budget, else to its spill
// file: BorderTable::go_external; from the start with options.external_merge).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/worker_pool.h"
#include "engine/clump/border_table.h"
#include "engine/clump/phases.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/clump/label_tile_solver.h"

namespace terrazo {

// Scratch bytes beside the tile solver's: per thread and cell of a tile (summarize_tile_border's
// per-region arrays, at most 13 t^2, rounded up), and per tile of a batch and cell of its edge
// (the TileBorder, at most 100 t, and its record with the ring keys, 52 t).
constexpr std::uint64_t kClumpThreadCellBytes = 16, kClumpSlotRingBytes = 160;

// The values of a tile (NaN = nodata) turned into keys in place (phases.h "Keys").
void clump_keys(double* values, std::uint64_t n, const ClumpPhaseOptions& options);

// Bytes phase 1 reserves beside the solver: thread scratch and `batch` tiles' borders.
std::uint64_t clump_tile_labels_bytes(std::uint32_t t, unsigned threads, std::uint64_t batch);

struct ClumpTileTotals {
  std::uint64_t interior_regions = 0, cells_labelled = 0, interior_largest = 0;
  double device_seconds = 0;  // CUDA: the tile solver's GPU time (ClumpTileSolved::device_ms)
  // Wall time on the calling thread: submitting batches (their reads) and waiting for them; the
  // border summaries and records on the pool; appending the border regions to the table.
  double solve_seconds = 0, borders_seconds = 0, table_seconds = 0;
};

// The present tiles of [begin, end) in row-major order, from `*next`, at most `count`: advances *next.
// With `mine`, only the tiles it says this rank owns (ClumpPhaseOptions::mine).
std::vector<std::uint64_t> next_present_tiles(const TileInput& input, std::uint64_t* next, std::uint64_t end,
                                              std::uint64_t count, const ClumpPhaseOptions* mine = nullptr);

ClumpTileTotals run_clump_tile_labels(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                      ClumpTileBatchSolver& solver, BorderRecords& records, BorderTable& table, MemoryBudget& budget,
                                      Progress& progress);

}  // namespace terrazo
