// kernels/sssp/block_sssp_cpu.cpp: the CPU block solver of kernels/sssp/block_sssp.h.
//
// Dijkstra from many seeds on one tile with its one-cell halo. Keys: 64-bit distances; with labels,
// 128-bit (dist << 64 | source << 32 | hops), which is the lexicographic label order of the contract.
// Queue: when every weight of the tile is known to lie in [delta, w_max] with delta >= 1 and
// w_max / delta small (friction and max on values bounded away from 0; walk and tobler with a
// positive flat cost), buckets of width delta (kernels/sssp/bucket_queue.h, O(1) per operation);
// otherwise a radix heap (kernels/common/radix_heap.h). The bounds come from the smallest and largest
// value in the window: friction's and max's weights are monotone in the values and in the step
// length, so weight(vmin, vmin, shortest step) <= w <= weight(vmax, vmax, longest step); walk's and
// tobler's from the ranges of the elevations and frictions packed in the cells
// (directed_bucket_shape). Either queue gives the same labels (the result is unique).
//
// Only seeds that can improve a neighbour are queued: a finite cell s whose every valid interior
// neighbour v already has label(v) <= extend(label(s), w(s, v)) contributes nothing, because labels
// only decrease, so skipping it leaves the result unchanged. On a re-solve after a few halo cells
// improved this turns an O(t^2 log) solve into an O(t^2) scan plus work on the improved region.
//
// The solve itself is the template of kernels/sssp/block_sssp_cpu_solve.h, compiled per model in
// block_sssp_cpu_model_*.cpp; this file holds the per-thread workspace, the queue's choice and the
// dispatch to the run's model.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/common/walk_tile.h"
#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

// Interior mask of a (t+2h)^2 window: 1 on interior cells, 0 on the halo (h = 1, or 2 with knight's
// moves). Built once per tile side, halo and thread (it depends on them alone); a solve copies it as
// its cell states.
const std::uint8_t* interior_mask(std::uint32_t t, std::uint32_t h) {
  thread_local std::vector<std::uint8_t> mask;
  thread_local std::uint32_t mask_t = 0, mask_h = 0;
  if (mask_t != t || mask_h != h) {
    const std::uint32_t s = t + 2 * h;
    mask.assign(static_cast<std::size_t>(s) * s, 0);
    for (std::uint32_t y = h; y < t + h; ++y) std::memset(&mask[static_cast<std::size_t>(y) * s + h], 1, t);
    mask_t = t;
    mask_h = h;
  }
  return mask.data();
}

}  // namespace block_sssp_cpu_detail

namespace {

using namespace block_sssp_cpu_detail;

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

// The specialisation for the run's model.
template <bool kLabelled, class Queue>
std::uint64_t solve_any(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                        PathLength max_cost, const Labels<kLabelled>& labels, bool interior_consistent,
                        std::uint8_t* changed, bool* overflow, Queue& heap) {
  if (connectivity == Connectivity::Sixteen)  // knight's moves: block_sssp_cpu_knight.cpp
    return solve_knight<kLabelled>(values, t, params, max_cost, labels, interior_consistent, changed, overflow, heap);
#define TERRAZO_SOLVE(model) \
  solve_model<model, kLabelled>(values, t, params, connectivity, max_cost, labels, interior_consistent, changed, overflow, heap)
  switch (params.model) {
    case WeightModel::Max: return TERRAZO_SOLVE(static_cast<int>(WeightModel::Max));
    case WeightModel::AbsDiff: return TERRAZO_SOLVE(static_cast<int>(WeightModel::AbsDiff));
    case WeightModel::Friction: return TERRAZO_SOLVE(static_cast<int>(WeightModel::Friction));
    default: return TERRAZO_SOLVE(kRuntimeModel);
  }
#undef TERRAZO_SOLVE
}

// The bucket width for weights known to lie in [lo, hi] (scaled, before rounding): lo rounded down
// to a power of two, and the ring's size; false when lo < 1 or the ring would exceed 8192 buckets.
bool bucket_shape_of(double lo, double hi, std::uint64_t* delta, std::uint64_t* buckets) {
  if (!(lo >= 1) || !(hi < static_cast<double>(kMaxWeight) + 0.5)) return false;
  std::uint64_t width = 1;
  while (static_cast<double>(width * 2) <= lo) width *= 2;
  const double n = hi / static_cast<double>(width) + 2;
  if (!(n <= 8192)) return false;
  *delta = width;
  *buckets = static_cast<std::uint64_t>(n);
  return true;
}

// The smallest and largest of the values added.
struct MinMax {
  double lo = 0, hi = 0;
  bool any = false;  // a value was added
  void add(double v) {
    lo = !any || v < lo ? v : lo;
    hi = !any || v > hi ? v : hi;
    any = true;
  }
};

// The directed models (walk, tobler): a cell packs elevation h and friction f (pack_walk_cell), so
// the bounds come from the window's frictions f in [f_min, f_max], its largest rise between
// neighbours R = max |h(u) - h(v)| (over the 8 directions), and the step lengths L in [L_min, L_max]
// (edge_weight.h's walk_step_cost):
//   walk  : L (m + lambda f_min) <= w <= R max(b, |c|, |d|) + L_max (a + lambda f_max), m = min(a, a + c sf)
//           (uphill a L + b dh >= a L; moderate downhill, sf <= dh / L < 0: L (a + c dh / L) >= L m;
//           steep downhill, dh / L < sf: a L + d dh >= a L, as d <= 0; engine/cost_models/walk_weights.h refuses
//           coefficients that make m negative)
//   tobler: 0.6 L + lambda f_min L <= w <= 0.6 L_max exp(3.5 (R / L_min + 0.05)) + lambda f_max L_max
// times the scale. The lower bound is lowered by a margin far above the rounding of the weights'
// few floating-point operations (a weight >= the bound less the margin rounds to at least the
// bucket width taken below it), so every weight of the tile is >= the width, as the queue needs.
// The scan costs a few operations per cell, against a solve's 8 weights per cell.
bool directed_bucket_shape(const double* values, std::uint32_t side, const WeightParams& params, std::uint64_t* delta,
                           std::uint64_t* buckets) {
  double rise = 0;
  MinMax friction;
  const bool finite_rises = scan_walk_tile_pairs(
      values, side, [&](std::uint32_t, std::uint32_t, double, double f) { friction.add(f); },
      [&](std::uint32_t, std::uint32_t, int, double h, double, double hn, double) {
        const double r = std::fabs(hn - h);
        rise = r > rise ? r : rise;  // NaN (an infinite elevation) leaves rise: caught below
        return r == r;
      });
  if (!finite_rises) return false;
  const double f_lo = friction.lo, f_hi = friction.hi;
  if (!friction.any || !std::isfinite(rise) || !(f_lo >= 0) || !std::isfinite(f_hi)) return false;
  const WalkParams& w = params.walk;
  const double l_min = params.steps.min_length, l_max = params.steps.max_length;
  double lo, hi;
  if (params.model == WeightModel::Tobler) {
    lo = l_min * (0.6 + w.lambda * f_lo);
    hi = 0.6 * l_max * std::exp(3.5 * (rise / l_min + 0.05)) + w.lambda * f_hi * l_max;
  } else {
    const double m = std::min(w.a, w.a + w.c * w.slope_factor);
    lo = l_min * (m + w.lambda * f_lo);
    hi = rise * std::max({w.b, std::fabs(w.c), std::fabs(w.d)}) + l_max * (w.a + w.lambda * f_hi);
  }
  lo *= params.scale;
  hi *= params.scale;
  return bucket_shape_of(lo * (1 - 1e-9) - hi * 1e-12, hi * (1 + 1e-9) + 1, delta, buckets);
}

// Bucket width and count for the tile, or false when the radix heap must be used.
bool bucket_shape(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                  std::uint64_t* delta, std::uint64_t* buckets) {
  if (params.model == WeightModel::AbsDiff) return false;  // equal neighbours weigh 0
  if (is_directed(params.model)) {
    return directed_bucket_shape(values, t + 2 * halo_width(connectivity), params, delta, buckets);
  }
  const std::size_t cells = static_cast<std::size_t>(t + 2 * halo_width(connectivity)) * (t + 2 * halo_width(connectivity));
  MinMax range;
  for (std::size_t i = 0; i < cells; ++i)
    if (values[i] == values[i]) range.add(values[i]);  // NaN: nodata
  if (!range.any) return false;
  const double lo = range.lo, hi = range.hi;
  bool overflow = false;
  const StepLengths& steps = params.steps;
  double longest = connectivity == Connectivity::Eight ? steps.max_length
                                                       : (steps.rows ? steps.max_length : (steps.ew > steps.ns ? steps.ew : steps.ns));
  if (connectivity == Connectivity::Sixteen) {  // the longer knight's move; its mean value is within [lo, hi] too
    const double a = knight_length(steps, 8), b = knight_length(steps, 9);
    longest = a > b ? a : b;
  }
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
  const std::size_t cells = static_cast<std::size_t>(t + 2 * halo_width(connectivity)) * (t + 2 * halo_width(connectivity));
  // solve_any on the workspace's bucket queue where bucket_shape allows one, else on its heap; either
  // emptied and trimmed to the tile's cells first.
  auto solve = [&](const auto& tile_labels, auto& bucket_queue, auto& heap) {
    constexpr bool kTriple = std::is_same_v<std::decay_t<decltype(tile_labels)>, Labels<true>>;
    if (use_buckets) {
      bucket_queue.reset(delta, buckets);
      bucket_queue.release_capacity_over(cells);
      return solve_any<kTriple>(values, t, params, connectivity, max_cost, tile_labels, labels.interior_consistent,
                                changed, overflow, bucket_queue);
    }
    heap.clear();
    heap.release_capacity_over(cells);
    return solve_any<kTriple>(values, t, params, connectivity, max_cost, tile_labels, labels.interior_consistent,
                              changed, overflow, heap);
  };
  if (labels.source == nullptr && labels.hops == nullptr)  // distances only
    return solve(Labels<false>{dist}, w.buckets64, w.heap64);
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
  return solve(Labels<true>{dist, source, hops}, w.buckets128, w.heap128);
}

}  // namespace terrazo
