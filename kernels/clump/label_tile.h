// kernels/clump/label_tile.h: connected regions of one tile (the per-tile solver of `terrazo clump`,
// docs/clump.md), and the tile's border summary that the cross-tile merge consumes.
//
// Contract (label_tile_cpu, and its CUDA twin label_tiles_cuda in kernels/clump/label_tile.cu,
// many tiles at once; kernels/clump/label_tile_solver.h is the one CPU/GPU dispatch):
//   in:  `keys`, t*t doubles row-major; NaN = the cell belongs to no region (nodata, outside the
//        --by range, padding). Two cells are joined when they are neighbours (4: E W N S; 8: also
//        the diagonals) and their keys compare equal with `==` (so -0 == +0; NaN never joins).
//   out: `labels[i]` = the local region of cell i, numbered 0..regions-1 in row-major order of each
//        region's first cell (its smallest local id ly*t + lx); kNoRegion where the key is NaN.
//   The numbering is a pure function of the keys: any twin gives the same labels bit for bit.
// Plain formula: labels = flood fill from each unlabelled valid cell, in row-major order.
// Here: one pass of union-find over the W, N (and NW, NE) neighbours, every link pointing to a
// smaller cell (a new cell attaches under a neighbour's parent, a union links the larger root under
// the smaller), so each root is its region's first cell; the neighbours already joined through
// another are skipped (a decision tree, [Wu2009, sec. 3]);
// a second row-major pass flattens (the parent of an earlier cell is its root already) and numbers
// roots as they are met. O(t^2 alpha) time; scratch t^2 u32 (the UnionFind's array, not reset).
//
// summarize_tile_border: which regions touch the tile's ring, and the counts the final numbering
// needs (engine/clump/phases.h). Pre: labels from label_tile_cpu.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/types.h"
#include "kernels/common/union_find.h"
#include "kernels/common/edge_weight.h"  // TERRAZO_HD: ring_cell and the summary layout serve the CUDA twin too

namespace terrazo {

constexpr std::uint32_t kNoRegion = 0xFFFFFFFFu;

// Labels the tile; returns the number of regions. `scratch` is resized to t*t (reuse it per thread).
std::uint32_t label_tile_cpu(const double* keys, std::uint32_t t, Connectivity connectivity, std::uint32_t* labels,
                             UnionFind& scratch);

// The tile's border summary. Ring order: top row (lx 0..t-1), bottom row, left column (ly 0..t-1),
// right column: 4t entries.
struct TileBorder {
  // Border regions (regions with a ring cell), in local label order: border index b ->
  std::vector<std::uint32_t> region;         // its local label
  std::vector<std::uint32_t> first_cell;     // local id of its first cell (ly*t + lx)
  std::vector<std::uint32_t> starts_before;  // interior regions whose first cell is in the same row, left of it
  std::vector<std::uint64_t> cells;          // its cells in this tile
  std::vector<std::uint32_t> ring;           // 4t: border index of the ring cell, or kNoRegion
  std::vector<std::uint32_t> interior_starts_per_row;  // t: interior regions whose first cell is in row ly
  std::uint64_t interior_largest = 0;        // cells of the largest interior region (0: none)
  std::uint32_t interior_regions = 0;
  std::uint64_t labelled = 0;                // cells with a region (label != kNoRegion)
};

void summarize_tile_border(const std::uint32_t* labels, std::uint32_t regions, std::uint32_t t, TileBorder* out);

// The packed TileBorder that the CUDA labeller sends back in place of a tile's labels (phase 1
// needs no more of a tile; kernels/clump/label_tile.cu computes it on the device), in 32-bit words:
//   [0] border regions B, [1] interior_regions, [2, 3] interior_largest, [4, 5] labelled (low word
//   first), [6, 7] unused; then ring (4t), interior_starts_per_row (t), and per border region
//   (room for 4t) region, first_cell, starts_before, cells (a tile has at most t^2 < 2^32 cells).
struct ClumpSummaryLayout {
  std::uint32_t t = 0;
  TERRAZO_HD std::uint64_t ring() const { return 8; }
  TERRAZO_HD std::uint64_t rows() const { return 8 + 4ull * t; }
  TERRAZO_HD std::uint64_t region() const { return 8 + 5ull * t; }
  TERRAZO_HD std::uint64_t first_cell() const { return 8 + 9ull * t; }
  TERRAZO_HD std::uint64_t starts_before() const { return 8 + 13ull * t; }
  TERRAZO_HD std::uint64_t cells() const { return 8 + 17ull * t; }
  TERRAZO_HD std::uint64_t words() const { return 8 + 21ull * t; }
};
void unpack_tile_border(const std::uint32_t* packed, std::uint32_t t, TileBorder* out);

// Only summarize_tile_border's border index of each region, from the ring alone (O(t + regions),
// no pass over the tile): (*border_of)[r] = b where TileBorder::region[b] = r, kNoRegion for an
// interior region. Returns the number of border regions. Phase 3 needs no more of the summary.
std::uint32_t tile_border_index(const std::uint32_t* labels, std::uint32_t regions, std::uint32_t t,
                                std::vector<std::uint32_t>* border_of);

// Ring position p (0..4t-1) as a local cell id.
TERRAZO_HD std::uint32_t ring_cell(std::uint32_t p, std::uint32_t t) {
  const std::uint32_t side = p / t, k = p % t;
  switch (side) {
    case 0: return k;                      // top row
    case 1: return (t - 1) * t + k;        // bottom row
    case 2: return k * t;                  // left column
    default: return k * t + (t - 1);       // right column
  }
}

}  // namespace terrazo
