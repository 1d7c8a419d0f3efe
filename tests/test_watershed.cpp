// tests/test_watershed.cpp: out-of-core drainage basins (engine/flow/watershed_phases.h, `terrazo
// watershed`) against the whole-raster reference of tests/support/flow_reference.h, label for
// label: random direction rasters from random DEMs and random forests, nodata holes, absent tiles,
// 1 x N and odd sizes, tiles of 8 to 128 dividing the raster or not, 1 to 4 threads; loops refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/flow/watershed_phases.h"
#include "kernels/common/error.h"
#include "tests/support/flow_reference.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

class MemorySink : public WatershedTileSink {
 public:
  MemorySink(std::uint64_t w, std::uint64_t h, std::uint32_t t) : w_(w), h_(h), t_(t), labels(w * h, 0xdeadbeef) {}
  void write_tile(std::uint32_t tx, std::uint32_t ty, const std::uint32_t* tile) override {
    EXPECT_EQ(std::uint64_t{ty} * ((w_ + t_ - 1) / t_) + tx, next_++) << "tiles out of row-major order";
    for (std::uint32_t y = 0; y < t_ && std::uint64_t{ty} * t_ + y < h_; ++y)
      for (std::uint32_t x = 0; x < t_ && std::uint64_t{tx} * t_ + x < w_; ++x)
        labels[(std::uint64_t{ty} * t_ + y) * w_ + std::uint64_t{tx} * t_ + x] = tile[std::size_t{y} * t_ + x];
  }
  std::uint64_t w_, h_;
  std::uint32_t t_;
  std::uint64_t next_ = 0;
  std::vector<std::uint32_t> labels;
};

std::vector<double> random_dem(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double holes) {
  std::uniform_real_distribution<double> unit(0, 1);
  const double fx = 0.05 + 0.3 * unit(rng), fy = 0.05 + 0.3 * unit(rng), steps = 2 + std::floor(30 * unit(rng));
  std::vector<double> dem(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x)
      dem[y * w + x] = std::round((std::sin(fx * x) * std::cos(fy * y) + 0.6 * unit(rng)) * steps) / steps;
  const int blobs = static_cast<int>(holes * w * h / 12);
  for (int b = 0; b < blobs; ++b) {
    const std::uint64_t cx = rng() % w, cy = rng() % h, r = 1 + rng() % 3;
    for (std::uint64_t y = cy >= r ? cy - r : 0; y <= cy + r && y < h; ++y)
      for (std::uint64_t x = cx >= r ? cx - r : 0; x <= cx + r && x < w; ++x) dem[y * w + x] = std::nan("");
  }
  return dem;
}

WatershedPhaseResult check(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h, std::uint32_t t,
                           unsigned threads, const std::string& what) {
  MemoryTileInput<double> input(codes, w, h, t);
  WatershedPhaseOptions o;
  o.threads = threads;
  MemoryBudget budget(256ull << 20);
  MemorySink sink(w, h, t);
  const WatershedPhaseResult r = run_watershed_phases(input, o, budget, Progress::silent(), sink);
  const std::vector<std::uint32_t> want = testing::reference_watershed(codes, w, h);
  std::uint64_t wrong = 0, first = 0, basins = 0;
  for (std::uint64_t i = 0; i < want.size(); ++i) {
    if (sink.labels[i] != want[i] && wrong++ == 0) first = i;
    basins = std::max<std::uint64_t>(basins, want[i]);
  }
  EXPECT_EQ(wrong, 0u) << what << ": first at (" << first % w << ", " << first / w << "): " << sink.labels[first]
                       << " for " << want[first];
  EXPECT_EQ(r.basins, basins) << what;
  EXPECT_EQ(budget.reserved(), 0u) << what;
  return r;
}

TEST(Watershed, RandomDemDirectionsMatchTheWholeRasterReference) {
  std::uint64_t spanning = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint32_t tiles[] = {8, 16, 32, 64};
    const std::uint64_t w = 1 + rng() % 100, h = 1 + rng() % 100;
    const std::uint32_t t = tiles[rng() % 4];
    const unsigned threads = 1 + static_cast<unsigned>(rng() % 3);
    std::vector<double> dem = random_dem(rng, w, h, seed % 3 == 0 ? 0.0 : 0.05 + 0.1 * (seed % 2));
    if (seed % 7 == 0)
      for (std::uint64_t y = t; y < std::min<std::uint64_t>(h, 2 * t); ++y)
        for (std::uint64_t x = 0; x < w; ++x) dem[y * w + x] = std::nan("");
    spanning += check(testing::reference_d8(dem, w, h), w, h, t, threads,
                      "seed " + std::to_string(seed) + " " + std::to_string(w) + " x " + std::to_string(h) + " tile " +
                          std::to_string(t))
                    .spanning_basins;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(spanning, 100u);  // basins cross tiles
}

TEST(Watershed, RandomForestsMatchTheWholeRasterReference) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint32_t tiles[] = {8, 16, 32};
    const std::uint64_t w = 1 + rng() % 80, h = 1 + rng() % 80;
    const std::uint32_t t = tiles[rng() % 3];
    const std::vector<double> codes = testing::random_d8_forest(rng, w, h, (seed % 4) * 0.05, (seed % 3) * 0.02);
    check(codes, w, h, t, 1 + static_cast<unsigned>(rng() % 3), "seed " + std::to_string(seed));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(Watershed, EveryTileSizeAndThreadCountGivesTheSameLabels) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> codes = testing::reference_d8(random_dem(rng, w, h, 0.08), w, h);
  for (std::uint32_t t : {8u, 16u, 32u, 64u, 128u})
    for (unsigned threads : {1u, 2u, 4u})
      check(codes, w, h, t, threads, "tile " + std::to_string(t) + " threads " + std::to_string(threads));
}

TEST(Watershed, ALoopAcrossTilesIsRefused) {
  const std::uint64_t w = 20, h = 12;
  std::vector<double> codes(w * h, 1.0);
  codes[2 * w + 7] = 1, codes[2 * w + 8] = 16;
  MemoryTileInput<double> input(codes, w, h, 8);
  MemoryBudget budget(64ull << 20);
  MemorySink sink(w, h, 8);
  try {
    run_watershed_phases(input, WatershedPhaseOptions{}, budget, Progress::silent(), sink);
    FAIL() << "a loop ran";
  } catch (const UsageError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "comes back to it across tiles")) << e.what();
  }
}

}  // namespace
}  // namespace terrazo
