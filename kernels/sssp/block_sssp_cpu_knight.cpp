// kernels/sssp/block_sssp_cpu_knight.cpp: the CPU block solver with knight's moves (--connectivity 16).
//
// The contract of kernels/sssp/block_sssp.h on a (t+4)^2 window (two-cell halo, kernels/sssp/knight.h),
// with the 8 neighbours and the 8 knight's moves. The same Dijkstra as solve() in
// block_sssp_cpu_solve.h (halo seeds relaxed while seeding, only improving interior seeds queued,
// neighbours at or below the popped distance skipped, bucket entries reused within a bucket), with
// the model read at run time. A knight's move weighs the two cells it crosses, which are inside the
// window whenever both ends are (they lie in the ends' bounding box); the halo holds every halo
// cell's value (engine/sssp/halo_values.h).
#include <cstring>
#include <vector>

#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

template <bool kLabelled, class Queue>
std::uint64_t solve_knight(const double* values, std::uint32_t t, const WeightParams& params, PathLength max_cost,
                           const Labels<kLabelled>& labels, bool interior_consistent, std::uint8_t* changed,
                           bool* overflow, Queue& heap) {
  using Key = typename Labels<kLabelled>::Key;
  constexpr bool kBuckets = IsBucketQueue<Queue>::value;
  constexpr int kDirections = 16;
  const std::uint32_t s = t + 4;
  const std::uint64_t cells = static_cast<std::uint64_t>(s) * s;
  PathLength* dist = labels.dist;
  const WeightParams& p = params;
  thread_local std::vector<std::uint8_t> state_buffer;
  state_buffer.resize(cells);
  std::uint8_t* state = state_buffer.data();  // 0 halo, 1 interior, 2 interior and improved
  std::memcpy(state, interior_mask(t, 2), cells);
  const std::uint8_t* interior = state;

  std::int64_t offset[kDirections], cross_a[kDirections] = {}, cross_b[kDirections] = {};
  double length[kDirections] = {};
  for (int d = 0; d < kDirections; ++d) {
    offset[d] = static_cast<std::int64_t>(kStepDy[d]) * s + kStepDx[d];
    if (!is_knight(d)) continue;
    int ax, ay, bx, by;
    knight_crossed(d, &ax, &ay, &bx, &by);
    cross_a[d] = static_cast<std::int64_t>(ay) * s + ax;
    cross_b[d] = static_cast<std::int64_t>(by) * s + bx;
    length[d] = knight_length(p.steps, d);
  }
  std::uint64_t changed_count = 0;
  bool overflowed = false;
  // The weight of the step u -> v in direction d (uniform step lengths: no row needed).
  auto weight = [&](std::uint32_t u, double value, std::uint32_t v, int d) {
    if (d < 8) return step_weight(p, value, values[v], d, 0, &overflowed);
    return knight_weight(p, value, values[u + cross_a[d]], values[u + cross_b[d]], values[v], length[d], &overflowed);
  };
  auto relax = [&](std::uint32_t u, double value, std::uint32_t v, int d) {
    const Weight w = weight(u, value, v, d);
    if (w == kNoEdge) return false;
    Key candidate;
    const Key before = labels.key(v);
    if (!labels.extend(u, w, max_cost, &candidate) || !(candidate < before)) return false;
    labels.store(v, candidate);
    const std::uint8_t was = state[v];
    changed_count += was == 1 ? 1 : 0;
    state[v] = 2;
    if constexpr (kBuckets) {
      if (was == 2 && heap.same_bucket(before, candidate)) return true;
    }
    heap.push(candidate, v);
    return true;
  };

  // Seeds: every finite cell, or only the halo when the interior is known to be consistent.
  auto seed = [&](std::uint32_t u) {
    if (dist[u] == kUnreached || dist[u] > max_cost) return;
    const double value = values[u];
    if (value != value) return;
    const bool halo = !interior[u];
    for (int d = 0; d < kDirections; ++d) {
      const std::int64_t v64 = static_cast<std::int64_t>(u) + offset[d];
      // A halo cell's step that wraps around a row lands in the opposite two halo columns.
      if (v64 < 0 || v64 >= static_cast<std::int64_t>(cells)) continue;
      const auto v = static_cast<std::uint32_t>(v64);
      if (!interior[v]) continue;
      if (halo) {
        relax(u, value, v, d);
        continue;
      }
      const Weight w = weight(u, value, v, d);
      if (w == kNoEdge) continue;
      Key candidate;
      if (labels.extend(u, w, max_cost, &candidate) && candidate < labels.key(v)) {
        heap.push(labels.key(u), u);
        break;
      }
    }
  };
  if (interior_consistent) {
    for (std::uint32_t y = 0; y < s; ++y) {
      if (y < 2 || y >= t + 2) {
        for (std::uint32_t x = 0; x < s; ++x) seed(y * s + x);
      } else {
        seed(y * s);
        seed(y * s + 1);
        seed(y * s + t + 2);
        seed(y * s + t + 3);
      }
    }
  } else {
    for (std::uint32_t u = 0; u < cells; ++u) seed(u);
  }

  while (!heap.empty()) {
    const auto entry = heap.pop();
    const std::uint32_t u = entry.value;
    if constexpr (kBuckets) {
      if (!heap.same_bucket(entry.key, labels.key(u))) continue;
    } else {
      if (entry.key != labels.key(u)) continue;
    }
    const double value = values[u];
    const PathLength du = dist[u];
    for (int d = 0; d < kDirections; ++d) {
      const auto v = static_cast<std::uint32_t>(static_cast<std::int64_t>(u) + offset[d]);
      // As in solve(): a neighbour at or below u's distance cannot improve through u (symmetric
      // weights: its edge is weighed from its own end, so an overflow is still reported).
      if (kLabelled ? dist[v] < du : dist[v] <= du) continue;
      if (interior[v]) relax(u, value, v, d);
    }
  }
  for (std::uint32_t y = 0; y < t; ++y) {
    const std::uint8_t* row = state + static_cast<std::size_t>(y + 2) * s + 2;
    std::uint8_t* out = changed + static_cast<std::size_t>(y) * t;
    for (std::uint32_t x = 0; x < t; ++x) out[x] = static_cast<std::uint8_t>(row[x] >> 1);
  }
  if (overflowed) *overflow = true;
  return changed_count;
}

template std::uint64_t solve_knight<false, Heap64>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                   const Labels<false>&, bool, std::uint8_t*, bool*, Heap64&);
template std::uint64_t solve_knight<false, Buckets64>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                      const Labels<false>&, bool, std::uint8_t*, bool*, Buckets64&);
template std::uint64_t solve_knight<true, Heap128>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                   const Labels<true>&, bool, std::uint8_t*, bool*, Heap128&);
template std::uint64_t solve_knight<true, Buckets128>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                      const Labels<true>&, bool, std::uint8_t*, bool*, Buckets128&);

}  // namespace block_sssp_cpu_detail
}  // namespace terrazo
