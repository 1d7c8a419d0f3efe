// tests/support/clump_reference.h: the in-memory oracles of `terrazo clump` (tests and the GPU check
// only): the regions, their statistics (--stats) and the sieve (--min-size), each by its plain
// formula over the whole raster (docs/clump.md), and the rasters they are checked on. Used by
// tests/test_clump.cpp, tests/test_clump_sieve.cpp, tests/gpu/test_clump_gpu.cpp and
// tools/bench/gpu_checks/clump_gpu_check.cpp.
#pragma once
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/clump/phases.h"
#include "engine/clump/sieve.h"

namespace terrazo::testing {

struct ClumpReference {
  std::vector<std::uint32_t> labels;  // W*H, 1.. in row-major order of each region's first cell; 0: no region
  std::uint64_t regions = 0, cells = 0, largest = 0;
};

// Keys as the phases define them (--by value|valid|range; NaN: no key), then flood fill from each
// unlabelled keyed cell in row-major order over `o.connectivity`. `values` row-major W*H, NaN = nodata.
ClumpReference clump_reference(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                               const ClumpPhaseOptions& o);

// The statistics of each region of `r`, in label order (value: the first cell's with --by value,
// NaN otherwise).
std::vector<ClumpRegionStats> clump_reference_stats(const ClumpReference& r, const std::vector<double>& values,
                                                    std::uint64_t w, std::uint64_t h, ClumpBy by);

// The sieve on the labels of `r`: exact sizes, borders counted pair by pair in a map, each region of
// fewer than `n` cells merged into the neighbour of the longest shared border among those larger
// than it (or as large with a smaller label; ties: the smaller label), chains followed, groups
// renumbered by their smallest label; with ClumpSmallAction::Nodata the small regions become 0.
std::vector<std::uint32_t> sieve_reference(const ClumpReference& r, std::uint64_t w, std::uint64_t h, Connectivity c,
                                           std::uint64_t n, ClumpSmallAction action);

// `n` classes 0..distinct-1 drawn uniformly, each cell nodata (NaN) with probability `holes` (the
// random categorical rasters of tests/test_clump.cpp and tests/test_clump_sieve.cpp).
inline std::vector<double> random_classes(std::mt19937_64& rng, std::uint64_t n, int distinct, double holes) {
  std::uniform_int_distribution<int> value(0, distinct - 1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng) < holes ? std::numeric_limits<double>::quiet_NaN() : value(rng);
  return v;
}

// The w x h raster of 0 with a one-cell-wide wall of 1 spiralling in from its edge: one long corridor
// region (the GPU clump tests and check).
inline std::vector<double> spiral_wall(std::uint64_t w, std::uint64_t h) {
  std::vector<double> v(w * h, 0.0);
  std::int64_t x0 = 0, y0 = 0, x1 = static_cast<std::int64_t>(w) - 1, y1 = static_cast<std::int64_t>(h) - 1;
  const auto iw = static_cast<std::int64_t>(w);
  while (x0 <= x1 && y0 <= y1) {
    for (std::int64_t x = x0; x <= x1; ++x) v[y0 * iw + x] = 1;
    for (std::int64_t y = y0; y <= y1; ++y) v[y * iw + x1] = 1;
    if (y1 > y0) for (std::int64_t x = x0; x <= x1; ++x) v[y1 * iw + x] = 1;
    if (x1 > x0) for (std::int64_t y = y0 + 2; y <= y1; ++y) v[y * iw + x0] = 1;
    x0 += 2, y0 += 2, x1 -= 2, y1 -= 2;
  }
  return v;
}

// The w x h raster of `value` rows joined alternately at the right and left ends, nodata walls
// between: one region snaking through every row (the GPU clump tests and check).
inline std::vector<double> snake_corridor(std::uint64_t w, std::uint64_t h, double value) {
  std::vector<double> v(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x)
      v[y * w + x] = (y % 2 == 1 && !((y / 2) % 2 == 0 ? x == w - 1 : x == 0)) ? std::numeric_limits<double>::quiet_NaN()
                                                                                  : value;
  return v;
}

}  // namespace terrazo::testing
