// kernels/mst/block_reduce.h: reduction of a tile's spanning forest to its boundary summary (phase 2).
//
// Source: [Gerritsen2012, ch. 2, Observations 3-4] (after Haverkort):
//  - a forest edge on a dead-end branch (a branch with no boundary vertex) is in the global MST;
//  - a maximal path whose interior vertices have forest degree 2 and are not boundary vertices is
//    contracted into one summary edge; globally, all of its edges are in the MST except possibly
//    its maximum edge, which is in the MST iff the summary edge is.
// Boundary vertices of a tile are its valid cells on the tile's outer ring (lx or ly is 0 or t-1).
//
// Contract (CPU and CUDA implementations are bit-identical, summary edges in the same order):
//   input  forest_bits[t*t] from block_mst, values[t*t] (for the weights), t, params, connectivity
//   output summary edges, sorted by key: the reduced forest has as vertices the boundary vertices
//          and the forest vertices of degree >= 3 after dead-end removal; each summary edge is a
//          maximal path between two of them, `a` < `b` its end cells (local ids), `key` the
//          tile_edge_key of the path's maximum edge (whose local edge id is key & 0xffffffff).
//          There are at most kMaxSummaryEdgesPerSide * t summary edges per tile.
// Expansion needs nothing more: the tile's final MST edges are forest_bits minus the maximum
// edges of the summary edges that the merge phases drop.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/tile_geometry.h"

namespace terrazo {

struct TileSummaryEdge {
  std::uint32_t a = 0, b = 0;  // local ids of the end vertices, a < b
  std::uint64_t key = 0;       // tile_edge_key(weight, edge id) of the path's maximum edge
};

constexpr std::uint32_t kMaxSummaryEdgesPerSide = 8;  // capacity: 8 * t summary edges per tile

void block_reduce_cpu(const std::uint8_t* forest_bits, const double* values, std::uint32_t t,
                      const WeightParams& params, Connectivity connectivity, std::vector<TileSummaryEdge>* summary);

// CUDA: tile_count tiles back to back; summaries[i] receives tile i's summary edges.
void block_reduce_cuda(const std::uint8_t* forest_bits, const double* values, std::uint64_t tile_count, std::uint32_t t,
                       const WeightParams& params, Connectivity connectivity,
                       std::vector<std::vector<TileSummaryEdge>>* summaries);

}  // namespace terrazo
