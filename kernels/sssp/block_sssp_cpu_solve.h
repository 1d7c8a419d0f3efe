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
#include "kernels/common/radix_heap.h"

// The direction loops unroll 8 (the 4- and 8-neighbour stencils whole; the knight's 16 directions
// unrolled whole took GCC 135 s on its file even with its weight a call, 8 s at 8), and solve()
// inlines what it calls (flatten). Not in sanitized builds: instrumented, the unrolled and
// flattened loops took GCC 55-160 s a file there, and the sanitized suite checks the logic, not the speed.
#if defined(__SANITIZE_ADDRESS__) || !defined(__GNUC__)
#define TERRAZO_UNROLL_DIRECTIONS
#define TERRAZO_SOLVE_FLATTEN
#else
#define TERRAZO_UNROLL_DIRECTIONS _Pragma("GCC unroll 8")
#define TERRAZO_SOLVE_FLATTEN __attribute__((flatten))
#endif

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

// The 4- and 8-neighbour stencil: a (t+2)^2 window (one-cell halo), direction k * kStep of
// tile_geometry.h, the model folded to a constant when kModel >= 0, step lengths by row when the
// steps have a per-row table.
template <int kModel, bool kEight>
struct NeighbourStencil {
  static constexpr std::uint32_t kHalo = 1;
  static constexpr int kDirections = kEight ? 8 : 4;
  static constexpr int kStep = kEight ? 1 : 2;
  const double* values;
  std::uint32_t t, s;
  WeightParams p;
  std::int64_t offset[kDirections];

  NeighbourStencil(const double* window, std::uint32_t tile, const WeightParams& params)
      : values(window), t(tile), s(tile + 2), p(params) {
    if constexpr (kModel >= 0) p.model = static_cast<WeightModel>(kModel);
    for (int k = 0; k < kDirections; ++k) {
      const int d = k * kStep;
      offset[k] = static_cast<std::int64_t>(kDirDy[d]) * s + kDirDx[d];
    }
  }
  // u's window row, for the step lengths (only a per-row table needs it).
  std::int64_t row_of(std::uint32_t u) const { return p.steps.rows ? u / s : 0; }
  // The weight of the step u -> v along stencil direction k.
  Weight weight(std::uint32_t, double value, std::uint32_t v, int k, std::int64_t urow, bool* overflowed) const {
    return step_weight(p, value, values[v], k * kStep, urow, overflowed);
  }
  // Calls seed(u) for every cell, or for the halo ring only: top row, bottom row, left, right column.
  template <class Seed>
  void for_each_seed(bool halo_only, Seed&& seed) const {
    const std::uint32_t ring = 4 * t + 4;
    const std::uint32_t scan = halo_only ? ring : s * s;
    for (std::uint32_t k = 0; k < scan; ++k) {
      std::uint32_t u = k;
      if (halo_only) {
        if (k < s) u = k;
        else if (k < 2 * s) u = (t + 1) * s + (k - s);
        else if (k < 2 * s + t) u = (k - 2 * s + 1) * s;
        else u = (k - 2 * s - t + 1) * s + t + 1;
      }
      seed(u);
    }
  }
};

// Knight's moves (--connectivity 16, kernels/sssp/knight.h): a (t+4)^2 window with a two-cell halo,
// the 8 neighbours and the 8 knight's moves (direction k of knight.h), the model read at run time
// (friction, geometric, unit) and uniform step lengths. A knight's move weighs the two cells it
// crosses, which are inside the window whenever both ends are (they lie in the ends' bounding box);
// the halo holds every halo cell's value (engine/sssp/halo_values.h).
struct KnightStencil {
  static constexpr std::uint32_t kHalo = 2;
  static constexpr int kDirections = 16;
  const double* values;
  std::uint32_t t, s;
  const WeightParams& p;
  std::int64_t offset[kDirections], cross_a[kDirections] = {}, cross_b[kDirections] = {};
  double length[kDirections] = {};

  KnightStencil(const double* window, std::uint32_t tile, const WeightParams& params)
      : values(window), t(tile), s(tile + 4), p(params) {
    for (int d = 0; d < kDirections; ++d) {
      offset[d] = static_cast<std::int64_t>(kStepDy[d]) * s + kStepDx[d];
      if (!is_knight(d)) continue;
      int ax, ay, bx, by;
      knight_crossed(d, &ax, &ay, &bx, &by);
      cross_a[d] = static_cast<std::int64_t>(ay) * s + ax;
      cross_b[d] = static_cast<std::int64_t>(by) * s + bx;
      length[d] = knight_length(p.steps, d);
    }
  }
  std::int64_t row_of(std::uint32_t) const { return 0; }
  // A call, not inlined (noinline holds under solve()'s flatten): the model is read at run time,
  // and its switch inlined into every unrolled direction of solve's two loops cost GCC 46 s on this
  // stencil's file (470 s with the loops unrolled 16 times); as a call, 8 s and no slower to run.
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  Weight weight(std::uint32_t u, double value, std::uint32_t v, int d, std::int64_t, bool* overflowed) const {
    if (d < 8) return step_weight(p, value, values[v], d, 0, overflowed);
    return knight_weight(p, value, values[u + cross_a[d]], values[u + cross_b[d]], values[v], length[d], overflowed);
  }
  // Calls seed(u) for every cell, or for the two-cell halo only, row by row.
  template <class Seed>
  void for_each_seed(bool halo_only, Seed&& seed) const {
    if (!halo_only) {
      for (std::uint32_t u = 0; u < s * s; ++u) seed(u);
      return;
    }
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
  }
};

// solve()'s seeding: every finite cell, or only the halo when the interior is known to be
// consistent. Halo seeds relax their interior neighbours now (relax(u, value, v, k, urow), solve's
// step); an interior seed is queued when it improves at least one neighbour. (The caller has
// emptied the queue.)
template <class Stencil, bool kLabelled, class Queue, class Relax>
void seed_window(const Stencil& stencil, PathLength max_cost, const Labels<kLabelled>& labels,
                 bool interior_consistent, const std::uint8_t* interior, Queue& heap, bool* overflowed,
                 Relax& relax) {
  using Key = typename Labels<kLabelled>::Key;
  constexpr int kDirections = Stencil::kDirections;
  const std::uint64_t cells = static_cast<std::uint64_t>(stencil.s) * stencil.s;
  const double* values = stencil.values;
  const PathLength* dist = labels.dist;
  stencil.for_each_seed(interior_consistent, [&](std::uint32_t u) {
    if (dist[u] == kUnreached || dist[u] > max_cost) return;
    const double value = values[u];
    if (value != value) return;
    const bool halo = !interior[u];
    const std::int64_t urow = stencil.row_of(u);
TERRAZO_UNROLL_DIRECTIONS
    for (int k = 0; k < kDirections; ++k) {
      const std::int64_t v64 = static_cast<std::int64_t>(u) + stencil.offset[k];
      // A halo cell's step that wraps around a row lands in the opposite halo columns.
      if (v64 < 0 || v64 >= static_cast<std::int64_t>(cells)) continue;
      const auto v = static_cast<std::uint32_t>(v64);
      if (!interior[v]) continue;
      if (halo) {
        relax(u, value, v, k, urow);
        continue;
      }
      const Weight w = stencil.weight(u, value, v, k, urow, overflowed);
      if (w == kNoEdge) continue;
      Key candidate;
      if (labels.extend(u, w, max_cost, &candidate) && candidate < labels.key(v)) {
        heap.push(labels.key(u), u);
        return;
      }
    }
  });
}

// changed[y * t + x] = 1 where the window's state (stride s, halo h) is 2: improved by the solve.
inline void copy_changed_flags(const std::uint8_t* state, std::uint32_t t, std::uint32_t s, std::uint32_t h,
                               std::uint8_t* changed) {
  for (std::uint32_t y = 0; y < t; ++y) {
    const std::uint8_t* row = state + static_cast<std::size_t>(y + h) * s + h;
    std::uint8_t* out = changed + static_cast<std::size_t>(y) * t;
    for (std::uint32_t x = 0; x < t; ++x) out[x] = static_cast<std::uint8_t>(row[x] >> 1);
  }
}

// Dijkstra on the tile's window, specialised for one stencil (weight model and connectivity) so
// that the model's switch and the step length fold into constants and the neighbour loop unrolls.
// Halo seeds are relaxed while seeding instead of being queued (their labels never change), so
// every popped cell is interior and its neighbours lie inside the window without bounds checks.
// Relaxing a seed before its turn is exact: labels only decrease and every decrease is queued,
// so the queue ends at the same unique fixpoint, the minimum labels of the contract.
// flatten: the stencil's weight, the queue's push and the seeding inline into the loops (GCC
// otherwise keeps them calls).
template <class Stencil, bool kLabelled, class Queue>
TERRAZO_SOLVE_FLATTEN
std::uint64_t solve(const Stencil& stencil, PathLength max_cost, const Labels<kLabelled>& labels,
                    bool interior_consistent, std::uint8_t* changed, bool* overflow, Queue& heap) {
  using Key = typename Labels<kLabelled>::Key;
  constexpr bool kBuckets = IsBucketQueue<Queue>::value;
  constexpr int kDirections = Stencil::kDirections;
  constexpr std::uint32_t kHalo = Stencil::kHalo;
  const std::uint32_t t = stencil.t, s = stencil.s;
  const std::uint64_t cells = static_cast<std::uint64_t>(s) * s;
  const double* values = stencil.values;
  PathLength* dist = labels.dist;
  // Cell state in the window's layout: 0 halo, 1 interior, 2 interior and improved by this solve
  // (copied into `changed` at the end), so marking a change needs no division by the row length.
  thread_local std::vector<std::uint8_t> state_buffer;
  state_buffer.resize(cells);
  std::uint8_t* state = state_buffer.data();
  std::memcpy(state, interior_mask(t, kHalo), cells);
  const std::uint8_t* interior = state;
  std::uint64_t changed_count = 0;
  bool overflowed = false;
  // Relaxes the step u -> v (v interior) along stencil direction k from u's window row; true when
  // it improved v.
  auto relax = [&](std::uint32_t u, double value, std::uint32_t v, int k, std::int64_t urow) {
    const Weight w = stencil.weight(u, value, v, k, urow, &overflowed);
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

  seed_window(stencil, max_cost, labels, interior_consistent, interior, heap, &overflowed, relax);

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
    const std::int64_t urow = stencil.row_of(u);
TERRAZO_UNROLL_DIRECTIONS
    for (int k = 0; k < kDirections; ++k) {
      const auto v = static_cast<std::uint32_t>(static_cast<std::int64_t>(u) + stencil.offset[k]);
      // A neighbour already at u's distance or below cannot improve through u (weights are >= 0;
      // with labels an equal distance may still improve on the source or hop count): skip the
      // weight. Its edge was or will be weighed from its other end (weights are symmetric), so
      // an overflowing weight is still reported. (Directed models: the edge u -> v cannot be on a
      // shortest path then, so skipping it leaves the labels exact; their scale is chosen from
      // every in-tile edge's weight up front, engine/tile_inputs/walk_input.h.)
      if (kLabelled ? dist[v] < du : dist[v] <= du) continue;
      if (interior[v]) relax(u, value, v, k, urow);
    }
  }
  copy_changed_flags(state, t, s, kHalo, changed);
  if (overflowed) *overflow = true;
  return changed_count;
}

// The model's solve for the run's connectivity (4 or 8 neighbours). kModel < 0: the model read at
// run time (any model weight_of_step knows).
template <int kModel, bool kLabelled, class Queue>
std::uint64_t solve_model(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                          PathLength max_cost, const Labels<kLabelled>& labels, bool interior_consistent,
                          std::uint8_t* changed, bool* overflow, Queue& heap) {
  if (connectivity == Connectivity::Eight)
    return solve(NeighbourStencil<kModel, true>(values, t, params), max_cost, labels, interior_consistent, changed,
                 overflow, heap);
  return solve(NeighbourStencil<kModel, false>(values, t, params), max_cost, labels, interior_consistent, changed,
               overflow, heap);
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

// Knight's moves (--connectivity 16): solve() on the KnightStencil, instantiated in
// block_sssp_cpu_knight.cpp.
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
