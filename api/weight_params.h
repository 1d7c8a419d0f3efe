// api/weight_params.h: the one rule that turns a raster's values into the fixed-point weight
// parameters (model, scale, offset) of kernels/common/edge_weight.h, for every pipeline (`terrazo mst`,
// `terrazo sssp`, `terrazo path`). The rule, its error bound and the reasons behind it are in
// docs/weights.md; docs/mst.md and docs/sssp.md point there.
//
// The rule (docs/weights.md "The default scale"):
//  - offset: the max model subtracts the raster minimum when it is negative (weights stay >= 0 and the
//    order of the weights is unchanged); other models 0;
//  - L, the largest step weight in input units: max `max - offset`, absdiff `max - min`, friction
//    `max x sqrt 2` (`max` with 4-connectivity);
//  - scale: a given scale (> 0) as it is; else 1 when every weight is an exact integer (an integer cell
//    type with the max or absdiff model) and L <= the pipeline's limit; else the largest power of 10
//    with L x scale <= the pipeline's limit (1 when L = 0 or there is no valid cell);
//  - friction on a negative cost is a UsageError (exit 2), whatever the pipeline.
// The per-pipeline limit is the largest default step weight (docs/weights.md "Why mst and sssp have
// different limits"): 2^31 for the MST, whose weights are only compared and whose total is checked,
// 2^30 for cost distance, whose path lengths are unchecked 64-bit sums of up to 2^34 steps.
#pragma once
#include <cstdint>
#include <limits>

#include "core/types.h"
#include "kernels/common/edge_weight.h"
#include "store/raster_info.h"

namespace terrazo {

// The largest default step weight of each pipeline, in fixed-point units.
constexpr double kMstDefaultStepLimit = 2147483648.0;   // 2^31
constexpr double kSsspDefaultStepLimit = 1073741824.0;  // 2^30

struct WeightChoice {
  WeightParams params;
  bool scale_given = false;  // the caller's scale, not the default
  double largest_step = 0;   // L, input units (0 when there is no valid cell)
  // Bound on the rounding error of one step weight, input units: 0.5 / scale, or 0 when every weight
  // is an exact integer at this scale (integer cells, max or absdiff, an integer scale).
  double step_error_bound = 0;
};

// The weight parameters of a run of a pipeline with largest default step weight `default_limit` on a
// raster with statistics `info` (has_stats false: no valid cell). `scale` > 0 is the user's --scale,
// 0 the default. Throws UsageError for friction on a negative cost, a scale that is not finite and
// positive, and a scale at which L overflows kMaxWeight.
WeightChoice choose_weight_params(WeightModel model, double scale, const RasterInfo& info,
                                  Connectivity connectivity, double default_limit);

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
