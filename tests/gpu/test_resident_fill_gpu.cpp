// tests/gpu/test_resident_fill_gpu.cpp: the CUDA resident fill (kernels/flow/resident_fill.cu) against
// its CPU twin, bit for bit with the same counts and rounds, and against the whole-raster
// Priority-Flood (tests/support/fill_reference.h) on fresh random rasters (the seed is printed;
// TERRAZO_TEST_SEED reproduces a run). Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/flow/resident_fill.h"
#include "tests/support/fill_reference.h"
#include "tests/support/gpu_test_support.h"
#include "tests/support/resident_fill_run.h"

namespace terrazo {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

// A w x h crop of a random pattern (plateaus, pits, nodata holes and walls), some cells -0 and +0.
std::vector<double> random_raster(std::uint64_t w, std::uint64_t h, std::mt19937_64& rng, std::string* name) {
  const auto side = static_cast<std::uint32_t>(std::max(w, h));
  gpu_testing::TileSpec spec = gpu_testing::random_spec(side, rng);
  spec.negative = rng() % 3 == 0;
  *name = gpu_testing::pattern_name(spec.pattern);
  const std::vector<double> square = gpu_testing::random_values(spec, rng);
  std::vector<double> dem(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) dem[y * w + x] = square[y * side + x];
  for (double& v : dem)
    if (rng() % 50 == 0) v = rng() % 2 ? 0.0 : -0.0;
  return dem;
}

TEST(GpuResidentFill, RandomRastersMatchCpuTwinAndOracle) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0xf111ull);
  const std::uint64_t sizes[] = {1, 2, 7, 33, 64, 100, 257, 500};
  const std::uint32_t gs[] = {2, 3, 8, 16, 31, 32, 64};
  std::uint64_t raised = 0, rounds = 0;
  for (int k = 0; k < 80; ++k) {
    ResidentFillOptions o;
    o.width = sizes[rng() % 8];
    o.height = sizes[rng() % 8];
    o.g = gs[rng() % 7];
    o.connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    const int outlets = static_cast<int>(rng() % 3);  // both, edge, nodata
    o.edge_outlets = outlets != 2;
    o.nodata_outlets = outlets != 1;
    o.batch_tiles = rng() % 2 ? 1 + rng() % 4 : 8;  // at most 8: the CPU twin on 2 threads groups alike
    o.round_tiles = rng() % 2 ? 1 + rng() % 3 : 2048;
    std::string pattern;
    const std::vector<double> dem = random_raster(o.width, o.height, rng, &pattern);
    const std::string what = "seed " + std::to_string(seed) + " case " + std::to_string(k) + ": " +
                             std::to_string(o.width) + " x " + std::to_string(o.height) + " g " + std::to_string(o.g) +
                             " " + pattern + " outlets " + std::to_string(outlets) + " " +
                             std::to_string(static_cast<int>(o.connectivity)) + " neighbours";
    ResidentFillStats gpu_stats, cpu_stats;
    ResidentFillCounts gpu_counts, cpu_counts;
    const auto gpu = testing::run_resident_fill(Device::Cuda, o, dem, 2, &gpu_stats, &gpu_counts);
    const auto cpu = testing::run_resident_fill(Device::Cpu, o, dem, 2, &cpu_stats, &cpu_counts);
    const auto want = testing::reference_fill(dem, o.width, o.height, o.connectivity == Connectivity::Eight,
                                              o.edge_outlets, o.nodata_outlets);
    for (std::uint64_t i = 0; i < dem.size(); ++i) {
      ASSERT_EQ(std::memcmp(&gpu[i], &cpu[i], sizeof(double)), 0) << what << " cell " << i % o.width << "," << i / o.width;
      ASSERT_TRUE(same_bits(gpu[i], want[i])) << what << " cell " << i % o.width << "," << i / o.width << ": "
                                              << gpu[i] << ", want " << want[i];
    }
    testing::expect_same_counts(gpu_counts, cpu_counts, what);
    testing::expect_same_schedule(gpu_stats, cpu_stats, what);
    raised += gpu_counts.raised;
    rounds += gpu_stats.rounds;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(raised, 1000u);
  EXPECT_GT(rounds, 80u);
}

// One larger raster, many tiles and wide rounds: the CPU twin's bits, and a tile side beyond the
// device's shared memory refused with a message naming it.
TEST(GpuResidentFill, LargeRasterMatchesCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0xb16ull);
  ResidentFillOptions o;
  o.width = 1500 + rng() % 500;
  o.height = 1200 + rng() % 500;
  o.g = 64;
  std::string pattern;
  const std::vector<double> dem = random_raster(o.width, o.height, rng, &pattern);
  ResidentFillStats gpu_stats, cpu_stats;
  ResidentFillCounts gpu_counts, cpu_counts;
  o.batch_tiles = 8;
  const auto gpu = testing::run_resident_fill(Device::Cuda, o, dem, 2, &gpu_stats, &gpu_counts);
  const auto cpu = testing::run_resident_fill(Device::Cpu, o, dem, 2, &cpu_stats, &cpu_counts);
  const std::string what = "seed " + std::to_string(seed) + " " + std::to_string(o.width) + " x " + std::to_string(o.height) + " " + pattern;
  ASSERT_EQ(std::memcmp(gpu.data(), cpu.data(), gpu.size() * sizeof(double)), 0) << what;
  EXPECT_EQ(gpu_stats.solves, cpu_stats.solves) << what;
  EXPECT_EQ(gpu_counts.raised, cpu_counts.raised) << what;
  o.g = 4096;
  EXPECT_THROW(testing::run_resident_fill(Device::Cuda, o, dem, 2, &gpu_stats, &gpu_counts), Error);
}

}  // namespace
}  // namespace terrazo
