// kernels/sssp/backlink.cpp: the backlink rule of kernels/sssp/backlink.h, one pass over the tile.
#include "kernels/sssp/backlink.h"

namespace terrazo {

std::uint64_t backlinks_cpu(const double* values, std::uint32_t t, const WeightParams& params,
                            Connectivity connectivity, const PathLength* dist, const std::uint32_t* source,
                            const std::uint32_t* hops, std::uint8_t* backlink, bool* overflow) {
  const std::int64_t s = static_cast<std::int64_t>(t) + 2;
  std::uint64_t missing = 0;
  for (std::uint32_t ly = 0; ly < t; ++ly) {
    for (std::uint32_t lx = 0; lx < t; ++lx) {
      const std::int64_t u = (static_cast<std::int64_t>(ly) + 1) * s + lx + 1;
      std::uint8_t& out = backlink[static_cast<std::uint64_t>(ly) * t + lx];
      out = kNoBacklink;
      if (dist[u] == kUnreached || hops[u] == 0) continue;
      const std::uint32_t source_u = source ? source[u] : 0u;
      for (int d = 0; d < 8; ++d) {
        if (!direction_used(d, connectivity)) continue;
        const std::int64_t v = u + static_cast<std::int64_t>(kDirDy[d]) * s + kDirDx[d];
        if (dist[v] == kUnreached || hops[v] + 1 != hops[u]) continue;
        if ((source ? source[v] : 0u) != source_u) continue;
        const Weight w = step_weight(params, values[v], values[u], opposite(d), v / s, overflow);
        if (w == kNoEdge || dist[v] > dist[u] || dist[u] - dist[v] != w) continue;
        out = static_cast<std::uint8_t>(d);
        break;
      }
      if (out == kNoBacklink) ++missing;
    }
  }
  return missing;
}

}  // namespace terrazo
