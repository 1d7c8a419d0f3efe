// tests/gpu/test_walk_gpu.cpp: the CUDA SSSP solvers with the directed models (sssp --model walk and
// tobler, both --direction values: kernels/common/edge_weight.h, 8 planes of pull weights in
// kernels/sssp/block_sssp.cu) against their CPU twins bit for bit: the streamed batch solver, the
// one-shot block_sssp_cuda and the resident solver (tobler also checks exp_portable on the device).
// Skips without a GPU. A failure prints the run's seed; TERRAZO_TEST_SEED=<seed> reproduces it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/worker_pool.h"
#include "kernels/common/cuda_device.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/sssp/resident_sssp.h"
#include "tests/support/gpu_test_support.h"

namespace terrazo {
namespace {

// Walk or tobler on 30 x 20 m cells (map units), random coefficients within the allowed range.
WeightParams walk_params(std::mt19937_64& rng) {
  WeightParams p;
  p.model = rng() % 2 ? WeightModel::Walk : WeightModel::Tobler;
  p.scale = 1000.0;
  p.steps.ew = 30.0;
  p.steps.ns = 20.0;
  p.steps.diag = std::sqrt(1300.0);
  p.steps.min_length = 20.0;
  p.steps.max_length = p.steps.diag;
  p.walk.lambda = (rng() % 3) * 0.5;
  p.walk.reverse = rng() % 2 == 0;
  return p;
}

// Packed cells: elevations 0..60 m in steps of 0.5 (slopes up to 3), frictions 0..2, 8% nodata.
std::vector<double> walk_cells(std::mt19937_64& rng, std::uint64_t n) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v)
    x = unit(rng) < 0.08 ? std::numeric_limits<double>::quiet_NaN()
                         : pack_walk_cell(static_cast<float>(std::floor(unit(rng) * 120) * 0.5),
                                          static_cast<float>(std::floor(unit(rng) * 8) * 0.25));
  return v;
}

std::string describe(const WeightParams& p) {
  return std::string(to_string(p.model)) + (p.walk.reverse ? " to" : " from") + " lambda " + std::to_string(p.walk.lambda);
}

TEST(GpuWalk, BatchSolverMatchesCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::mt19937_64 rng(gpu_testing::run_seed() + 31);
  for (const std::uint32_t t : {8u, 16u, 64u, 128u, 8u, 32u}) {
    const WeightParams params = walk_params(rng);
    const Connectivity connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    SCOPED_TRACE("t " + std::to_string(t) + " " + describe(params));
    const std::uint64_t grid = static_cast<std::uint64_t>(t + 2) * (t + 2);
    const std::uint64_t count = 9;
    const std::vector<double> values = walk_cells(rng, count * grid);
    std::vector<PathLength> dist_in;
    for (std::uint64_t k = 0; k < count; ++k) {
      const auto d = gpu_testing::random_seeds(t, rng, 500000);
      dist_in.insert(dist_in.end(), d.begin(), d.end());
    }
    const std::vector<std::int64_t> row0(count, 0);
    gpu_testing::expect_streamed_sssp_matches_cpu(gpu_testing::four_tile_batches(t, params, connectivity), kUnreached,
                                                  values, dist_in, row0);
  }
}

TEST(GpuWalk, OneShotMatchesCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::mt19937_64 rng(gpu_testing::run_seed() + 32);
  for (int k = 0; k < 16; ++k) {
    const std::uint32_t t = 4u << (k % 5);  // 4..64
    const WeightParams params = walk_params(rng);
    const Connectivity connectivity = k % 4 == 3 ? Connectivity::Four : Connectivity::Eight;
    const std::vector<double> values = walk_cells(rng, static_cast<std::uint64_t>(t + 2) * (t + 2));
    std::vector<PathLength> gpu = gpu_testing::random_seeds(t, rng, 500000), cpu = gpu;
    std::vector<std::uint8_t> gpu_changed(static_cast<std::size_t>(t) * t), cpu_changed(gpu_changed.size());
    bool gpu_overflow = false, cpu_overflow = false;
    block_sssp_cuda(values.data(), 1, t, params, connectivity, kUnreached, gpu.data(), gpu_changed.data(), &gpu_overflow);
    block_sssp_cpu(values.data(), t, params, connectivity, kUnreached, cpu.data(), cpu_changed.data(), &cpu_overflow);
    ASSERT_FALSE(gpu_overflow);
    ASSERT_FALSE(cpu_overflow);
    ASSERT_EQ(gpu, cpu) << "case " << k << " " << describe(params);
    ASSERT_EQ(gpu_changed, cpu_changed) << "case " << k << " " << describe(params);
  }
}

TEST(GpuWalk, ResidentMatchesCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::mt19937_64 rng(gpu_testing::run_seed() + 33);
  for (int k = 0; k < 12; ++k) {
    const std::uint64_t w = 30 + rng() % 250, h = 30 + rng() % 250;
    ResidentSsspOptions o;
    o.width = w;
    o.height = h;
    o.g = 8u << (rng() % 4);
    o.params = walk_params(rng);
    o.connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    o.batch_tiles = rng() % 2 ? 3 : 4096;
    o.round_tiles = rng() % 2 ? 2 : 2048;
    const std::vector<double> values = walk_cells(rng, w * h);
    std::vector<std::uint64_t> sources;
    for (int s = 0; s < 3; ++s) {
      const std::uint64_t cell = rng() % (w * h);
      if (values[cell] == values[cell]) sources.push_back(cell);
    }
    const std::string what = "case " + std::to_string(k) + " " + std::to_string(w) + " x " + std::to_string(h) + " g " +
                             std::to_string(o.g) + " " + describe(o.params);
    const auto gpu = gpu_testing::run_resident(Device::Cuda, o, values, sources);
    const auto cpu = gpu_testing::run_resident(Device::Cpu, o, values, sources);
    for (std::uint64_t i = 0; i < gpu.size(); ++i) ASSERT_EQ(gpu[i], cpu[i]) << what << " cell " << i % w << "," << i / w;
  }
}

}  // namespace
}  // namespace terrazo
