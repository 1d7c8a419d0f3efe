// engine/clump/phase3_relabel.h: phase 3 of `terrazo clump` (engine/clump/phases.h): the final
// numbering and the label windows, tile row by tile row.
//
// A region's number is 1 + the number of region first cells ("starts") before its first cell in
// row-major order. Starts are the first cells of interior regions (phase 1 counted them per tile
// row) and of owner border regions (phase 2). For tile row ty, with C[tx][ly] the starts in row ly
// of tile tx, P[tx][ly] = base + the sum of C over (ly', tx') < (ly, tx) in row-major order gives
// the number of starts before row ly of tile tx; then
//   1. each owner border region of the row: root label = P[tx][ly] + starts_before + the owner
//      border starts left of it in its row + 1 (no tile is read);
//   2. each present tile of the row (in batches through the tile solver,
//      kernels/clump/label_tile_solver.h): read, labelled again (the same labels as in phase 1),
//      interior regions numbered P[tx][ly] + 1 + the starts left of them, border regions given
//      their root's label; the window goes to the sink in tile order.
// A border region in row ty belongs to a root whose first cell is in row ty or above, so its label
// is known when the row is written.
// The border regions of the row come from the in-memory BorderTable (parent: owner bit and root), or
// in external mode (BorderTable::external()) from its spill and root files, a tile row at a time:
// owner = (root == first cell); the roots' labels are kept in a sorted list of the roots in use,
// each kept while the next tile row has a region of it (a region is connected, so once a row has
// none of it no later row has), with its cells and, for `stats`, its box and value, pushed to the
// collector as a complete region when it retires. At most the border regions of two tile rows are
// in the list (O(W) memory, whatever the raster's height). `external_largest`: the largest merged
// region's cells (external mode; the in-memory merge counts it in phase 2).
// With `stats`: each tile's regions are measured (cells, box, value; 28 t^2 more bytes per slot),
// interior ones pushed to the collector, border ones merged into their root's, after each batch.
#pragma once
#include <cstdint>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/worker_pool.h"
#include "engine/clump/border_table.h"
#include "engine/clump/phases.h"
#include "engine/clump/region_stats.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/clump/label_tile_solver.h"

namespace terrazo {

// Bytes phase 3 reserves: the row counts (12 W) and its tile slots (one per thread), with the
// per-region measures when `stats`.
std::uint64_t clump_relabel_row_bytes(const TileGrid& grid);
// The most border regions of one tile row, and the bytes phase 3 keeps per such region (the row's
// labels; external mode: its records and roots, the roots in use and their statistics).
std::uint64_t clump_max_row_border_regions(const TileGrid& grid, const BorderTable& table);
std::uint64_t clump_relabel_border_bytes(bool external);
// Per thread and per tile of a batch (the batch is the solver's, smaller when it does not fit).
std::uint64_t clump_relabel_slot_bytes(std::uint32_t t, unsigned threads, std::uint64_t batch, bool stats);

// Returns the number of labels given (K).
std::uint64_t run_clump_relabel(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                ClumpTileBatchSolver& solver, const BorderRecords& records, BorderTable& table, MemoryBudget& budget,
                                Progress& progress, ClumpWindowSink* sink, RegionStatsCollector* stats = nullptr,
                                ClumpRelabelSeconds* seconds = nullptr, std::uint64_t* external_largest = nullptr);

}  // namespace terrazo
