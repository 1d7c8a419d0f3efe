// api/weight_params.cpp: choose_weight_params (api/weight_params.h; the rule in docs/weights.md).
#include "api/weight_params.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.h"

namespace terrazo {
namespace {

std::string format_value(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", v);
  return buffer;
}

// The largest power of 10 with largest * 10^k <= limit (largest > 0 and finite), k in [-300, 300].
double default_power_of_ten(double largest, double limit) {
  int k = static_cast<int>(std::floor(std::log10(limit / largest)));
  k = std::max(-300, std::min(300, k));
  while (k > -300 && largest * std::pow(10.0, k) > limit) --k;
  while (k < 300 && largest * std::pow(10.0, k + 1) <= limit) ++k;
  return std::pow(10.0, k);
}

}  // namespace

WeightChoice choose_weight_params(WeightModel model, double scale, const RasterInfo& info,
                                  Connectivity connectivity, double default_limit) {
  WeightChoice choice;
  WeightParams& p = choice.params;
  p.model = model;
  if (scale != 0 && !(scale > 0 && std::isfinite(scale)))
    throw UsageError("invalid --scale '" + format_value(scale) + "': expected a finite positive number, e.g. 1000");
  const bool stats = info.has_stats;  // false: no valid cell
  const double min = stats ? info.min : 0.0, max = stats ? info.max : 0.0;
  if (model == WeightModel::Friction && min < 0)
    throw UsageError("--weight friction needs non-negative costs, and INPUT has cells down to " + format_value(min) +
                     "; use --weight absdiff or max, or shift the costs");
  double& largest = choice.largest_step;
  switch (model) {
    case WeightModel::Max:
      p.offset = min < 0 ? min : 0.0;
      largest = max - p.offset;
      break;
    case WeightModel::AbsDiff: largest = max - min; break;
    case WeightModel::Friction: largest = max * (connectivity == Connectivity::Eight ? kSqrt2 : 1.0); break;
  }
  // Every weight is an exact integer at an integer scale: integer cells (and so an integer offset)
  // under a model that only subtracts them.
  const bool integer_weights = cell_type_is_integer(info.type) && model != WeightModel::Friction;
  if (scale > 0) {
    choice.scale_given = true;
    p.scale = scale;
  } else if (largest > 0 && std::isfinite(largest) && !(integer_weights && largest <= default_limit)) {
    p.scale = default_power_of_ten(largest, default_limit);
  } else {
    p.scale = 1.0;
  }
  if (!(largest * p.scale < static_cast<double>(kMaxWeight) + 0.5))
    throw UsageError("edge weights overflow the 32-bit fixed point: the largest step weight " + format_value(largest) +
                     " x --scale " + format_value(p.scale) + " exceeds " + std::to_string(kMaxWeight) +
                     "; choose --scale " + format_value(static_cast<double>(kMaxWeight) / largest) + " or less");
  choice.step_error_bound = (integer_weights && p.scale == std::floor(p.scale)) ? 0.0 : 0.5 / p.scale;
  return choice;
}

}  // namespace terrazo
