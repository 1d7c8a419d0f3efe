// kernels/sssp/block_sssp_cpu_solve.h: the Dijkstra template behind kernels/sssp/block_sssp_cpu.cpp.
//
// One instantiation per weight model, connectivity, label kind and queue (the model's switch and the
// step length fold into constants). They are compiled in one translation unit per model
// (block_sssp_cpu_model_*.cpp), so a build spreads them over its cores; block_sssp_cpu.cpp picks one
// at run time. Only kernels/sssp/block_sssp_cpu*.cpp include this header.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/bucket_queue.h"
#include "kernels/sssp/knight.h"
#include "kernels/sssp/radix_heap.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

using Key128 = unsigned __int128;

template <bool kLabelled>
struct Labels;

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

// Interior mask of a (t+2h)^2 window (block_sssp_cpu.cpp): 1 on interior cells, 0 on the halo of
// width h (1; 2 for knight's moves, block_sssp_cpu_knight.cpp).
const std::uint8_t* interior_mask(std::uint32_t t, std::uint32_t h = 1);

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
      // every in-tile edge's weight up front, engine/tile_inputs/walk_input.h.)
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

// The model's solve for the run's connectivity.
template <int kModel, bool kLabelled, class Queue>
std::uint64_t solve_model(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                          PathLength max_cost, const Labels<kLabelled>& labels, bool interior_consistent,
                          std::uint8_t* changed, bool* overflow, Queue& heap) {
  if (connectivity == Connectivity::Eight)
    return solve<kModel, true, kLabelled>(values, t, params, max_cost, labels, interior_consistent, changed, overflow,
                                          heap);
  return solve<kModel, false, kLabelled>(values, t, params, max_cost, labels, interior_consistent, changed, overflow,
                                         heap);
}

using Heap64 = RadixHeap<std::uint64_t>;
using Heap128 = RadixHeap<Key128>;
using Buckets64 = BucketQueue<std::uint64_t, Labels<false>>;
using Buckets128 = BucketQueue<Key128, Labels<true>>;

// The model read at run time (geometric, unit, walk, tobler: any model weight_of_step knows).
constexpr int kRuntimeModel = -1;

// The four label-kind x queue instantiations of one model: declared `extern` here, defined (EXTERN
// empty) in the model's translation unit.
#define TERRAZO_BLOCK_SSSP_CPU_MODEL_ONE(EXTERN, MODEL, LABELLED, QUEUE)                                              \
  EXTERN template std::uint64_t solve_model<MODEL, LABELLED, QUEUE>(                                                  \
      const double*, std::uint32_t, const WeightParams&, Connectivity, PathLength, const Labels<LABELLED>&, bool,     \
      std::uint8_t*, bool*, QUEUE&);
#define TERRAZO_BLOCK_SSSP_CPU_MODEL(EXTERN, MODEL)                \
  TERRAZO_BLOCK_SSSP_CPU_MODEL_ONE(EXTERN, MODEL, false, Heap64)     \
  TERRAZO_BLOCK_SSSP_CPU_MODEL_ONE(EXTERN, MODEL, false, Buckets64)  \
  TERRAZO_BLOCK_SSSP_CPU_MODEL_ONE(EXTERN, MODEL, true, Heap128)     \
  TERRAZO_BLOCK_SSSP_CPU_MODEL_ONE(EXTERN, MODEL, true, Buckets128)

TERRAZO_BLOCK_SSSP_CPU_MODEL(extern, static_cast<int>(WeightModel::Max))
TERRAZO_BLOCK_SSSP_CPU_MODEL(extern, static_cast<int>(WeightModel::AbsDiff))
TERRAZO_BLOCK_SSSP_CPU_MODEL(extern, static_cast<int>(WeightModel::Friction))
TERRAZO_BLOCK_SSSP_CPU_MODEL(extern, kRuntimeModel)

// Knight's moves (--connectivity 16, kernels/sssp/knight.h): a (t+4)^2 window with a two-cell halo,
// 16 directions, the model read at run time (friction, geometric, unit). block_sssp_cpu_knight.cpp;
// kept apart from solve() so the 4- and 8-neighbour solves stay as they are.
template <bool kLabelled, class Queue>
std::uint64_t solve_knight(const double* values, std::uint32_t t, const WeightParams& params, PathLength max_cost,
                           const Labels<kLabelled>& labels, bool interior_consistent, std::uint8_t* changed,
                           bool* overflow, Queue& heap);
extern template std::uint64_t solve_knight<false, Heap64>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                          const Labels<false>&, bool, std::uint8_t*, bool*, Heap64&);
extern template std::uint64_t solve_knight<false, Buckets64>(const double*, std::uint32_t, const WeightParams&,
                                                             PathLength, const Labels<false>&, bool, std::uint8_t*,
                                                             bool*, Buckets64&);
extern template std::uint64_t solve_knight<true, Heap128>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                          const Labels<true>&, bool, std::uint8_t*, bool*, Heap128&);
extern template std::uint64_t solve_knight<true, Buckets128>(const double*, std::uint32_t, const WeightParams&,
                                                             PathLength, const Labels<true>&, bool, std::uint8_t*,
                                                             bool*, Buckets128&);

}  // namespace block_sssp_cpu_detail
}  // namespace terrazo
