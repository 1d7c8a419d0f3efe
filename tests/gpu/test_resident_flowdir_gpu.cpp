// tests/gpu/test_resident_flowdir_gpu.cpp: the CUDA resident flow directions
// (kernels/flow/resident_flowdir.cu) against its CPU twin, bit for bit with the same counts, and
// against the whole-raster oracle (tests/support/flowdir_reference.h), on fresh random rasters (the
// seed is printed; TERRAZO_TEST_SEED reproduces a run): quantised terrain with wide flats and
// terraces, filled by the fill oracle or left with pits, nodata holes, -0, +0 and infinities, 1 x N,
// odd sizes, BFS tiles of 2 to 64, every outlet mode; a serpentine flat (many rounds); a large filled
// raster whose flats cross many tiles. Skips without a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/support/fill_reference.h"
#include "tests/support/flowdir_reference.h"
#include "tests/support/gpu_test_support.h"
#include "tests/support/resident_flowdir_run.h"

namespace terrazo {
namespace {

// CUDA and the twin on `dem`: the same codes and counts; the oracle's codes when `oracle`.
void expect_twins_agree(const std::vector<double>& dem, std::uint64_t w, std::uint64_t h,
                        const testing::ResidentFlowdirCase& c, bool oracle, const std::string& what) {
  const testing::ResidentFlowdirRun gpu = testing::run_resident_flowdir(Device::Cuda, dem, w, h, c);
  const testing::ResidentFlowdirRun cpu = testing::run_resident_flowdir(Device::Cpu, dem, w, h, c);
  testing::expect_same_flowdir_counts(gpu.stats, cpu.stats, what);
  std::uint64_t wrong = 0, first = 0;
  for (std::uint64_t i = 0; i < w * h; ++i)
    if (gpu.codes[i] != cpu.codes[i] && wrong++ == 0) first = i;
  EXPECT_EQ(wrong, 0u) << what << ": first at (" << first % w << ", " << first / w << "): GPU "
                       << int{gpu.codes[first]} << ", CPU " << int{cpu.codes[first]};
  if (oracle) {
    const testing::ReferenceFlowdir want = testing::reference_flowdir(dem, w, h, c.edge, c.nodata);
    EXPECT_TRUE(gpu.codes == want.codes) << what << ": the oracle's codes differ";
    EXPECT_EQ(gpu.stats.flats, want.flats) << what;
  }
}

TEST(GpuResidentFlowdir, RandomRastersMatchTheCpuTwinAndTheOracle) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0xd1f1a7ull);
  const std::uint32_t gs[] = {2, 5, 16, 33, 64}, ts[] = {8, 64, 256};
  for (int k = 0; k < 60; ++k) {
    const std::uint64_t side = k < 45 ? 300 : 1500;
    const std::uint64_t w = k % 10 == 0 ? 1 : 1 + rng() % side, h = k % 10 == 1 ? 1 : 1 + rng() % side;
    testing::ResidentFlowdirCase c;
    c.g = gs[rng() % 5];
    c.t = ts[rng() % 3];
    c.threads = 3;
    const int outlets = static_cast<int>(rng() % 4);
    c.edge = outlets != 3;
    c.nodata = outlets != 2;
    std::vector<double> dem = testing::random_flat_terrain(rng, w, h, k % 3 == 0 ? 0.0 : 0.03, 3 + static_cast<int>(rng() % 10));
    const bool filled = k % 4 != 3;
    if (filled) dem = testing::reference_fill(dem, w, h, true, c.edge, c.nodata);
    const std::string what = "seed " + std::to_string(seed) + " case " + std::to_string(k) + ": " + std::to_string(w) +
                             " x " + std::to_string(h) + " g " + std::to_string(c.g) + (filled ? " filled" : " unfilled");
    expect_twins_agree(dem, w, h, c, side == 300, what);
    if (::testing::Test::HasFailure()) return;
  }
}

// A corridor through the whole raster: a BFS of ~w * h / 4 steps, many rounds of tiles.
TEST(GpuResidentFlowdir, ASerpentineFlatMatchesTheCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  for (std::uint32_t g : {8u, 64u}) {
    testing::ResidentFlowdirCase c;
    c.g = g;
    c.t = 256;
    c.edge = false;
    expect_twins_agree(testing::serpentine_flat(600, 500), 600, 500, c, true, "serpentine g " + std::to_string(g));
  }
}

// 3000 x 2000 cells, filled: lakes and terraces across many 64 x 64 tiles.
TEST(GpuResidentFlowdir, ALargeFilledRasterMatchesTheCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0x1a4ull);
  const std::uint64_t w = 3000, h = 2000;
  const std::vector<double> dem = testing::reference_fill(testing::random_flat_terrain(rng, w, h, 0.01, 6), w, h, true, true, true);
  testing::ResidentFlowdirCase c;
  c.t = 256;
  c.threads = 4;
  expect_twins_agree(dem, w, h, c, false, "seed " + std::to_string(seed) + ": 3000 x 2000 filled");
}

}  // namespace
}  // namespace terrazo
