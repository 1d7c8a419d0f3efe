// tests/gpu/test_resident_watershed_gpu.cpp: the CUDA resident watershed labelling
// (kernels/flow/resident_watershed.cu) against its CPU twin, bit for bit, and the whole-raster
// reference, on fresh random direction rasters (the seed is printed; TERRAZO_TEST_SEED reproduces a
// run): random forests with nodata holes, 1 x N, odd sizes, rasters of many chunks, a serpentine of
// one path, and codes with loops and values that are no code. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/support/gpu_test_support.h"
#include "tests/support/resident_flow_support.h"

namespace terrazo {
namespace {

TEST(GpuResidentWatershed, RandomForestsMatchTheCpuTwinAndTheReference) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0xba5177ull);
  for (int k = 0; k < 50; ++k) {
    const testing::ForestCase c = testing::random_forest_case(rng, seed, k, 40);
    const testing::ResidentBasinRun gpu = testing::run_resident_watershed(Device::Cuda, c.codes, c.w, c.h, c.t, 1);
    const testing::ResidentBasinRun cpu = testing::run_resident_watershed(Device::Cpu, c.codes, c.w, c.h, c.t, 3);
    ASSERT_TRUE(gpu.stats.exact()) << c.what;
    EXPECT_EQ(gpu.stats.valid_cells, cpu.stats.valid_cells) << c.what;
    EXPECT_EQ(gpu.stats.basins, cpu.stats.basins) << c.what;
    EXPECT_EQ(gpu.labels, cpu.labels) << c.what;
    EXPECT_EQ(gpu.labels, testing::reference_watershed(c.codes, c.w, c.h)) << c.what;
    if (::testing::Test::HasFailure()) return;
  }
}

// One path through every cell (a serpentine, 1000 x 1000: 16 chunks of the ranking, 21 rounds of
// jumping at most): one basin.
TEST(GpuResidentWatershed, ASerpentineIsOneBasin) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t w = 1000, h = 1000;
  const std::vector<double> codes = testing::serpentine_codes(w, h);
  const testing::ResidentBasinRun gpu = testing::run_resident_watershed(Device::Cuda, codes, w, h, 256, 1);
  ASSERT_TRUE(gpu.stats.exact());
  EXPECT_EQ(gpu.stats.basins, 1u);
  EXPECT_TRUE(std::all_of(gpu.labels.begin(), gpu.labels.end(), [](std::uint32_t l) { return l == 1; }));
}

TEST(GpuResidentWatershed, BadCodesAndLoopsAreFoundAsTheTwinFindsThem) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0x100b5ull);
  const testing::FaultTotals found = testing::check_gpu_any_codes(
      rng, seed, [](const std::vector<double>& codes, std::uint64_t w, std::uint64_t h, const std::string& what) {
        const testing::ResidentBasinRun gpu = testing::run_resident_watershed(Device::Cuda, codes, w, h, 64, 1);
        const testing::ResidentBasinRun cpu = testing::run_resident_watershed(Device::Cpu, codes, w, h, 64, 2);
        EXPECT_EQ(gpu.stats.bad_codes, cpu.stats.bad_codes) << what;
        EXPECT_EQ(gpu.stats.looped, cpu.stats.looped) << what;
        EXPECT_EQ(gpu.stats.looped, testing::expected_basin_looped(codes, w, h)) << what;
        if (gpu.stats.exact() && cpu.stats.exact()) {
          EXPECT_EQ(gpu.labels, cpu.labels) << what;
        }
        return testing::FoundFaults{gpu.stats.looped > 0, gpu.stats.bad_codes > 0, false};
      });
  if (::testing::Test::HasFailure()) return;
  EXPECT_GT(found.looped, 20u);
}

}  // namespace
}  // namespace terrazo
