// engine/cost_models/weight_params.cpp: choose_weight_params (engine/cost_models/weight_params.h; the rule in docs/weights.md).
#include "engine/cost_models/weight_params.h"

#include "kernels/sssp/knight.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "engine/tile_inputs/tile_input.h"

namespace terrazo {
namespace {


// The largest power of 10 with largest * 10^k <= limit (largest > 0 and finite), k in [-300, 300].
double default_power_of_ten(double largest, double limit) {
  int k = static_cast<int>(std::floor(std::log10(limit / largest)));
  k = std::max(-300, std::min(300, k));
  while (k > -300 && largest * std::pow(10.0, k) > limit) --k;
  while (k < 300 && largest * std::pow(10.0, k + 1) <= limit) ++k;
  return std::pow(10.0, k);
}

// One pass over `data`: the first cell (smallest row-major id) holding `target`, and, when `count` is
// set, the steps to the east and south neighbour within each tile whose step quantity (|a - b| for
// max and absdiff, (a + b) / 2 for friction) is nonzero, and how many of them round to 0 at `scale`.
// The tile-interior steps are all but 2/t of the raster's orthogonal steps.
struct Scan {
  bool found = false;
  std::uint64_t x = 0, y = 0;
  std::uint64_t nonzero = 0, collapsed = 0;
};

Scan scan_data(const TileInput& data, MemoryBudget* budget, double target, bool count, WeightModel model,
               double scale) {
  const TileGrid& grid = data.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  MemoryBudget::Reservation reservation;
  if (budget) reservation = budget->reserve(cells * sizeof(double), "weight check tile");
  std::vector<double> v(cells);
  Scan scan;
  std::uint64_t best = ~std::uint64_t{0};
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
      if (!data.tile_present(tx, ty)) continue;
      data.read_tile(tx, ty, v.data());
      for (std::uint32_t ly = 0; ly < t; ++ly)
        for (std::uint32_t lx = 0; lx < t; ++lx) {
          const double a = v[static_cast<std::size_t>(ly) * t + lx];
          if (a != a) continue;
          if (a == target) {
            const std::uint64_t x = static_cast<std::uint64_t>(tx) * t + lx, y = static_cast<std::uint64_t>(ty) * t + ly;
            if (y * grid.width + x < best) {
              best = y * grid.width + x;
              scan.found = true;
              scan.x = x;
              scan.y = y;
            }
          }
          if (!count) continue;
          for (int d = 0; d < 2; ++d) {
            if (d == 0 ? lx + 1 >= t : ly + 1 >= t) continue;
            const double b = v[static_cast<std::size_t>(ly + d) * t + lx + (1 - d)];
            if (b != b) continue;
            const double q = model == WeightModel::Friction ? (a + b) * 0.5 : (a > b ? a - b : b - a);
            if (!(q > 0)) continue;
            ++scan.nonzero;
            if (q * scale < 0.5) ++scan.collapsed;
          }
        }
    }
  return scan;
}

// " at cell X,Y (column,row)" for the first cell holding `value`, or "" without data.
std::string cell_of(const TileInput* data, MemoryBudget* budget, double value) {
  if (!data) return "";
  const Scan scan = scan_data(*data, budget, value, false, WeightModel::Max, 1.0);
  if (!scan.found) return "";
  return " at cell " + std::to_string(scan.x) + "," + std::to_string(scan.y) + " (column,row)";
}

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g%%", 100.0 * fraction);
  return buffer;
}

const char kRemedies[] = "give --scale S, clip the values, or set that value as nodata (e.g. gdal_edit.py -a_nodata)";

// The longest and the shortest step the graph has (cells: sqrt 2 or 1, and 1; 16 neighbours on
// uniform steps: the longer knight's move, sqrt 5 in cells).
void step_range(const StepLengths& steps, Connectivity connectivity, double* longest, double* shortest) {
  const bool uniform = steps.rows == nullptr;
  *longest = connectivity == Connectivity::Eight || !uniform ? steps.max_length : std::max(steps.ew, steps.ns);
  if (connectivity == Connectivity::Sixteen && uniform)
    *longest = std::max(knight_length(steps, 8), knight_length(steps, 9));
  *shortest = uniform && connectivity == Connectivity::Four ? std::min(steps.ew, steps.ns) : steps.min_length;
}

// Infinite values have no scale (NaN is nodata; an infinity is a value); friction needs costs >= 0.
void check_input_values(WeightModel model, double min, double max, const TileInput* data, MemoryBudget* budget) {
  for (double v : {min, max})
    if (std::isinf(v))
      throw UsageError("INPUT has the value " + format_value(v) + cell_of(data, budget, v) +
                       ": no --scale can represent it; clip the values or set that value as nodata "
                       "(e.g. gdal_edit.py -a_nodata)");
  if (model == WeightModel::Friction && min < 0)
    throw UsageError("--weight friction needs non-negative costs, and INPUT has the value " + format_value(min) +
                     cell_of(data, budget, min) + "; use --weight absdiff or max, shift the costs, or set that value "
                     "as nodata");
}

// The largest step weight the statistics allow, and the smallest they guarantee (0: none); --weight
// max's offset into p.
void weight_bounds(WeightModel model, double min, double max, double longest_step, double shortest_step, WeightParams& p,
                   double* largest, double* smallest) {
  *smallest = 0;
  switch (model) {
    case WeightModel::Max:
      p.offset = min < 0 ? min : 0.0;
      *largest = max - p.offset;
      *smallest = min - p.offset;
      break;
    case WeightModel::AbsDiff: *largest = max - min; break;
    case WeightModel::Friction:
      *largest = max * longest_step;
      *smallest = min * shortest_step;
      break;
    case WeightModel::Geometric:
      *largest = longest_step;
      *smallest = shortest_step;
      break;
    case WeightModel::Unit:
      *largest = 1;
      *smallest = 1;
      break;
    case WeightModel::Walk:
    case WeightModel::Tobler:  // directed: engine/cost_models/walk_weights.h scans the weights themselves
      throw UsageError(std::string("--model ") + to_string(model) + " is cost distance only (sssp); its weights come from "
                       "choose_walk_weight_params");
  }
}

// Friction and geometric: the cheapest steps must not round to 0, nor (at the default scale) be off
// by more than kMaxRelativeErrorBound.
void check_cheapest_steps(const WeightChoice& choice, double smallest, double max, const std::string& scale_text,
                          const TileInput* data, MemoryBudget* budget) {
  const WeightParams& p = choice.params;
  const double bound = choice.relative_error_bound;
  if (smallest * p.scale < 0.5 || (!choice.scale_given && bound > kMaxRelativeErrorBound))
    throw UsageError(scale_text + " cannot represent INPUT: the value " + format_value(max) +
                     cell_of(data, budget, max) + " sets the largest step weight " + format_value(choice.largest_step) +
                     ", so the cheapest steps (cost " + format_value(smallest) + ") " +
                     (smallest * p.scale < 0.5 ? std::string("round to 0")
                                               : "are off by up to " + percent(bound) + " (more than " +
                                                     percent(kMaxRelativeErrorBound) + ")") +
                     "; " + kRemedies);
}

// A scale below 1 on data: the steps counted; more than half of the nonzero ones rounding to 0 is refused.
void check_collapsed_steps(const TileInput& data, MemoryBudget* budget, double extreme, WeightModel model,
                           const std::string& scale_text, WeightChoice& choice) {
  const Scan scan = scan_data(data, budget, extreme, true, model, choice.params.scale);
  choice.nonzero_steps = scan.nonzero;
  choice.collapsed_steps = scan.collapsed;
  if (scan.nonzero > 0 && scan.collapsed * 2 > scan.nonzero) {
    const std::string where =
        scan.found ? " at cell " + std::to_string(scan.x) + "," + std::to_string(scan.y) + " (column,row)" : "";
    throw UsageError(scale_text + " cannot represent INPUT: the value " + format_value(extreme) + where +
                     " sets the largest step weight " + format_value(choice.largest_step) + ", and " +
                     percent(static_cast<double>(scan.collapsed) / static_cast<double>(scan.nonzero)) + " of the nonzero steps round to 0; " + kRemedies);
  }
}

}  // namespace

WeightChoice choose_weight_params(WeightModel model, double scale, const RasterInfo& info,
                                  Connectivity connectivity, double default_limit, const TileInput* data,
                                  MemoryBudget* budget, const StepLengths* steps) {
  WeightChoice choice;
  WeightParams& p = choice.params;
  p.model = model;
  if (steps) p.steps = *steps;
  double longest_step = 0, shortest_step = 0;
  step_range(p.steps, connectivity, &longest_step, &shortest_step);
  if (scale != 0 && !(scale > 0 && std::isfinite(scale)))
    throw UsageError("invalid --scale '" + format_value(scale) + "': expected a finite positive number, e.g. 1000");
  const bool stats = info.has_stats;  // false: no valid cell
  const double min = stats ? info.min : 0.0, max = stats ? info.max : 0.0;
  check_input_values(model, min, max, data, budget);
  double& largest = choice.largest_step;
  double smallest = 0;  // the smallest weight the statistics guarantee (0: none)
  weight_bounds(model, min, max, longest_step, shortest_step, p, &largest, &smallest);
  // The value that set L: friction's maximum, else the extreme of larger magnitude.
  const double extreme = model == WeightModel::Friction ? max : (std::fabs(min) > std::fabs(max) ? min : max);
  // Every weight is an exact integer at an integer scale: integer cells (and so an integer offset)
  // under a model that only subtracts them.
  const bool integer_weights = model == WeightModel::Unit ||
                               (cell_type_is_integer(info.type) && (model == WeightModel::Max || model == WeightModel::AbsDiff));
  if (scale > 0) {
    choice.scale_given = true;
    p.scale = scale;
  } else if (largest > 0 && std::isfinite(largest) && !(integer_weights && largest <= default_limit)) {
    p.scale = default_power_of_ten(largest, default_limit);
  } else {
    p.scale = 1.0;
  }
  const std::string scale_text = choice.scale_given ? "--scale " + format_value(p.scale)
                                                    : "the default scale " + format_value(p.scale);
  if (!(largest * p.scale < static_cast<double>(kMaxWeight) + 0.5))
    throw UsageError("edge weights overflow the 32-bit fixed point at " + scale_text + ": the largest step weight " +
                     format_value(largest) + " (value " + format_value(extreme) + cell_of(data, budget, extreme) +
                     ") x scale exceeds " + std::to_string(kMaxWeight) + "; give --scale " +
                     format_value(static_cast<double>(kMaxWeight) / largest) +
                     " or less, clip the values, or set that value as nodata");
  const bool exact = integer_weights && p.scale == std::floor(p.scale);
  choice.step_error_bound = exact ? 0.0 : 0.5 / p.scale;
  choice.relative_error_bound = exact ? 0.0
                                : smallest > 0 ? 0.5 / (p.scale * smallest)
                                               : std::numeric_limits<double>::quiet_NaN();
  if (largest > 0 && largest * p.scale < 0.5)
    throw UsageError(scale_text + " rounds every weight to 0: the largest step weight is " + format_value(largest) +
                     " (value " + format_value(extreme) + cell_of(data, budget, extreme) +
                     "); give a larger --scale, or leave --scale out for the default");
  if ((model == WeightModel::Friction || model == WeightModel::Geometric) && smallest > 0)
    check_cheapest_steps(choice, smallest, max, scale_text, data, budget);
  if (data && p.scale < 1 && largest > 0 && (model == WeightModel::Max || model == WeightModel::AbsDiff ||
                                              model == WeightModel::Friction))
    check_collapsed_steps(*data, budget, extreme, model, scale_text, choice);
  return choice;
}

}  // namespace terrazo
