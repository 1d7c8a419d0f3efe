// engine/clump/phase2_external_merge.h: phase 2 of `terrazo clump` when the border table is
// external (BorderTable::external(): its regions did not fit the budget, or
// ClumpPhaseOptions::external_merge): the border regions joined across tile seams by union-find up a
// 2x2 hierarchy of tile groups, as the MST merge (engine/mst/merge_step.h "Clusters"), streamed
// from and to the run directory, in memory only what one group's boundary needs.
//
// Groups. A group of level k is the square of 2^k x 2^k tiles at (cx, cy), cells
// [x0, x0 + s) x [y0, y0 + s), s = t 2^k, cut by the raster; it exists when cx 2^k < tiles_x and
// cy 2^k < tiles_y; its children are its (up to four) level-(k-1) quadrants; the root is the one
// group of level L = ceil(log2(max(tiles_x, tiles_y))). A piece of a region inside a group is named
// by its *id*: the global id (y W + x) of the piece's first cell, the smallest first cell of the
// tile border regions merged into it so far. Ids only decrease up the levels, and at a level where a
// region no longer reaches the group's boundary its id is final: the region's first cell, the root
// that phase 3 numbers.
//
// Summary of a group: its kept sides (top row, bottom row, left and right column; a side on the
// raster's edge is not kept, it has no neighbour), the id and key of every cell (no id where the
// cell has no region). A tile's summary comes from its ring record (BorderRecords) and its border
// regions' first cells (the spill file).
//
// Bottom-up (Z-order post-order, "clump: merge"): each group's children's summaries; their cells
// facing each other across the group's inner seams are joined when their keys are equal (the cells
// that phase2_border_merge.h pairs: facing cells, with 8 neighbours the two diagonals along a seam
// and the two diagonals through the group's centre); a union-find over the children's distinct ids
// (sorted, so each set's root is its smallest id) gives each child id its group id; the *links*
// (child id, group id) of every child id, sorted by child id, are appended to the links file; the
// group's summary is built from its children's outer sides with the new ids, and the children's
// are dropped. Every pair of neighbouring cells in different tiles is joined at the one group where
// they are in different children.
//
// Top-down (Z-order pre-order): a group gets the final root of each id on its summary (the root:
// none); its links give every child id c with group id g the root final(g), which is g when g is
// not on the group's summary (its region is complete in the group); the links are split among the
// children by where the cell c lies. A tile's border region b with first cell f gets final(f) (f
// itself when f is on no kept side). The roots go to the table's root file, in tile order.
//
// Memory (reserved as "clump external merge"): the summaries on the recursion's path (at most three
// siblings' per level, 16 bytes per kept side cell: about 128 (W + H) bytes for the top levels
// together), one group's union-find (32 bytes per distinct id), and one group's links and the final
// maps on the path (32 bytes per link). I/O: each tile's ring and regions read once, the links
// (16 bytes per child id per level: about twice the border regions that reach a tile seam) written
// once and read once, the roots (8 bytes per border region) written once.
// Threads: the top P levels (the fewest with 4^P >= `threads` subtrees, fewer when the budget has not
// room for 4^P recursion paths at 256 (W + H) bytes each) run each child's subtree, up and down, on
// a thread of its own: the subtrees share nothing but the files (positioned reads and writes: each
// group's links a run at an offset of its own, each tile's roots its own range) and the budget. The
// roots are the same whatever the threads (ClumpPipeline.ExternalMergeSameRootsWhateverTheThreads).
// Post: table's root file holds, for every border region, its merged region's first cell.
#pragma once
#include <cstdint>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"
#include "engine/clump/border_table.h"
#include "engine/clump/phase2_border_merge.h"

namespace terrazo {

struct ClumpExternalMergeTotals {
  ClumpMergeTotals merge;             // roots: border regions that own their root; largest: 0 (phase 3 finds it)
  std::uint32_t levels = 0;           // L
  std::uint32_t parallel_levels = 0;  // the top levels whose children's subtrees ran on threads of their own
  std::uint64_t links = 0;            // link records written
  std::uint64_t bytes_read = 0, bytes_written = 0;  // the links file (the table and records count their own)
};

ClumpExternalMergeTotals run_clump_external_merge(const TileGrid& grid, Connectivity connectivity,
                                                  const BorderRecords& records, BorderTable& table,
                                                  MemoryBudget& budget, Progress& progress,
                                                  const std::string& links_path, unsigned threads = 1);

}  // namespace terrazo
