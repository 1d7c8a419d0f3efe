// kernels/sssp/backlink.h: backlinks (direction to the predecessor) from final shortest-path labels.
//
// Source: docs/sssp.md "Labels and tie-breaks"; the tie-break is terrazo's own (docs/sssp.md).
// Layout as kernels/sssp/block_sssp.h: (t+2h) x (t+2h) with a halo ring h = halo_width(connectivity)
// cells wide (kernels/sssp/knight.h: 2 with 16 neighbours, else 1) holding the final labels of the
// neighbouring cells (kUnreached where unreached or outside the raster); with 16 neighbours the halo's
// values are every halo cell's value (a knight's move weighs the two cells it crosses).
// Contract:
//   in     values, dist, hops (required) and source (optional: absent = all 0), (t+2h)^2 each: the
//          final lexicographic labels (dist, source, hops) of kernels/sssp/block_sssp.h.
//   out    backlink[t*t], interior row-major: kNoBacklink (255) where the cell is unreached or has
//          hops == 0 (it is its own nearest source); otherwise the lowest direction d (0..7, clockwise
//          from east, kernels/common/tile_geometry.h; with 16 neighbours 8..15 are the knight's moves,
//          kernels/sssp/knight.h) whose neighbour v = u + (dx[d], dy[d]) satisfies
//              dist(v) + w(v, u) == dist(u),  source(v) == source(u),  hops(v) + 1 == hops(u).
//          Such a v exists for every reached cell with hops > 0 when the labels are final, and hops
//          strictly decrease along backlinks, so following them never cycles (also on zero-weight
//          plateaus, where "lowest direction with dist(v) + w == dist(u)" alone can cycle).
//          A reached cell with hops > 0 and no such neighbour (labels not final) gets kNoBacklink
//          and is counted in the return value, so callers can report inconsistent input.
//          *overflow is set when a weight does not fit (kernels/common/edge_weight.h).
#pragma once
#include <cstdint>

#include "kernels/common/tile_geometry.h"

namespace terrazo {

constexpr std::uint8_t kNoBacklink = 255;

std::uint64_t backlinks_cpu(const double* values, std::uint32_t t, const WeightParams& params,
                            Connectivity connectivity, const PathLength* dist, const std::uint32_t* source,
                            const std::uint32_t* hops, std::uint8_t* backlink, bool* overflow);

}  // namespace terrazo
