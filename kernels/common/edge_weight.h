// kernels/common/edge_weight.h: the exact integer edge weights of terrazo (docs/architecture.md "Exact integer weights").
//
// One host/device function maps the values of two neighbouring cells to a 32-bit fixed-point
// weight, so the CPU and CUDA solvers compute bit-identical weights (build with FP contraction
// off: -ffp-contract=off on the host, --fmad=false for nvcc; both are set in CMakeLists.txt).
//
//   max      : w = llround((max(h(u), h(v)) - offset) * scale)       offset = min(0, raster minimum)
//   absdiff  : w = llround(|h(u) - h(v)| * scale)
//   friction : w = llround(((c(u) + c(v)) * 0.5) * L * scale)           L = 1 orthogonal, sqrt(2) diagonal
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

struct WeightParams {
  WeightModel model = WeightModel::Max;
  double scale = 1.0;
  double offset = 0.0;  // subtracted from heights in the max model (raster minimum when negative)
};

TERRAZO_HD Weight edge_weight(const WeightParams& p, double a, double b, bool diagonal, bool* overflow) {
  if (a != a || b != b) return kNoEdge;  // NaN: nodata
  double value;
  switch (p.model) {
    case WeightModel::Max: value = ((a > b ? a : b) - p.offset) * p.scale; break;
    case WeightModel::AbsDiff: value = (a > b ? a - b : b - a) * p.scale; break;
    default: value = ((a + b) * 0.5) * (diagonal ? kSqrt2 : 1.0) * p.scale; break;
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

}  // namespace terrazo
