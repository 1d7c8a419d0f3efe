// tests/gpu/test_resident_flowacc_gpu.cpp: the CUDA resident flow accumulation
// (kernels/flow/resident_flowacc.cu) against its CPU twin, bit for bit (values and stats), and
// against the whole-raster reference, on fresh random direction rasters (the seed is printed;
// TERRAZO_TEST_SEED reproduces a run): random forests with nodata holes and weights, 1 x N, odd
// sizes, a long single path, and codes with loops and values that are no code. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/support/gpu_test_support.h"
#include "tests/support/resident_flow_support.h"

namespace terrazo {
namespace {

void expect_same_stats(const ResidentFlowAccStats& gpu, const ResidentFlowAccStats& cpu, const std::string& what) {
  EXPECT_EQ(gpu.valid_cells, cpu.valid_cells) << what;
  EXPECT_EQ(gpu.outlets, cpu.outlets) << what;
  EXPECT_EQ(gpu.bad_codes, cpu.bad_codes) << what;
  EXPECT_EQ(gpu.bad_weights, cpu.bad_weights) << what;
  EXPECT_EQ(gpu.looped, cpu.looped) << what;
  EXPECT_EQ(gpu.overflow, cpu.overflow) << what;
  if (gpu.exact() && cpu.exact()) {
    EXPECT_EQ(gpu.largest, cpu.largest) << what;
  }
}

void expect_same_bits(const std::vector<double>& gpu, const std::vector<double>& cpu, const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  EXPECT_EQ(std::memcmp(gpu.data(), cpu.data(), gpu.size() * sizeof(double)), 0) << what;
}

TEST(GpuResidentFlowAcc, RandomForestsMatchTheCpuTwinAndTheReference) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 60; ++k) {
    const testing::ForestCase c = testing::random_forest_case(rng, seed, k, 50);
    const std::uint64_t w = c.w, h = c.h;
    const std::vector<double>& codes = c.codes;
    const bool weighted = k % 2 == 1;
    const double scale = k % 3 == 0 ? 1.0 : 1000.0;
    std::vector<std::int64_t> amount;
    const std::vector<double> weights = testing::random_flow_weights(rng, w * h, scale, amount);
    const std::vector<double>* wp = weighted ? &weights : nullptr;
    const double s = weighted ? scale : 1;
    const std::string what = c.what + (weighted ? " weighted" : "");
    const testing::ResidentFlowRun gpu = testing::run_resident_flowacc(Device::Cuda, codes, w, h, c.t, 1, wp, s);
    const testing::ResidentFlowRun cpu = testing::run_resident_flowacc(Device::Cpu, codes, w, h, c.t, 3, wp, s);
    ASSERT_TRUE(gpu.stats.exact()) << what;
    expect_same_stats(gpu.stats, cpu.stats, what);
    expect_same_bits(gpu.values, cpu.values, what);
    EXPECT_TRUE(testing::same_flow_bits(gpu.values, weighted ? testing::expected_flow_values(codes, w, h, amount, s)
                                                             : testing::expected_flow_values(codes, w, h)))
        << what;
    if (::testing::Test::HasFailure()) return;
  }
}

// One path through every cell of a raster (a serpentine): the longest walk a raster can hold.
TEST(GpuResidentFlowAcc, ASerpentineIsOneWalk) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t w = 1000, h = 1000;
  const std::vector<double> codes = testing::serpentine_codes(w, h);
  const testing::ResidentFlowRun gpu = testing::run_resident_flowacc(Device::Cuda, codes, w, h, 256, 1);
  ASSERT_TRUE(gpu.stats.exact());
  EXPECT_EQ(gpu.stats.largest, static_cast<std::int64_t>(w * h));
  EXPECT_EQ(gpu.stats.outlets, 1u);
  const std::vector<std::int64_t> acc = testing::reference_flowacc_linear(codes, w, h);  // the walks' reference is quadratic here
  std::vector<double> want(acc.begin(), acc.end());
  expect_same_bits(gpu.values, want, "serpentine");
}

// Codes of every kind: the same values that are no code and cells on loops as the twin (and the
// reference's counts); where there are none, the same values.
TEST(GpuResidentFlowAcc, BadCodesAndLoopsAreFoundAsTheTwinFindsThem) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0xf10aull);
  const testing::FaultTotals found = testing::check_gpu_any_codes(
      rng, seed, [](const std::vector<double>& codes, std::uint64_t w, std::uint64_t h, const std::string& what) {
        const testing::ResidentFlowRun gpu = testing::run_resident_flowacc(Device::Cuda, codes, w, h, 64, 1);
        const testing::ResidentFlowRun cpu = testing::run_resident_flowacc(Device::Cpu, codes, w, h, 64, 2);
        const testing::ExpectedFlowFaults e = testing::expected_flow_faults(codes, w, h);
        expect_same_stats(gpu.stats, cpu.stats, what);
        EXPECT_EQ(gpu.stats.looped, e.looped) << what;
        EXPECT_EQ(gpu.stats.bad_codes, e.bad) << what;
        if (gpu.stats.exact() && cpu.stats.exact()) expect_same_bits(gpu.values, cpu.values, what);
        return testing::FoundFaults{e.looped > 0, e.bad > 0, false};
      });
  if (::testing::Test::HasFailure()) return;
  EXPECT_GT(found.looped, 20u);
  EXPECT_GT(found.bad, 10u);
}

// Weights no fixed point holds and sums past int64: found on the GPU as on the twin.
TEST(GpuResidentFlowAcc, BadWeightsAndOverflowAreFound) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t w = 9, h = 3;
  const std::vector<double> codes(w * h, 1.0);
  std::vector<double> weights(w * h, 1.0);
  weights[13] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(testing::run_resident_flowacc(Device::Cuda, codes, w, h, 4, 1, &weights, 1).stats.bad_weights, 1u);
  weights[13] = 1;
  weights[10] = weights[11] = weights[12] = 4e18;
  const ResidentFlowAccStats s = testing::run_resident_flowacc(Device::Cuda, codes, w, h, 4, 1, &weights, 1).stats;
  EXPECT_TRUE(s.overflow);
  EXPECT_EQ(s.bad_weights + s.bad_codes + s.looped, 0u);
}

}  // namespace
}  // namespace terrazo
