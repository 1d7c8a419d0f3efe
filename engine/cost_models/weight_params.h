// engine/cost_models/weight_params.h: the one rule that turns a raster's values into the fixed-point weight
// parameters (model, scale, offset) of kernels/common/edge_weight.h, for every pipeline (`terrazo mst`,
// `terrazo sssp`, `terrazo path`). The rule, its error bound and the reasons behind it are in
// docs/weights.md; docs/mst.md and docs/sssp.md point there.
//
// The rule (docs/weights.md "The default scale"):
//  - offset: the max model subtracts the raster minimum when it is negative (weights stay >= 0 and the
//    order of the weights is unchanged); other models 0;
//  - L, the largest step weight in input units: max `max - offset`, absdiff `max - min`, friction
//    `max x sqrt 2` (`max` with 4-connectivity; with --distance map|geodesic `max x` the longest step),
//    geometric the longest step, unit 1;
//  - scale: a given scale (> 0) as it is; else 1 when every weight is an exact integer (an integer cell
//    type with the max or absdiff model) and L <= the pipeline's limit; else the largest power of 10
//    with L x scale <= the pipeline's limit (1 when L = 0 or there is no valid cell);
//  - friction on a negative cost is a UsageError (exit 2), whatever the pipeline.
// The data must be representable at that scale (docs/weights.md "Refused data"), else UsageError
// (exit 2) naming the value and cell (column,row) that set the scale and the remedies (--scale, clip,
// nodata): no infinite value; friction: the cheapest step (c_min) must not round to 0 and, at the
// default scale, the relative error bound 0.5 / (scale x c_min) must not exceed
// kMaxRelativeErrorBound; a given scale must not round every weight to 0; and when the scale is below
// 1 (only data with a step weight above the limit, e.g. one outlier), the data is read once more and
// refused when most nonzero steps (the differences for max and absdiff, the costs for friction) round
// to 0.
// The per-pipeline limit is the largest default step weight (docs/weights.md "Why mst and sssp have
// different limits"): 2^31 for the MST, whose weights are only compared and whose total is checked,
// 2^30 for cost distance, whose path lengths are unchecked 64-bit sums of up to 2^34 steps.
#pragma once
#include <cstdint>
#include <limits>

#include "kernels/common/types.h"
#include "kernels/common/edge_weight.h"
#include "io/store/raster_info.h"

namespace terrazo {

// The largest default step weight of each pipeline, in fixed-point units.
constexpr double kMstDefaultStepLimit = 2147483648.0;   // 2^31
constexpr double kSsspDefaultStepLimit = 1073741824.0;  // 2^30
// The largest relative error bound of friction weights the default scale may give (1 %).
constexpr double kMaxRelativeErrorBound = 1e-2;

class TileInput;
class MemoryBudget;

struct WeightChoice {
  WeightParams params;
  bool scale_given = false;  // the caller's scale, not the default
  double largest_step = 0;   // L, input units (0 when there is no valid cell)
  // Bound on the rounding error of one step weight, input units: 0.5 / scale, or 0 when every weight
  // is an exact integer at this scale (integer cells, max or absdiff, an integer scale).
  double step_error_bound = 0;
  // Bound on the relative error of every weight, 0.5 / (scale x w_min), where the statistics give a
  // smallest weight w_min > 0 (friction: c_min, and then also the relative error of every path
  // length; max: min - offset); 0 for exact integer weights; NaN where void (absdiff, w_min = 0).
  double relative_error_bound = 0;
  // The data scan (scale below 1): steps with a nonzero difference (max, absdiff) or cost (friction)
  // within tiles, and how many of them round to 0. Both 0 when there was no scan.
  std::uint64_t nonzero_steps = 0, collapsed_steps = 0;
};

// The weight parameters of a run of a pipeline with largest default step weight `default_limit` on a
// raster with statistics `info` (has_stats false: no valid cell). `scale` > 0 is the user's --scale,
// 0 the default. Throws UsageError for friction on a negative cost, a scale that is not finite and
// positive, a scale at which L overflows kMaxWeight, and data the scale cannot represent (above).
// `data` (the raster's cells; optional) is read to name the offending cell in a refusal, and for the
// collapse scan when the scale is below 1; one tile of doubles is reserved from `budget` for that.
// Without `data` the refusals name no cell and there is no scan.
// `steps` (sssp --distance; null: cells) scale the friction and geometric models: L uses the longest
// step (max_length, or the longer orthogonal step with 4-connectivity) and w_min the shortest, and
// the chosen params carry them. unit weighs every step 1 (exact integers), geometric L x scale.
WeightChoice choose_weight_params(WeightModel model, double scale, const RasterInfo& info,
                                  Connectivity connectivity, double default_limit,
                                  const TileInput* data = nullptr, MemoryBudget* budget = nullptr,
                                  const StepLengths* steps = nullptr);

// The rule with each pipeline's limit (the parameters only).
inline WeightParams mst_weight_params(WeightModel model, double scale, const RasterInfo& info,
                                      Connectivity connectivity) {
  return choose_weight_params(model, scale, info, connectivity, kMstDefaultStepLimit).params;
}
inline WeightParams sssp_weight_params(WeightModel model, double scale, const RasterInfo& info,
                                       Connectivity connectivity) {
  return choose_weight_params(model, scale, info, connectivity, kSsspDefaultStepLimit).params;
}

}  // namespace terrazo
