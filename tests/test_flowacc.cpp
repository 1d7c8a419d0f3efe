// tests/test_flowacc.cpp: out-of-core flow accumulation (engine/flow/flowacc_phases.h, `terrazo
// flowacc`) against the whole-raster references of tests/support/flow_reference.h, exactly: random
// direction rasters from random DEMs (steepest descent, flats drained by a fixed rule) and random
// forests of directions, nodata holes, absent tiles, 1 x N and odd sizes, tiles of 8 to 64 dividing
// the raster or not, 1 to 3 threads; weights with nodata; loops and bad codes refused; the plan's
// refusal before any work; the shipped DEMs by the command's parser and entry point.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/flow/flowacc_phases.h"
#include "kernels/common/error.h"
#include "tests/support/flow_reference.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

class MemorySink : public FlowAccTileSink {
 public:
  MemorySink(std::uint64_t w, std::uint64_t h, std::uint32_t t) : w_(w), h_(h), t_(t), cells(w * h, -12345.0) {}
  void write_tile(std::uint32_t tx, std::uint32_t ty, const double* tile) override {
    EXPECT_EQ(std::uint64_t{ty} * ((w_ + t_ - 1) / t_) + tx, next_++) << "tiles out of row-major order";
    for (std::uint32_t y = 0; y < t_ && std::uint64_t{ty} * t_ + y < h_; ++y)
      for (std::uint32_t x = 0; x < t_ && std::uint64_t{tx} * t_ + x < w_; ++x)
        cells[(std::uint64_t{ty} * t_ + y) * w_ + std::uint64_t{tx} * t_ + x] = tile[std::size_t{y} * t_ + x];
  }
  std::uint64_t w_, h_;
  std::uint32_t t_;
  std::uint64_t next_ = 0;
  std::vector<double> cells;
};

// A DEM with flats (few distinct values) and nodata blobs, as the fill tests make.
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

struct Case {
  std::uint64_t w, h;
  std::uint32_t t;
  unsigned threads;
};

std::string name(const Case& c) {
  return std::to_string(c.w) + " x " + std::to_string(c.h) + " tile " + std::to_string(c.t) + " threads " +
         std::to_string(c.threads);
}

FlowAccPhaseResult run_case(const std::vector<double>& codes, const Case& c, std::vector<double>& out,
                            const std::vector<double>* weights = nullptr, double scale = 1,
                            std::uint64_t budget_bytes = 256ull << 20) {
  MemoryTileInput<double> input(codes, c.w, c.h, c.t);
  std::unique_ptr<MemoryTileInput<double>> weight_input;
  if (weights) weight_input = std::make_unique<MemoryTileInput<double>>(*weights, c.w, c.h, c.t, MemoryTileInput<double>::Absent::Never);
  FlowAccPhaseOptions o;
  o.threads = c.threads;
  o.scale = scale;
  MemoryBudget budget(budget_bytes);
  MemorySink sink(c.w, c.h, c.t);
  const FlowAccPhaseResult r = run_flowacc_phases(input, weight_input.get(), o, budget, Progress::silent(), sink);
  EXPECT_EQ(budget.reserved(), 0u);
  out = sink.cells;
  return r;
}

// The phases' counts equal the reference's at every valid cell and are NaN at nodata.
FlowAccPhaseResult check_counts(const std::vector<double>& codes, const Case& c, const std::string& what) {
  std::vector<double> got;
  const FlowAccPhaseResult r = run_case(codes, c, got);
  const std::vector<std::int64_t> want = testing::reference_flowacc(codes, c.w, c.h);
  std::uint64_t wrong = 0, first = 0, valid = 0, outlets = 0;
  for (std::uint64_t i = 0; i < want.size(); ++i) {
    const bool is_valid = testing::reference_valid(codes[i]);
    valid += is_valid;
    outlets += is_valid && testing::reference_downstream(codes, c.w, c.h, i) < 0;
    const bool ok = is_valid ? got[i] == static_cast<double>(want[i]) : std::isnan(got[i]);
    if (!ok && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0u) << what << ": first at (" << first % c.w << ", " << first / c.w << "): " << got[first]
                       << " for " << want[first];
  EXPECT_EQ(r.valid_cells, valid) << what;
  EXPECT_EQ(r.outlets, outlets) << what;
  return r;
}

TEST(FlowAcc, RandomDemDirectionsMatchTheWholeRasterReference) {
  std::uint64_t exits = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint32_t tiles[] = {8, 16, 32, 64};
    const Case c{1 + rng() % 100, 1 + rng() % 100, tiles[rng() % 4], 1 + static_cast<unsigned>(rng() % 3)};
    std::vector<double> dem = random_dem(rng, c.w, c.h, seed % 3 == 0 ? 0.0 : 0.05 + 0.1 * (seed % 2));
    if (seed % 7 == 0)  // a band of nodata across a row of tiles: absent tiles between present ones
      for (std::uint64_t y = c.t; y < std::min<std::uint64_t>(c.h, 2 * c.t); ++y)
        for (std::uint64_t x = 0; x < c.w; ++x) dem[y * c.w + x] = std::nan("");
    exits += check_counts(testing::reference_d8(dem, c.w, c.h), c, "seed " + std::to_string(seed) + " " + name(c)).exits;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(exits, 1000u);  // the flow crosses tiles
}

TEST(FlowAcc, RandomForestsMatchTheWholeRasterReference) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint32_t tiles[] = {8, 16, 32};
    const Case c{1 + rng() % 80, 1 + rng() % 80, tiles[rng() % 3], 1 + static_cast<unsigned>(rng() % 3)};
    const std::vector<double> codes = testing::random_d8_forest(rng, c.w, c.h, (seed % 4) * 0.05, (seed % 3) * 0.02);
    check_counts(codes, c, "seed " + std::to_string(seed) + " " + name(c));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(FlowAcc, TheTwoReferencesAgree) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint64_t w = 1 + rng() % 60, h = 1 + rng() % 60;
    const std::vector<double> codes = testing::reference_d8(random_dem(rng, w, h, 0.1), w, h);
    EXPECT_EQ(testing::reference_flowacc(codes, w, h), testing::reference_flowacc_linear(codes, w, h)) << seed;
  }
}

// The same raster at every tile size and thread count: the same values.
TEST(FlowAcc, EveryTileSizeAndThreadCountGivesTheSameValues) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> codes = testing::reference_d8(random_dem(rng, w, h, 0.08), w, h);
  for (std::uint32_t t : {8u, 16u, 32u, 64u, 128u, 256u})
    for (unsigned threads : {1u, 2u, 4u}) check_counts(codes, Case{w, h, t, threads}, name(Case{w, h, t, threads}));
}

}  // namespace
}  // namespace terrazo
