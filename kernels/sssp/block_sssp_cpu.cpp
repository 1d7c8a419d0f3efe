// kernels/sssp/block_sssp_cpu.cpp: the CPU block solver of kernels/sssp/block_sssp.h.
//
// Dijkstra from many seeds on one tile with its one-cell halo. Keys: 64-bit distances; with labels,
// 128-bit (dist << 64 | source << 32 | hops), which is the lexicographic label order of the contract.
// Queue: when every weight of the tile is known to lie in [delta, w_max] with delta >= 1 and
// w_max / delta small (friction and max on values bounded away from 0), buckets of width delta
// (kernels/sssp/bucket_queue.h, O(1) per operation); otherwise a radix heap (kernels/sssp/radix_heap.h).
// The bounds come from the smallest and largest value in the window: both models' weights are
// monotone in the values and in the step length, so weight(vmin, vmin, shortest step) <= w <=
// weight(vmax, vmax, longest step). Either queue gives the same labels (the result is unique).
//
// Only seeds that can improve a neighbour are queued: a finite cell s whose every valid interior
// neighbour v already has label(v) <= extend(label(s), w(s, v)) contributes nothing, because labels
// only decrease, so skipping it leaves the result unchanged. On a re-solve after a few halo cells
// improved this turns an O(t^2 log) solve into an O(t^2) scan plus work on the improved region.
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/bucket_queue.h"
#include "kernels/sssp/radix_heap.h"

namespace terrazo {
namespace {

using Key128 = unsigned __int128;

template <bool kLabelled>
struct Labels;

struct Workspace {
  std::vector<std::uint32_t> scratch_source;  // stands in for an absent label array (all zeros in)
  std::vector<std::uint32_t> scratch_hops;
  RadixHeap<std::uint64_t> heap64;
  RadixHeap<Key128> heap128;
  BucketQueue<std::uint64_t, Labels<false>> buckets64;
  BucketQueue<Key128, Labels<true>> buckets128;
};

Workspace& workspace() {
  thread_local Workspace w;
  return w;
}

// Label access: with kLabelled false only dist exists and the key is the distance.

template <>
struct Labels<false> {
  using Key = std::uint64_t;
  PathLength* dist;
  Key key(std::uint32_t i) const { return dist[i]; }
  // Candidate key at v through u with weight w; false when it exceeds max_cost or wraps.
  bool extend(std::uint32_t u, Weight w, PathLength max_cost, Key* out) const {
    const PathLength d = dist[u] + w;
    if (d < dist[u] || d > max_cost) return false;
    *out = d;
    return true;
  }
  void store(std::uint32_t v, Key key) const { dist[v] = key; }
  static PathLength dist_of(Key key) { return key; }
};

template <>
struct Labels<true> {
  using Key = Key128;
  PathLength* dist;
  std::uint32_t* source;
  std::uint32_t* hops;
  Key key(std::uint32_t i) const {
    return (static_cast<Key>(dist[i]) << 64) | (static_cast<Key>(source[i]) << 32) | hops[i];
  }
  bool extend(std::uint32_t u, Weight w, PathLength max_cost, Key* out) const {
    const PathLength d = dist[u] + w;
    if (d < dist[u] || d > max_cost) return false;
    *out = (static_cast<Key>(d) << 64) | (static_cast<Key>(source[u]) << 32) | (hops[u] + 1u);
    return true;
  }
  void store(std::uint32_t v, Key key) const {
    dist[v] = static_cast<PathLength>(key >> 64);
    source[v] = static_cast<std::uint32_t>(key >> 32);
    hops[v] = static_cast<std::uint32_t>(key);
  }
  static PathLength dist_of(Key key) { return static_cast<PathLength>(key >> 64); }
};

template <class Queue>
struct IsBucketQueue : std::false_type {};
template <class Key, class DistOf>
struct IsBucketQueue<BucketQueue<Key, DistOf>> : std::true_type {};

// Interior mask of a (t+2)^2 window: 1 on interior cells, 0 on the halo ring. Built once per tile
// side and thread (it depends on t alone); a solve copies it as its cell states.
const std::uint8_t* interior_mask(std::uint32_t t) {
  thread_local std::vector<std::uint8_t> mask;
  thread_local std::uint32_t mask_t = 0;
  if (mask_t != t) {
    const std::uint32_t s = t + 2;
    mask.assign(static_cast<std::size_t>(s) * s, 0);
    for (std::uint32_t y = 1; y <= t; ++y) std::memset(&mask[static_cast<std::size_t>(y) * s + 1], 1, t);
    mask_t = t;
  }
  return mask.data();
}

// Dijkstra on the tile, specialised for one weight model and connectivity so that the model's
// switch and the step length fold into constants and the neighbour loop unrolls.
// Halo seeds are relaxed while seeding instead of being queued (their labels never change), so
// every popped cell is interior and its neighbours lie inside the window without bounds checks.
// Relaxing a seed before its turn is exact: labels only decrease and every decrease is queued,
// so the queue ends at the same unique fixpoint, the minimum labels of the contract.
// kModel < 0: the model read at run time (any model weight_of_step knows).
// flatten: step_weight and the queue's push inline into the loops (GCC otherwise keeps them calls).
template <int kModel, bool kEight, bool kLabelled, class Queue>
#if defined(__GNUC__)
__attribute__((flatten))
#endif
std::uint64_t solve(const double* values, std::uint32_t t, const WeightParams& params, PathLength max_cost,
                    const Labels<kLabelled>& labels, bool interior_consistent, std::uint8_t* changed, bool* overflow,
                    Queue& heap) {
  using Key = typename Labels<kLabelled>::Key;
  constexpr bool kBuckets = IsBucketQueue<Queue>::value;
  constexpr int kDirections = kEight ? 8 : 4;
  constexpr int kStep = kEight ? 1 : 2;
  const std::uint32_t s = t + 2;
  const std::uint64_t cells = static_cast<std::uint64_t>(s) * s;
  PathLength* dist = labels.dist;
  WeightParams p = params;
  if constexpr (kModel >= 0) p.model = static_cast<WeightModel>(kModel);
  // Cell state in the window's layout: 0 halo, 1 interior, 2 interior and improved by this solve
  // (copied into `changed` at the end), so marking a change needs no division by the row length.
  thread_local std::vector<std::uint8_t> state_buffer;
  state_buffer.resize(cells);
  std::uint8_t* state = state_buffer.data();
  std::memcpy(state, interior_mask(t), cells);
  const std::uint8_t* interior = state;

  std::int64_t offset[8];
  for (int k = 0; k < kDirections; ++k) {
    const int d = k * kStep;
    offset[k] = static_cast<std::int64_t>(kDirDy[d]) * s + kDirDx[d];
  }
  std::uint64_t changed_count = 0;
  bool overflowed = false;
  // Relaxes the edge u -> v (v interior); true when it improved v.
  // Relaxes the step u -> v in direction d from u's window row (step lengths: p.steps).
  auto relax = [&](std::uint32_t u, double value, std::uint32_t v, int d, std::int64_t urow) {
    const Weight w = step_weight(p, value, values[v], d, urow, &overflowed);
    if (w == kNoEdge) return false;
    Key candidate;
    const Key before = labels.key(v);
    if (!labels.extend(u, w, max_cost, &candidate) || !(candidate < before)) return false;
    labels.store(v, candidate);
    const std::uint8_t was = state[v];
    changed_count += was == 1 ? 1 : 0;
    state[v] = 2;
    // Buckets: a cell improved earlier in this solve (state 2) and not settled yet has an entry in
    // the bucket of its current label; when the new label falls in the same bucket, that entry
    // serves it (pops check buckets, not keys), so no second entry is queued.
    if constexpr (kBuckets) {
      if (was == 2 && heap.same_bucket(before, candidate)) return true;
    }
    heap.push(candidate, v);
    return true;
  };

  // Seeds: every finite cell, or only the halo ring when the interior is known to be consistent.
  // Halo seeds relax their interior neighbours now; an interior seed is queued when it improves
  // at least one neighbour. (The caller has emptied the queue.)
  const std::uint32_t ring = 4 * t + 4;
  const std::uint32_t scan = interior_consistent ? ring : static_cast<std::uint32_t>(cells);
  for (std::uint32_t k = 0; k < scan; ++k) {
    std::uint32_t u = k;
    if (interior_consistent) {  // ring position -> index: top row, bottom row, left, right column
      if (k < s) u = k;
      else if (k < 2 * s) u = (t + 1) * s + (k - s);
      else if (k < 2 * s + t) u = (k - 2 * s + 1) * s;
      else u = (k - 2 * s - t + 1) * s + t + 1;
    }
    if (dist[u] == kUnreached || dist[u] > max_cost) continue;
    const double value = values[u];
    if (value != value) continue;
    const bool halo = !interior[u];
    const std::int64_t urow = p.steps.rows ? u / s : 0;  // only a per-row table needs the row
#pragma GCC unroll 8
    for (int k2 = 0; k2 < kDirections; ++k2) {
      const int d = k2 * kStep;
      const std::int64_t v64 = static_cast<std::int64_t>(u) + offset[k2];
      if (v64 < 0 || v64 >= static_cast<std::int64_t>(cells)) continue;
      const auto v = static_cast<std::uint32_t>(v64);
      if (!interior[v]) continue;
      if (halo) {
        relax(u, value, v, d, urow);
        continue;
      }
      const Weight w = step_weight(p, value, values[v], d, urow, &overflowed);
      if (w == kNoEdge) continue;
      Key candidate;
      if (labels.extend(u, w, max_cost, &candidate) && candidate < labels.key(v)) {
        heap.push(labels.key(u), u);
        break;
      }
    }
  }

  while (!heap.empty()) {
    const auto entry = heap.pop();
    const std::uint32_t u = entry.value;
    // Stale: the cell improved after this entry was queued (with buckets: into a lower bucket; an
    // improvement within the bucket reuses the entry, and the cell is settled with its current label).
    if constexpr (kBuckets) {
      if (!heap.same_bucket(entry.key, labels.key(u))) continue;
    } else {
      if (entry.key != labels.key(u)) continue;
    }
    const double value = values[u];
    const PathLength du = dist[u];
    const std::int64_t urow = p.steps.rows ? u / s : 0;
#pragma GCC unroll 8
    for (int k = 0; k < kDirections; ++k) {
      const auto v = static_cast<std::uint32_t>(static_cast<std::int64_t>(u) + offset[k]);
      // A neighbour already at u's distance or below cannot improve through u (weights are >= 0;
      // with labels an equal distance may still improve on the source or hop count): skip the
      // weight. Its edge was or will be weighed from its other end (weights are symmetric), so
      // an overflowing weight is still reported. (Directed models: the edge u -> v cannot be on a
      // shortest path then, so skipping it leaves the labels exact; their scale is chosen from
      // every in-tile edge's weight up front, api/walk_input.h.)
      if (kLabelled ? dist[v] < du : dist[v] <= du) continue;
      if (interior[v]) relax(u, value, v, k * kStep, urow);
    }
  }
  for (std::uint32_t y = 0; y < t; ++y) {
    const std::uint8_t* row = state + static_cast<std::size_t>(y + 1) * s + 1;
    std::uint8_t* out = changed + static_cast<std::size_t>(y) * t;
    for (std::uint32_t x = 0; x < t; ++x) out[x] = static_cast<std::uint8_t>(row[x] >> 1);
  }
  if (overflowed) *overflow = true;
  return changed_count;
}

// The specialisation for the run's model and connectivity.
template <bool kLabelled, class Queue>
std::uint64_t solve_any(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                        PathLength max_cost, const Labels<kLabelled>& labels, bool interior_consistent,
                        std::uint8_t* changed, bool* overflow, Queue& heap) {
  const bool eight = connectivity == Connectivity::Eight;
#define TERRAZO_SOLVE(model) \
  (eight ? solve<model, true, kLabelled>(values, t, params, max_cost, labels, interior_consistent, changed, overflow, heap) \
         : solve<model, false, kLabelled>(values, t, params, max_cost, labels, interior_consistent, changed, overflow, heap))
  switch (params.model) {
    case WeightModel::Max: return TERRAZO_SOLVE(static_cast<int>(WeightModel::Max));
    case WeightModel::AbsDiff: return TERRAZO_SOLVE(static_cast<int>(WeightModel::AbsDiff));
    case WeightModel::Friction: return TERRAZO_SOLVE(static_cast<int>(WeightModel::Friction));
    default: return TERRAZO_SOLVE(-1);  // geometric, unit
  }
#undef TERRAZO_SOLVE
}

// Bucket width and count for the tile, or false when the radix heap must be used.
bool bucket_shape(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                  std::uint64_t* delta, std::uint64_t* buckets) {
  if (params.model == WeightModel::AbsDiff) return false;  // equal neighbours weigh 0
  if (is_directed(params.model)) return false;  // packed cells: no bound from the values' range
  const std::size_t cells = static_cast<std::size_t>(t + 2) * (t + 2);
  double lo = 0, hi = 0;
  bool any = false;
  for (std::size_t i = 0; i < cells; ++i) {
    const double v = values[i];
    if (v != v) continue;
    if (!any) {
      lo = hi = v;
      any = true;
    } else {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
  if (!any) return false;
  bool overflow = false;
  const StepLengths& steps = params.steps;
  const double longest = connectivity == Connectivity::Eight ? steps.max_length
                                                             : (steps.rows ? steps.max_length : (steps.ew > steps.ns ? steps.ew : steps.ns));
  const Weight w_min = weight_of_step(params, lo, lo, steps.min_length, &overflow);
  const Weight w_max = weight_of_step(params, hi, hi, longest, &overflow);
  if (overflow || w_min == 0 || w_min == kNoEdge || w_max == kNoEdge) return false;
  // The width: w_min rounded down to a power of two (bucket_queue.h takes shifts, not divisions).
  std::uint64_t width = 1;
  while (width * 2 <= w_min) width *= 2;
  const std::uint64_t n = w_max / width + 2;
  if (n > 8192) return false;
  *delta = width;
  *buckets = n;
  return true;
}

}  // namespace

std::uint64_t block_sssp_cpu(const double* values, std::uint32_t t, const WeightParams& params,
                             Connectivity connectivity, PathLength max_cost, PathLength* dist,
                             std::uint8_t* changed, bool* overflow) {
  return block_sssp_cpu_labelled(values, t, params, connectivity, max_cost, dist, SsspLabels{}, changed, overflow);
}

std::uint64_t block_sssp_cpu_labelled(const double* values, std::uint32_t t, const WeightParams& params,
                                      Connectivity connectivity, PathLength max_cost, PathLength* dist,
                                      const SsspLabels& labels, std::uint8_t* changed, bool* overflow) {
  Workspace& w = workspace();
  std::uint64_t delta = 0, buckets = 0;
  const bool use_buckets = bucket_shape(values, t, params, connectivity, &delta, &buckets);
  if (labels.source == nullptr && labels.hops == nullptr) {  // distances only
    const Labels<false> plain{dist};
    if (use_buckets) {
      w.buckets64.reset(delta, buckets);
      return solve_any<false>(values, t, params, connectivity, max_cost, plain, labels.interior_consistent, changed,
                          overflow, w.buckets64);
    }
    w.heap64.clear();
    return solve_any<false>(values, t, params, connectivity, max_cost, plain, labels.interior_consistent, changed,
                        overflow, w.heap64);
  }
  const std::size_t cells = static_cast<std::size_t>(t + 2) * (t + 2);
  std::uint32_t* source = labels.source;
  std::uint32_t* hops = labels.hops;
  // An absent array starts as zeros and its results are dropped. This leaves the other components
  // exact: zero hops on every finite cell cannot be undercut, and the minimum of (d, s, h) has the
  // (d, s) of the minimum of (d, s); zero sources are copied along unchanged.
  if (source == nullptr) {
    w.scratch_source.assign(cells, 0);
    source = w.scratch_source.data();
  }
  if (hops == nullptr) {
    w.scratch_hops.assign(cells, 0);
    hops = w.scratch_hops.data();
  }
  const Labels<true> triple{dist, source, hops};
  if (use_buckets) {
    w.buckets128.reset(delta, buckets);
    return solve_any<true>(values, t, params, connectivity, max_cost, triple, labels.interior_consistent, changed,
                       overflow, w.buckets128);
  }
  w.heap128.clear();
  return solve_any<true>(values, t, params, connectivity, max_cost, triple, labels.interior_consistent, changed, overflow,
                     w.heap128);
}

}  // namespace terrazo
