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
//
// The solve itself is the template of kernels/sssp/block_sssp_cpu_solve.h, compiled per model in
// block_sssp_cpu_model_*.cpp; this file holds the per-thread workspace, the queue's choice and the
// dispatch to the run's model.
#include <cstring>
#include <vector>

#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

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

// Bucket width and count for the tile, or false when the radix heap must be used.
bool bucket_shape(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                  std::uint64_t* delta, std::uint64_t* buckets) {
  if (params.model == WeightModel::AbsDiff) return false;  // equal neighbours weigh 0
  if (is_directed(params.model)) return false;  // packed cells: no bound from the values' range
  const std::size_t cells = static_cast<std::size_t>(t + 2 * halo_width(connectivity)) * (t + 2 * halo_width(connectivity));
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
  const std::size_t cells = static_cast<std::size_t>(t + 2 * halo_width(connectivity)) * (t + 2 * halo_width(connectivity));
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
