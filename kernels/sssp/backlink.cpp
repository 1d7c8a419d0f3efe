// kernels/sssp/backlink.cpp: the backlink rule of kernels/sssp/backlink.h, one pass over the tile.
#include "kernels/sssp/backlink.h"

#include "kernels/sssp/knight.h"

namespace terrazo {

std::uint64_t backlinks_cpu(const double* values, std::uint32_t t, const WeightParams& params,
                            Connectivity connectivity, const PathLength* dist, const std::uint32_t* source,
                            const std::uint32_t* hops, std::uint8_t* backlink, bool* overflow) {
  const std::int64_t h = halo_width(connectivity);
  const std::int64_t s = static_cast<std::int64_t>(t) + 2 * h;
  const int directions = direction_count(connectivity);
  double knight_lengths[16] = {};
  if (connectivity == Connectivity::Sixteen)
    for (int d = 8; d < 16; ++d) knight_lengths[d] = knight_length(params.steps, d);
  std::uint64_t missing = 0;
  for (std::uint32_t ly = 0; ly < t; ++ly) {
    for (std::uint32_t lx = 0; lx < t; ++lx) {
      const std::int64_t u = (static_cast<std::int64_t>(ly) + h) * s + lx + h;
      std::uint8_t& out = backlink[static_cast<std::uint64_t>(ly) * t + lx];
      out = kNoBacklink;
      if (dist[u] == kUnreached || hops[u] == 0) continue;
      const std::uint32_t source_u = source ? source[u] : 0u;
      for (int d = 0; d < directions; ++d) {
        if (!step_used(d, connectivity)) continue;
        const std::int64_t v = u + static_cast<std::int64_t>(kStepDy[d]) * s + kStepDx[d];
        if (dist[v] == kUnreached || hops[v] + 1 != hops[u]) continue;
        if ((source ? source[v] : 0u) != source_u) continue;
        Weight w;
        if (is_knight(d)) {  // the step v -> u crosses the same two cells as u -> v
          int ax, ay, bx, by;
          knight_crossed(d, &ax, &ay, &bx, &by);
          w = knight_weight(params, values[v], values[u + ay * s + ax], values[u + by * s + bx], values[u],
                            knight_lengths[d], overflow);
        } else {
          w = step_weight(params, values[v], values[u], opposite(d), v / s, overflow);
        }
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
