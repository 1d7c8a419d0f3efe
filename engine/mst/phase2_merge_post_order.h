// engine/mst/phase2_merge_post_order.h: phase 2 of the MST pipeline (the hierarchical merge) as the
// Z-order post-order recursion over the quadtree of tiles (--merge cpu): every level-k cluster
// (cx, cy) with cx * 2^k < tiles_x and cy * 2^k < tiles_y is merged from its existing children by
// merge_clusters (engine/mst/merge_step.h), subtrees below a split level (about 4 x threads of them)
// in parallel on the WorkerPool, each from its own reader positioned at its first tile's summary
// (summary_offsets, row-major tile index), the levels above on the calling thread. Reads the tile
// summaries (engine/mst/summary_file.h) once. Expansion records (kept crossing edges "in", dropped
// summary reps "out", expansion_record_key) go to `records`. Progress: "mst: merge", 0 .. (number
// of merge steps). The same decisions as the level merge (engine/mst/phase2_merge_levels.h).
// Distributed (`ranks` given, docs/distributed.md "mst"): the summaries file holds this rank's
// tiles only; the parallel subtrees are the clusters wholly this rank's at or below the split
// level, the clusters spanning ranks are merged on the rank owning their first tile from the child
// summaries the others send (engine/mst/merge_ranks.h), and the records of other ranks' tiles go to
// ranks->remote instead of `records`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/edge_weight.h"
#include "io/store/external_sorter.h"
#include "io/store/tile_store.h"
#include "engine/mst/merge_balance.h"
#include "engine/mst/merge_ranks.h"

namespace terrazo {

struct PostOrderMergeTotals {
  std::uint32_t levels = 0;
  MergeBalance balance;
  std::uint64_t bytes_read = 0;  // the tile summaries
};

PostOrderMergeTotals run_post_order_merge(const TileGrid& grid, const WeightParams& params, Connectivity connectivity,
                                          const std::string& tile_summaries,
                                          const std::vector<std::uint64_t>& summary_offsets, ExternalSorter& records,
                                          MemoryBudget& budget, Progress& progress, WorkerPool& pool,
                                          const MstMergeRanks* ranks = nullptr);

}  // namespace terrazo
