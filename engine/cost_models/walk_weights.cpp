// engine/cost_models/walk_weights.cpp: check_walk_params, choose_walk_weight_params (engine/cost_models/walk_weights.h).
#include "engine/cost_models/walk_weights.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/common/walk_tile.h"

namespace terrazo {
void check_walk_params(const WalkParams& w) {
  for (double v : {w.a, w.b, w.c, w.d, w.lambda, w.slope_factor})
    if (!std::isfinite(v)) throw UsageError("--walk-coeff, --lambda and --slope-factor must be finite numbers");
  const std::string coeff = "--walk-coeff " + format_value(w.a) + "," + format_value(w.b) + "," + format_value(w.c) +
                            "," + format_value(w.d);
  if (w.a < 0) throw UsageError(coeff + ": a (seconds per metre on the flat) must be >= 0");
  if (w.b < 0) throw UsageError(coeff + ": b (seconds per metre climbed) must be >= 0");
  if (w.d > 0) throw UsageError(coeff + ": d must be <= 0 (steep downhill costs more the steeper it is); a positive d makes steep steps negative");
  if (w.slope_factor > 0) throw UsageError("--slope-factor " + format_value(w.slope_factor) + ": must be <= 0 (a downhill slope dh/L)");
  if (w.a + w.c * w.slope_factor < 0)
    throw UsageError(coeff + " with --slope-factor " + format_value(w.slope_factor) + ": a + c x slope_factor = " +
                     format_value(w.a + w.c * w.slope_factor) + " < 0 makes moderate downhill steps negative");
  if (w.lambda < 0) throw UsageError("--lambda " + format_value(w.lambda) + ": must be >= 0");
}

namespace {

// One worker's scan: its largest weight at the first cell in scan order (tile, row, column), its
// smallest positive one, and the first bad cell's error (error_tile: none when max).
struct Scan {
  double largest = 0, smallest = std::numeric_limits<double>::infinity();
  std::uint64_t largest_tile = 0, lx = 0, ly = 0;
  std::uint64_t error_tile = std::numeric_limits<std::uint64_t>::max();
  std::string error;
};

// The weights both ways of every step inside tile i = (tx, ty) (cells `v`, side t) into `scan`.
// UsageError on a friction that is negative or not finite, or a step without a finite weight.
void scan_walk_tile(const WeightParams& p, WeightModel model, const StepLengths& steps, const std::vector<double>& v,
                    std::uint32_t t, std::uint32_t tx, std::uint32_t ty, std::uint64_t i, Scan& scan) {
  const auto global_x = [&](std::uint32_t x) { return static_cast<std::uint64_t>(tx) * t + x; };
  const auto global_y = [&](std::uint32_t y) { return static_cast<std::uint64_t>(ty) * t + y; };
  const auto check_friction = [&](std::uint32_t x, std::uint32_t y, double, double fa) {
    if (!(fa >= 0) || !std::isfinite(fa))
      throw UsageError("--friction has the value " + format_value(fa) + " at cell " + std::to_string(global_x(x)) + "," +
                       std::to_string(global_y(y)) + " (column,row); friction must be finite and >= 0 (or nodata)");
  };
  const auto weigh_step = [&](std::uint32_t x, std::uint32_t y, int d, double ha, double fa, double hb, double fb) {
    const std::uint64_t gx = global_x(x), gy = global_y(y);
    const double length = step_length(steps, d, static_cast<std::int64_t>(gy));
    for (const double w : {walk_step_cost(p, ha, fa, hb, fb, length), walk_step_cost(p, hb, fb, ha, fa, length)}) {
      if (!(w < std::numeric_limits<double>::infinity()))
        throw UsageError("--model " + std::string(to_string(model)) + ": the step from cell " + std::to_string(gx) + "," +
                         std::to_string(gy) + " (column,row) has no finite weight (elevation " + format_value(ha) +
                         " to " + format_value(hb) + " over a step of " + format_value(length) +
                         "); set such cells as nodata");
      if (w > scan.largest) {
        scan.largest = w;
        scan.largest_tile = i;
        scan.lx = gx;
        scan.ly = gy;
      }
      if (w > 0 && w < scan.smallest) scan.smallest = w;
    }
    return true;
  };
  scan_walk_tile_pairs(v.data(), t, check_friction, weigh_step);
}

// Each worker scans the tiles it takes from a shared counter, in increasing order. The reduction
// gives the serial scan's answer whatever the thread count: the largest weight at the first such
// cell, and, on bad input, the error of the first bad cell in scan order (a worker that meets one
// stops; the others finish every tile before it).
Scan scan_walk_weights(const WeightParams& p, WeightModel model, const TileInput& cells, const StepLengths& steps,
                       unsigned threads, MemoryBudget* budget) {
  const TileGrid& grid = cells.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t n = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t tiles = static_cast<std::uint64_t>(grid.tiles_x()) * grid.tiles_y();
  WorkerPool pool(static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads ? threads : 1, tiles))));
  MemoryBudget::Reservation reservation;
  if (budget) reservation = budget->reserve(pool.threads() * n * sizeof(double), "walk weight scan tiles");
  std::vector<Scan> scans(pool.threads());
  std::atomic<std::uint64_t> next_tile{0}, stop_at{tiles};
  pool.run(pool.threads(), [&](std::uint64_t worker) {
    Scan& scan = scans[worker];
    std::vector<double> v(n);
    for (std::uint64_t i = next_tile++; i < tiles && i < stop_at.load(); i = next_tile++) {
      const std::uint32_t tx = static_cast<std::uint32_t>(i % grid.tiles_x()), ty = static_cast<std::uint32_t>(i / grid.tiles_x());
      if (!cells.tile_present(tx, ty)) continue;
      cells.read_tile(tx, ty, v.data());
      try {
        scan_walk_tile(p, model, steps, v, t, tx, ty, i, scan);
      } catch (const UsageError& e) {
        scan.error_tile = i;
        scan.error = e.what();
        for (std::uint64_t s = stop_at.load(); i < s && !stop_at.compare_exchange_weak(s, i);) {
        }
        return;
      }
    }
  });
  Scan total;
  const Scan* first_error = nullptr;
  for (const Scan& scan : scans) {
    if (scan.error_tile < tiles && (!first_error || scan.error_tile < first_error->error_tile)) first_error = &scan;
    total.smallest = std::min(total.smallest, scan.smallest);
    const bool earlier =
        std::make_tuple(scan.largest_tile, scan.ly, scan.lx) < std::make_tuple(total.largest_tile, total.ly, total.lx);
    if (scan.largest > total.largest || (scan.largest == total.largest && scan.largest > 0 && earlier)) {
      total.largest = scan.largest;
      total.largest_tile = scan.largest_tile;
      total.lx = scan.lx;
      total.ly = scan.ly;
    }
  }
  if (first_error) throw UsageError(first_error->error);
  return total;
}

// The default scale: the largest power of ten that keeps the largest weight within kSsspDefaultStepLimit.
double default_walk_scale(double largest) {
  int k = static_cast<int>(std::floor(std::log10(kSsspDefaultStepLimit / largest)));
  k = std::max(-300, std::min(300, k));
  while (k > -300 && largest * std::pow(10.0, k) > kSsspDefaultStepLimit) --k;
  while (k < 300 && largest * std::pow(10.0, k + 1) <= kSsspDefaultStepLimit) ++k;
  return std::pow(10.0, k);
}

}  // namespace

WeightChoice choose_walk_weight_params(WeightModel model, const WalkParams& walk, double scale, const TileInput& cells,
                                       const StepLengths& steps, unsigned threads, MemoryBudget* budget) {
  check_walk_params(walk);
  if (scale != 0 && !(scale > 0 && std::isfinite(scale)))
    throw UsageError("invalid --scale '" + format_value(scale) + "': expected a finite positive number, e.g. 1000");
  WeightChoice choice;
  WeightParams& p = choice.params;
  p.model = model;
  p.walk = walk;
  p.walk.reverse = false;  // both ways are scanned
  p.steps = steps;
  p.scale = 1.0;
  const Scan scan = scan_walk_weights(p, model, cells, steps, threads, budget);
  const double largest = scan.largest, smallest = scan.smallest;
  const std::uint64_t lx = scan.lx, ly = scan.ly;
  choice.largest_step = largest;
  if (scale > 0) {
    choice.scale_given = true;
    p.scale = scale;
  } else if (largest > 0) {
    p.scale = default_walk_scale(largest);
  }
  const std::string scale_text = choice.scale_given ? "--scale " + format_value(p.scale)
                                                    : "the default scale " + format_value(p.scale);
  if (!(largest * p.scale < static_cast<double>(kMaxWeight) + 0.5))
    throw UsageError("edge weights overflow the 32-bit fixed point at " + scale_text + ": the largest step weight " +
                     format_value(largest) + " (from cell " + std::to_string(lx) + "," + std::to_string(ly) +
                     " (column,row)) x scale exceeds " + std::to_string(kMaxWeight) + "; give --scale " +
                     format_value(static_cast<double>(kMaxWeight) / largest) + " or less");
  if (largest > 0 && largest * p.scale < 0.5)
    throw UsageError(scale_text + " rounds every weight to 0: the largest step weight is " + format_value(largest) +
                     "; give a larger --scale, or leave --scale out for the default");
  choice.step_error_bound = 0.5 / p.scale;
  choice.relative_error_bound = smallest < std::numeric_limits<double>::infinity()
                                    ? 0.5 / (p.scale * smallest)
                                    : std::numeric_limits<double>::quiet_NaN();
  if (!choice.scale_given && choice.relative_error_bound > kMaxRelativeErrorBound)
    throw UsageError(scale_text + " cannot represent the walk weights: the largest step weight " +
                     format_value(largest) + " (from cell " + std::to_string(lx) + "," + std::to_string(ly) +
                     " (column,row)) sets the scale, and the cheapest steps (" + format_value(smallest) +
                     ") are off by more than 1%; give --scale S, or set the outlying cells as nodata");
  p.walk = walk;
  return choice;
}

}  // namespace terrazo
