// engine/clump/phase1_tile_labels.h: phase 1 of `terrazo clump` (engine/clump/phases.h): every
// present tile, in row-major tile order, in batches of one tile per thread: its keys (clump_keys),
// label_tile_cpu and summarize_tile_border (kernels/clump/label_tile.h); the tile's border record
// to the scratch file, its border regions appended to the BorderTable in tile order.
#pragma once
#include <cstdint>

#include "core/memory_budget.h"
#include "core/progress.h"
#include "core/worker_pool.h"
#include "engine/clump/border_table.h"
#include "engine/clump/phases.h"
#include "engine/tile_input.h"

namespace terrazo {

// Scratch bytes of one tile slot (one per thread): per cell of the tile, and per cell of its edge.
constexpr std::uint64_t kClumpSlotCellBytes = 32, kClumpSlotRingBytes = 160;

// The values of a tile (NaN = nodata) turned into keys in place (phases.h "Keys").
void clump_keys(double* values, std::uint64_t n, const ClumpPhaseOptions& options);

// Bytes phase 1 reserves for its tile slots (one per thread).
std::uint64_t clump_tile_labels_bytes(std::uint32_t t, unsigned threads);

struct ClumpTileTotals {
  std::uint64_t interior_regions = 0, cells_labelled = 0, interior_largest = 0;
};

ClumpTileTotals run_clump_tile_labels(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                      BorderRecords& records, BorderTable& table, MemoryBudget& budget,
                                      Progress& progress);

}  // namespace terrazo
