// kernels/index/gprime_rounds_cpu.cpp: the CPU twin of gprime_rounds.h (one tile per call; the
// engine spreads a round's tiles over threads).
#include "kernels/index/gprime_rounds.h"

#include <algorithm>

#include "kernels/index/min_plus.h"

namespace terrazo {

PathLength gprime_round_solve_cpu(const PathLength* m, std::uint32_t b, std::uint32_t kb, PathLength max_cost,
                                  PathLength threshold, PathLength* label, PathLength* pending, PathLength* out) {
  std::vector<PathLength> acc(b);
  PathLength key = kUnreached;
  for (std::uint32_t v = 0; v < kb; ++v) {
    PathLength* y = label + static_cast<std::uint64_t>(v) * b;
    PathLength* x = pending + static_cast<std::uint64_t>(v) * b;
    PathLength* o = out + static_cast<std::uint64_t>(v) * b;
    bool any = false;  // a due entry (finite, <= threshold)
    for (std::uint32_t i = 0; i < b && !any; ++i) any = x[i] != kUnreached && x[i] <= threshold;
    if (!any) {  // nothing due: no label changes
      std::fill(o, o + b, kUnreached);
      for (std::uint32_t i = 0; i < b; ++i) key = std::min(key, x[i]);
      continue;
    }
    std::copy(y, y + b, acc.begin());
    for (std::uint32_t i = 0; i < b; ++i)
      if (x[i] != kUnreached && x[i] <= threshold) min_plus_relax_row(acc.data(), m + static_cast<std::uint64_t>(i) * b, x[i], b);
    for (std::uint32_t j = 0; j < b; ++j) {
      const PathLength now = acc[j] > max_cost ? kUnreached : acc[j];
      const bool due = x[j] != kUnreached && x[j] <= threshold;
      o[j] = now < y[j] || due ? now : kUnreached;
      y[j] = now;
      if (due || now < x[j]) x[j] = kUnreached;
      key = std::min(key, x[j]);
    }
  }
  return key;
}

PathLength gprime_round_push_cpu(std::uint64_t d, std::uint32_t b, std::uint32_t kb, PathLength max_cost,
                           const GPrimeInEdge* edges, const std::int64_t* neighbours, const std::uint8_t* active,
                           const PathLength* out, PathLength* label, PathLength* pending) {
  bool any = false;
  for (int k = 0; k < 9; ++k) any = any || (k != 4 && neighbours[k] >= 0 && active[neighbours[k]]);
  if (!any) return kUnreached;
  PathLength improved = kUnreached;
  const std::uint64_t block = static_cast<std::uint64_t>(kb) * b;
  for (std::uint32_t q = 0; q < b; ++q) {
    const GPrimeInEdge* e = edges + static_cast<std::uint64_t>(q) * kGPrimeInEdges;
    const PathLength* from[kGPrimeInEdges];
    Weight w[kGPrimeInEdges];
    unsigned n = 0;
    for (unsigned s = 0; s < kGPrimeInEdges; ++s) {
      if (e[s].w == kNoEdge) continue;
      const std::int64_t src = neighbours[e[s].from];
      if (src < 0 || !active[src]) continue;
      from[n] = out + static_cast<std::uint64_t>(src) * block + e[s].p;
      w[n++] = e[s].w;
    }
    if (n == 0) continue;
    for (std::uint32_t v = 0; v < kb; ++v) {
      const std::uint64_t at = d * block + static_cast<std::uint64_t>(v) * b + q;
      PathLength best = label[at];
      for (unsigned s = 0; s < n; ++s) {
        const PathLength o = from[s][static_cast<std::uint64_t>(v) * b];
        if (o == kUnreached) continue;
        const PathLength c = o + w[s];
        if (c <= max_cost && c < best) best = c;
      }
      if (best < label[at]) {
        label[at] = pending[at] = best;
        improved = std::min(improved, best);
      }
    }
  }
  return improved;
}

}  // namespace terrazo
