// kernels/common/edge_weight.h: the exact integer edge weights of terrazo (docs/architecture.md "Exact integer weights").
//
// One host/device function maps the values of two neighbouring cells to a 32-bit fixed-point
// weight, so the CPU and CUDA solvers compute bit-identical weights (build with FP contraction
// off: -ffp-contract=off on the host, --fmad=false for nvcc; both are set in CMakeLists.txt).
//
//   max      : w = llround((max(h(u), h(v)) - offset) * scale)       offset = min(0, raster minimum)
//   absdiff  : w = llround(|h(u) - h(v)| * scale)
//   friction : w = llround(((c(u) + c(v)) * 0.5) * L * scale)           L = the step's length (below)
//   geometric: w = llround(L * scale)                                     (distance through valid cells)
//   unit     : w = llround(scale)                                         (hop count: every step is 1)
//   walk     : w = llround((dh * k(dh / L) + L * a + lambda * ((f(u) + f(v)) * 0.5) * L) * scale)
//              GRASS r.walk [GRASS-rwalk]: dh = h(v) - h(u) the climb of the step u -> v, k = b when
//              dh / L >= 0, d when dh / L < slope_factor, else c (docs/cost_models.md "--model walk")
//   tobler   : w = llround((L * 0.6 * exp(3.5 * |dh / L + 0.05|) + lambda * ((f(u) + f(v)) * 0.5) * L) * scale)
//              Tobler's hiking function [Tobler1993]: seconds at 6 exp(-3.5 |dh/L + 0.05|) km/h
// walk and tobler are directed: w(u, v) != w(v, u). A cell's value packs its elevation h and friction f
// as two floats (pack_walk_cell); with p.reverse (sssp --direction to) the step u -> v is weighed as
// the travel v -> u (dh = h(u) - h(v)), so a search from the sources finds the cost of travelling to them.
//
// Step lengths L (docs/weights.md "Step lengths", --distance of sssp and path): StepLengths.
//   cells    : 1 orthogonal, sqrt(2) diagonal (the default, and the only mode of mst; bit for bit the
//              weights terrazo always had)
//   map      : |dx| east-west, |dy| north-south, sqrt(dx^2 + dy^2) diagonal (geotransform resolution)
//   geodesic : a per-row table: the ellipsoidal geodesic between the two cell centres of each step
//              kind, computed once per row (pair) on the host (engine/cost_models/step_lengths.h)
// The length of a step depends only on the step's rows, never on its direction of travel, so
// w(u, v) = w(v, u) in every symmetric model (all but walk and tobler).
//
// A NaN value means nodata (the readers deliver nodata and padding cells as NaN): no edge (kNoEdge).
// A weight that does not fit in [0, kMaxWeight] is an overflow: the function returns kNoEdge and
// sets *overflow; callers turn that into a clear error naming --scale (never a wrapped value).
// Negative friction is rejected by the engine before any solver runs.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/common/types.h"

#if defined(__CUDACC__)
#define TERRAZO_HD __host__ __device__ __forceinline__
#else
#define TERRAZO_HD inline
#endif

namespace terrazo {

// sqrt(2) correctly rounded to double.
constexpr double kSqrt2 = 1.41421356237309514547462185873883;

// The length of each step kind. Uniform (rows == nullptr): ew, ns, diag for every row. Geodesic:
// rows[3 y + 0] is the east-west step on row y, rows[3 y + 1] the north-south step between rows y
// and y + 1, rows[3 y + 2] the diagonal step between rows y and y + 1 (row_count rows; the last
// row's pair entries are never used). The table is owned by the caller (engine/cost_models/step_lengths.h on the
// host; the CUDA solvers copy it to the device and point `rows` there). row0 is the global row of
// the caller's local row 0 (a tile window's halo row), set per tile; local rows are relative to it.
struct StepLengths {
  double ew = 1.0;
  double ns = 1.0;
  double diag = kSqrt2;
  const double* rows = nullptr;
  std::int64_t row_count = 0;
  std::int64_t row0 = 0;
  // Bounds on every length of the table (or of ew, ns, diag), for the solvers' queue shape.
  double min_length = 1.0;
  double max_length = kSqrt2;
};

// The coefficients of the directed models (walk, tobler): GRASS r.walk's defaults.
struct WalkParams {
  double a = 0.72, b = 6.0, c = 1.9998, d = -1.9998;  // --walk-coeff a,b,c,d (seconds per metre)
  double lambda = 1.0;                                 // --lambda: weight of the friction term
  double slope_factor = -0.2125;                       // --slope-factor: moderate / steep downhill
  bool reverse = false;                                // --direction to: weigh u -> v as the travel v -> u
};

struct WeightParams {
  WeightModel model = WeightModel::Max;
  double scale = 1.0;
  double offset = 0.0;  // subtracted from heights in the max model (raster minimum when negative)
  StepLengths steps;    // friction, geometric, walk and tobler (cells unless --distance says otherwise)
  WalkParams walk;      // walk and tobler only
};

// A walk/tobler cell: elevation (high 32 bits) and friction (low 32 bits) as floats in one double's
// bits. A finite elevation never makes the double a NaN (its exponent bits would be all ones only
// for an infinite or NaN float), so NaN keeps meaning nodata for every solver.
TERRAZO_HD double pack_walk_cell(float elevation, float friction) {
#if defined(__CUDA_ARCH__)
  const unsigned long long bits = (static_cast<unsigned long long>(__float_as_uint(elevation)) << 32) |
                                  __float_as_uint(friction);
  return __longlong_as_double(static_cast<long long>(bits));
#else
  std::uint32_t h, f;
  std::memcpy(&h, &elevation, 4);
  std::memcpy(&f, &friction, 4);
  const std::uint64_t bits = (static_cast<std::uint64_t>(h) << 32) | f;
  double out;
  std::memcpy(&out, &bits, 8);
  return out;
#endif
}

TERRAZO_HD void unpack_walk_cell(double cell, double* elevation, double* friction) {
#if defined(__CUDA_ARCH__)
  const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(cell));
  *elevation = static_cast<double>(__uint_as_float(static_cast<unsigned>(bits >> 32)));
  *friction = static_cast<double>(__uint_as_float(static_cast<unsigned>(bits & 0xffffffffull)));
#else
  std::uint64_t bits;
  std::memcpy(&bits, &cell, 8);
  const auto h = static_cast<std::uint32_t>(bits >> 32), f = static_cast<std::uint32_t>(bits & 0xffffffffu);
  float hf, ff;
  std::memcpy(&hf, &h, 4);
  std::memcpy(&ff, &f, 4);
  *elevation = hf;
  *friction = ff;
#endif
}

// exp(x) from + - * / only, so the host and the device give the same bits (the libraries' exp may
// differ in the last place): x = k ln 2 + r, |r| <= ln 2 / 2 (ln 2 split in two, fdlibm's), exp(r)
// by its Taylor polynomial of degree 17 in Horner form (truncation < 1e-21 relative), times 2^k
// built exactly from two powers of two. Relative error a few ulp. x >= 709: +inf; x < -708: 0.
TERRAZO_HD double exp_portable(double x) {
  if (!(x < 709.0)) return x != x ? x : HUGE_VAL;
  if (x < -708.0) return 0.0;
  const double k = floor(x * 1.4426950408889634 + 0.5);
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  double p = 1.0 / 355687428096000.0;  // 1 / 17!
  p = p * r + 1.0 / 20922789888000.0;
  p = p * r + 1.0 / 1307674368000.0;
  p = p * r + 1.0 / 87178291200.0;
  p = p * r + 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  const int ki = static_cast<int>(k);
  const int k1 = ki / 2, k2 = ki - k1;  // each in [-511, 512]: 2^k1 and 2^k2 are normal doubles
  double p1 = 1.0, p2 = 1.0;
  {
    double base = k1 < 0 ? 0.5 : 2.0;
    for (int e = k1 < 0 ? -k1 : k1; e != 0; e >>= 1, base *= base)
      if (e & 1) p1 *= base;
    base = k2 < 0 ? 0.5 : 2.0;
    for (int e = k2 < 0 ? -k2 : k2; e != 0; e >>= 1, base *= base)
      if (e & 1) p2 *= base;
  }
  return p * p1 * p2;
}

// The walk or tobler weight before scaling (seconds, with L in metres): the travel from a cell of
// elevation ha, friction fa to one of hb, fb over a step of length L.
TERRAZO_HD double walk_step_cost(const WeightParams& p, double ha, double fa, double hb, double fb, double length) {
  const double dh = hb - ha;
  const double slope = dh / length;
  const double friction = p.walk.lambda * ((fa + fb) / 2.0) * length;
  if (p.model == WeightModel::Tobler) {
    const double s = slope + 0.05;
    return length * 0.6 * exp_portable(3.5 * (s < 0 ? -s : s)) + friction;
  }
  const double k = slope >= 0 ? p.walk.b : (slope < p.walk.slope_factor ? p.walk.d : p.walk.c);
  return dh * k + length * p.walk.a + friction;
}

// Length of the step from a cell on local row `row` in direction `dir` (0..7 clockwise from east,
// kernels/common/tile_geometry.h). Rows outside the table are clamped (their cells are nodata, so
// their weights are never used).
TERRAZO_HD double step_length(const StepLengths& s, int dir, std::int64_t row) {
  const bool diagonal = (dir & 1) != 0;
  const int kind = (dir == 0 || dir == 4) ? 0 : (diagonal ? 2 : 1);
  if (s.rows == nullptr) return kind == 0 ? s.ew : (kind == 2 ? s.diag : s.ns);
  std::int64_t y = s.row0 + row;
  if (dir >= 5) y -= 1;  // NW, N, NE: the step lies between rows y - 1 and y
  y = y < 0 ? 0 : (y >= s.row_count ? s.row_count - 1 : y);
  return s.rows[3 * y + kind];
}

// The weight of a step of length `length` from value a to value b (the Dijkstra edge a -> b).
TERRAZO_HD Weight weight_of_step(const WeightParams& p, double a, double b, double length, bool* overflow) {
  if (a != a || b != b) return kNoEdge;  // NaN: nodata
  double value;
  switch (p.model) {
    case WeightModel::Max: value = ((a > b ? a : b) - p.offset) * p.scale; break;
    case WeightModel::AbsDiff: value = (a > b ? a - b : b - a) * p.scale; break;
    case WeightModel::Geometric: value = length * p.scale; break;
    case WeightModel::Unit: value = p.scale; break;
    case WeightModel::Walk:
    case WeightModel::Tobler: {
      double ha, fa, hb, fb;
      unpack_walk_cell(a, &ha, &fa);
      unpack_walk_cell(b, &hb, &fb);
      value = (p.walk.reverse ? walk_step_cost(p, hb, fb, ha, fa, length) : walk_step_cost(p, ha, fa, hb, fb, length)) *
              p.scale;
      break;
    }
    default: value = ((a + b) * 0.5) * length * p.scale; break;
  }
  // llround semantics (half away from zero), written out so host and device agree exactly.
  if (!(value > -0.5) || !(value < static_cast<double>(kMaxWeight) + 0.5)) {
    *overflow = true;
    return kNoEdge;
  }
  if (value < 0.0) return 0;  // in (-0.5, 0): rounds to 0
  const double whole = floor(value);  // value - whole is exact below 2^52
  return static_cast<Weight>(static_cast<std::uint64_t>(whole) + (value - whole >= 0.5 ? 1u : 0u));
}

// The weight of the step from a (local row `row`) in direction `dir` to its neighbour b, with the
// step lengths of p.steps: what every SSSP solver and the exchange use.
TERRAZO_HD Weight step_weight(const WeightParams& p, double a, double b, int dir, std::int64_t row, bool* overflow) {
  return weight_of_step(p, a, b, step_length(p.steps, dir, row), overflow);
}

// Cell step lengths (1, sqrt 2) whatever p.steps says: the MST's weights.
TERRAZO_HD Weight edge_weight(const WeightParams& p, double a, double b, bool diagonal, bool* overflow) {
  return weight_of_step(p, a, b, diagonal ? kSqrt2 : 1.0, overflow);
}

}  // namespace terrazo
