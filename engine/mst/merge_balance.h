// engine/mst/merge_balance.h: what the hierarchical merge (phase 2, post-order or level by level:
// engine/mst/phase2_merge_*.h) changes in the forest: the crossing edges it keeps (in), the summary
// edges it drops (out), and their weights. The expansion's check (engine/mst/phases.cpp) holds the
// forest to forest_edges + in_edges - out_edges edges of forest_weight + in_weight - out_weight.
#pragma once
#include <cstdint>

#include "kernels/common/types.h"

namespace terrazo {

struct MergeBalance {
  std::uint64_t in_edges = 0, out_edges = 0;  // kept crossing edges, dropped summary edges
  unsigned __int128 in_weight = 0, out_weight = 0;

  void kept(Weight weight) {
    ++in_edges;
    in_weight += weight;
  }
  void dropped(Weight weight) {
    ++out_edges;
    out_weight += weight;
  }
  MergeBalance& operator+=(const MergeBalance& other) {
    in_edges += other.in_edges;
    out_edges += other.out_edges;
    in_weight += other.in_weight;
    out_weight += other.out_weight;
    return *this;
  }
};

}  // namespace terrazo
