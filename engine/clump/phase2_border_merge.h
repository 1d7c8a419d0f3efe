// engine/clump/phase2_border_merge.h: phase 2 of `terrazo clump` (engine/clump/phases.h): the
// border regions of all tiles joined across tile seams with a 64-bit union-find in memory
// (BorderTable: parent[], 36 bytes per border region in all).
//
// For each tile T in row-major order, its ring against the rings of its right (R), lower (D),
// lower-right (DR) and lower-left (DL) neighbours, each pair of neighbouring cells across the seam
// (8-connectivity: the three cells facing each edge cell, and the corner diagonals with DR and DL;
// 4: the facing cell only) joined when both keys are equal (`==`, NaN never). Every neighbouring
// pair of cells in different tiles is seen once. Then each merged region's first cell is the
// smallest `first` of its members; the member holding it is its owner (BorderTable::kOwner).
// The rings are read a row of tiles at a time, two rows held (96 bytes per column of the raster),
// so each tile's record is read once.
// Post: parent[i] = root | owner bit; root[r] = the region's first cell id; cells[r] = its cells.
#pragma once
#include <cstdint>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"
#include "engine/clump/border_table.h"

namespace terrazo {

struct ClumpMergeTotals {
  std::uint64_t roots = 0;    // border regions after the merge
  std::uint64_t largest = 0;  // cells of the largest of them
};

// Bytes phase 2 reserves (two rows of rings); the union-find is in the BorderTable's reservation.
std::uint64_t clump_border_merge_bytes(const TileGrid& grid);

ClumpMergeTotals run_clump_border_merge(const TileGrid& grid, Connectivity connectivity, const BorderRecords& records,
                                        BorderTable& table, MemoryBudget& budget, Progress& progress);

}  // namespace terrazo
