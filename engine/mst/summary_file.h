// engine/mst/summary_file.h: the cluster summary scratch files of the MST pipeline: phase 1's tile
// summaries (mst_tile_summaries) and the level merge's level files (mst_level_summaries_<k>), read
// by both phase-2 merges (engine/mst/phase2_merge_post_order.h, engine/mst/phase2_merge_levels.h).
#pragma once
#include <cstdint>

#include "engine/mst/merge_step.h"
#include "io/store/sequential_file.h"

namespace terrazo {

constexpr std::uint64_t kSummaryFileBufferBytes = 1ull << 20;  // each sequential scratch file's buffer

// The summary scratch files (phase 1's tile summaries and the level files): per cluster a header
// {cx, cy, edge count, ring lengths top, bottom, left, right} (7 x u64), the summary edges
// (SummaryEdge, 32 bytes each), then the ring values (doubles) top, bottom, left, right.
void write_cluster_summary(SequentialWriter& out, const ClusterSummary& s);
ClusterSummary read_cluster_summary(SequentialReader& in, std::uint32_t level);

}  // namespace terrazo
