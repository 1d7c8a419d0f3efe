// tests/support/random_values.h: the random cost rasters the pipeline and od-matrix suites draw
// (test_sssp_pipeline.cpp, test_od_matrix.cpp, test_gprime_rounds.cpp, test_network.cpp): one helper
// instead of the same three lines in every case, and the nodata walls and islands they cut into them.
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

// A nodata wall down column `x` of the w x h raster `values`, open at row `gap_y` only.
inline void add_nodata_wall(std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint64_t x,
                            std::uint64_t gap_y) {
  for (std::uint64_t y = 0; y < h; ++y)
    if (y != gap_y) values[y * w + x] = std::numeric_limits<double>::quiet_NaN();
}

// An island: the 5 x 5 cells (3..7, 3..7) of the raster of width `w` set to `island`, closed in by a
// ring of nodata on rows and columns 2 and 8 (no path leads in or out).
inline void add_nodata_island(std::vector<double>& values, std::uint64_t w, double island) {
  for (std::uint64_t y = 2; y <= 8; ++y)
    for (std::uint64_t x = 2; x <= 8; ++x)
      values[y * w + x] = y == 2 || y == 8 || x == 2 || x == 8 ? std::numeric_limits<double>::quiet_NaN() : island;
}

}  // namespace terrazo::testing
