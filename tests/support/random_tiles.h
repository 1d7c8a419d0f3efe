// tests/support/random_tiles.h: random tiles and rasters for the block-solver suites
// (test_block_mst.cpp, test_block_reduce.cpp): continuous, tied, flat and negative values, holes.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/common/edge_weight.h"
#include "kernels/common/tile_geometry.h"
#include "tests/support/mst_reference.h"

namespace terrazo::testing {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Random rasters of several characters: continuous, few distinct values (ties), constant, with holes.
inline std::vector<double> random_raster(std::mt19937_64& rng, std::uint64_t width, std::uint64_t height, int flavour,
                                  double hole_fraction) {
  std::vector<double> values(width * height);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double constant = std::floor(uniform(rng) * 100.0);
  for (double& v : values) {
    switch (flavour % 4) {
      case 0: v = uniform(rng) * 1000.0; break;              // continuous
      case 1: v = std::floor(uniform(rng) * 4.0); break;     // heavy ties
      case 2: v = constant; break;                           // flat
      default: v = std::floor(uniform(rng) * 200.0) - 100.0; break;  // negative values
    }
    if (uniform(rng) < hole_fraction) v = kNaN;
  }
  return values;
}

inline WeightParams params_for(int model, const std::vector<double>& values) {
  WeightParams p;
  p.model = static_cast<WeightModel>(model);
  double lo = 0.0;
  for (double v : values)
    if (v == v) lo = std::min(lo, v);
  if (p.model == WeightModel::Max) p.offset = lo;
  if (p.model == WeightModel::Friction) p.offset = 0.0;
  p.scale = 100.0;
  return p;
}

// Friction needs non-negative costs.
inline void make_costs(std::vector<double>& values) {
  for (double& v : values)
    if (v == v) v = std::fabs(v);
}

inline std::uint32_t neighbour(std::uint32_t l, int dir, std::uint32_t t) {
  return l + static_cast<std::uint32_t>(kDirDy[dir]) * t + static_cast<std::uint32_t>(kDirDx[dir]);
}

inline bool on_boundary(std::uint32_t l, std::uint32_t t) {
  const std::uint32_t x = l % t, y = l / t;
  return x == 0 || y == 0 || x == t - 1 || y == t - 1;
}

struct TileCase {
  std::uint32_t t;
  std::vector<double> values;
  WeightParams params;
  Connectivity connectivity;
};

inline TileCase random_tile(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  static constexpr std::uint32_t kSizes[] = {1, 2, 4, 8, 16, 32, 64};
  TileCase c;
  c.t = kSizes[rng() % 7];
  const double holes = (rng() % 3 == 0) ? 0.0 : (rng() % 2 ? 0.1 : 0.45);
  c.values = random_raster(rng, c.t, c.t, static_cast<int>(rng() % 4), holes);
  const int model = static_cast<int>(rng() % 3);
  if (model == 2) make_costs(c.values);
  c.params = params_for(model, c.values);
  c.connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;
  return c;
}


}  // namespace terrazo::testing
