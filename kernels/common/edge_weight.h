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
//
// Step lengths L (docs/weights.md "Step lengths", --distance of sssp and path): StepLengths.
//   cells    : 1 orthogonal, sqrt(2) diagonal (the default, and the only mode of mst; bit for bit the
//              weights terrazo always had)
//   map      : |dx| east-west, |dy| north-south, sqrt(dx^2 + dy^2) diagonal (geotransform resolution)
//   geodesic : a per-row table: the ellipsoidal geodesic between the two cell centres of each step
//              kind, computed once per row (pair) on the host (api/step_lengths.h)
// The length of a step depends only on the step's rows, never on its direction of travel, so
// w(u, v) = w(v, u) in every mode.
//
// A NaN value means nodata (the readers deliver nodata and padding cells as NaN): no edge (kNoEdge).
// A weight that does not fit in [0, kMaxWeight] is an overflow: the function returns kNoEdge and
// sets *overflow; callers turn that into a clear error naming --scale (never a wrapped value).
// Negative friction is rejected by the engine before any solver runs.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/types.h"

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
// row's pair entries are never used). The table is owned by the caller (api/step_lengths.h on the
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

struct WeightParams {
  WeightModel model = WeightModel::Max;
  double scale = 1.0;
  double offset = 0.0;  // subtracted from heights in the max model (raster minimum when negative)
  StepLengths steps;    // friction and geometric only (cells unless --distance says otherwise)
};

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

// The weight of a step of length `length` between values a and b.
TERRAZO_HD Weight weight_of_step(const WeightParams& p, double a, double b, double length, bool* overflow) {
  if (a != a || b != b) return kNoEdge;  // NaN: nodata
  double value;
  switch (p.model) {
    case WeightModel::Max: value = ((a > b ? a : b) - p.offset) * p.scale; break;
    case WeightModel::AbsDiff: value = (a > b ? a - b : b - a) * p.scale; break;
    case WeightModel::Geometric: value = length * p.scale; break;
    case WeightModel::Unit: value = p.scale; break;
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
