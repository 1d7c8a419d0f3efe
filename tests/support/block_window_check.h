// tests/support/block_window_check.h: one block solve of block_sssp_cpu against the reference, on a
// (t+2)^2 window with random seeds (the cost-model tests: tests/test_cost_models.cpp, tests/test_walk.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/sssp/block_sssp.h"

namespace terrazo::testing {

// Initial labels of an s x s window: each halo cell seeded with probability 0.3, each interior cell
// with 0.02, at a label below `spread`; the rest unreached.
inline std::vector<PathLength> random_window_seeds(std::mt19937_64& rng, std::uint32_t s, std::uint64_t spread) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<PathLength> dist(static_cast<std::size_t>(s) * s, kUnreached);
  for (std::uint32_t y = 0; y < s; ++y)
    for (std::uint32_t x = 0; x < s; ++x) {
      const bool halo = x == 0 || y == 0 || x == s - 1 || y == s - 1;
      if (unit(rng) < (halo ? 0.3 : 0.02)) dist[static_cast<std::size_t>(y) * s + x] = rng() % spread;
    }
  return dist;
}

// block_sssp_cpu on the window `values` from the labels `dist`: no overflow, and every interior cell's
// distance equal to `want`'s (the reference's on the same window); failures name `seed` and the cell.
inline void expect_block_matches(const double* values, std::uint32_t t, const WeightParams& params,
                                 Connectivity connectivity, std::vector<PathLength> dist,
                                 const std::vector<PathLength>& want, std::uint64_t seed) {
  const std::uint32_t s = t + 2;
  std::vector<std::uint8_t> changed(static_cast<std::size_t>(t) * t);
  bool overflow = false;
  block_sssp_cpu(values, t, params, connectivity, kUnreached, dist.data(), changed.data(), &overflow);
  ASSERT_FALSE(overflow);
  for (std::uint32_t y = 1; y <= t; ++y)
    for (std::uint32_t x = 1; x <= t; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * s + x;
      ASSERT_EQ(dist[i], want[i]) << "seed " << seed << " cell " << x << "," << y;
    }
}

}  // namespace terrazo::testing
