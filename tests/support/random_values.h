// tests/support/random_values.h: the random cost rasters the pipeline and od-matrix suites draw
// (test_sssp_pipeline.cpp, test_od_matrix.cpp, test_gprime_rounds.cpp, test_network.cpp): one helper
// instead of the same three lines in every case.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace terrazo::testing {

// `cells` values, each nodata (NaN) with probability `nodata`, else base + floor(u * range), u uniform
// in [0, 1); the draws in cell order (one for nodata, one more for a value), so a seed gives the same
// raster as the loops it replaces.
inline std::vector<double> random_values(std::mt19937_64& rng, std::uint64_t cells, double nodata, double base, double range) {
  std::vector<double> values(cells);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (double& v : values) v = unit(rng) < nodata ? std::numeric_limits<double>::quiet_NaN() : base + std::floor(unit(rng) * range);
  return values;
}

}  // namespace terrazo::testing
