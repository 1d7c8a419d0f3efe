// tests/gpu/test_cost_models_gpu.cpp: the CUDA SSSP solvers with per-row step lengths (sssp
// --distance geodesic: kernels/common/edge_weight.h StepLengths, a device copy of the table and a
// row origin per tile) and the unit and geometric models, against their CPU twins bit for bit:
// the streamed batch solver (per-tile row origins through row0()), the one-shot block_sssp_cuda,
// and the resident solver (windows' row origins computed on the device). Skips without a GPU.
// A failure prints the run's seed; TERRAZO_TEST_SEED=<seed> reproduces it.
#include <gtest/gtest.h>

#include <algorithm>
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

// Lengths like a lon/lat grid's: east-west shrinking with the row, north-south nearly constant.
std::vector<double> random_table(std::mt19937_64& rng, std::int64_t rows) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> table(3 * rows);
  for (std::int64_t y = 0; y < rows; ++y) {
    table[3 * y] = 10.0 + 60.0 * unit(rng);
    table[3 * y + 1] = 90.0 + 3.0 * unit(rng);
    table[3 * y + 2] = std::sqrt(table[3 * y] * table[3 * y] + table[3 * y + 1] * table[3 * y + 1]);
  }
  return table;
}

WeightParams table_params(std::mt19937_64& rng, const std::vector<double>& table) {
  WeightParams p;
  const int pick = static_cast<int>(rng() % 3);
  p.model = pick == 0 ? WeightModel::Friction : pick == 1 ? WeightModel::Geometric : WeightModel::Unit;
  p.scale = p.model == WeightModel::Unit ? 1.0 : 1000.0;
  p.steps.rows = table.data();
  p.steps.row_count = static_cast<std::int64_t>(table.size() / 3);
  p.steps.min_length = *std::min_element(table.begin(), table.end());
  p.steps.max_length = *std::max_element(table.begin(), table.end());
  return p;
}

std::vector<double> random_window(std::mt19937_64& rng, std::uint32_t t) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(t + 2) * (t + 2));
  for (double& x : v) x = unit(rng) < 0.08 ? std::numeric_limits<double>::quiet_NaN() : 1.0 + std::floor(unit(rng) * 30);
  return v;
}

TEST(GpuCostModels, BatchSolverWithRowTableMatchesCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed() + 21;
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::mt19937_64 rng(seed);
  for (const std::uint32_t t : {8u, 16u, 64u, 128u}) {
    const std::int64_t rows = 600;
    const std::vector<double> table = random_table(rng, rows);
    const WeightParams params = table_params(rng, table);
    const Connectivity connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    SCOPED_TRACE("t " + std::to_string(t) + " " + to_string(params.model));
    const std::uint64_t count = 9;
    std::vector<double> values;
    std::vector<PathLength> dist_in;
    std::vector<std::int64_t> row0(count);
    for (std::uint64_t k = 0; k < count; ++k) {
      const auto v = random_window(rng, t);
      values.insert(values.end(), v.begin(), v.end());
      const auto d = gpu_testing::random_seeds(t, rng, 50000);
      dist_in.insert(dist_in.end(), d.begin(), d.end());
      row0[k] = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows + 4)) - 2;  // edges clamp
    }
    gpu_testing::expect_streamed_sssp_matches_cpu(gpu_testing::four_tile_batches(t, params, connectivity), kUnreached,
                                                  values, dist_in, row0);
  }
}

TEST(GpuCostModels, OneShotWithRowTableMatchesCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::mt19937_64 rng(gpu_testing::run_seed() + 22);
  for (int k = 0; k < 12; ++k) {
    const std::uint32_t t = 16u << (k % 3);
    const std::vector<double> table = random_table(rng, 300);
    WeightParams params = table_params(rng, table);
    params.steps.row0 = static_cast<std::int64_t>(rng() % 250);
    const std::vector<double> values = random_window(rng, t);
    std::vector<PathLength> gpu = gpu_testing::random_seeds(t, rng, 50000), cpu = gpu;
    std::vector<std::uint8_t> gpu_changed(static_cast<std::size_t>(t) * t), cpu_changed(gpu_changed.size());
    bool gpu_overflow = false, cpu_overflow = false;
    block_sssp_cuda(values.data(), 1, t, params, Connectivity::Eight, kUnreached, gpu.data(), gpu_changed.data(),
                    &gpu_overflow);
    block_sssp_cpu(values.data(), t, params, Connectivity::Eight, kUnreached, cpu.data(), cpu_changed.data(),
                   &cpu_overflow);
    ASSERT_EQ(gpu_overflow, cpu_overflow);
    ASSERT_EQ(gpu, cpu) << "case " << k;
    ASSERT_EQ(gpu_changed, cpu_changed) << "case " << k;
  }
}

TEST(GpuCostModels, ResidentWithRowTableMatchesCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::mt19937_64 rng(gpu_testing::run_seed() + 23);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int k = 0; k < 16; ++k) {
    const std::uint64_t w = 30 + rng() % 300, h = 30 + rng() % 300;
    const std::vector<double> table = random_table(rng, static_cast<std::int64_t>(h));
    ResidentSsspOptions o;
    o.width = w;
    o.height = h;
    o.g = 8u << (rng() % 4);
    o.params = table_params(rng, table);
    o.connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    o.batch_tiles = rng() % 2 ? 3 : 4096;
    o.round_tiles = rng() % 2 ? 2 : 2048;
    std::vector<double> values(w * h);
    for (double& v : values) v = unit(rng) < 0.08 ? std::numeric_limits<double>::quiet_NaN() : 1.0 + std::floor(unit(rng) * 30);
    std::vector<std::uint64_t> sources;
    for (int s = 0; s < 3; ++s) {
      const std::uint64_t cell = rng() % (w * h);
      if (values[cell] == values[cell]) sources.push_back(cell);
    }
    const std::string what = "case " + std::to_string(k) + " " + std::to_string(w) + " x " + std::to_string(h) + " g " +
                             std::to_string(o.g) + " " + to_string(o.params.model);
    const auto gpu = gpu_testing::run_resident(Device::Cuda, o, values, sources);
    const auto cpu = gpu_testing::run_resident(Device::Cpu, o, values, sources);
    for (std::uint64_t i = 0; i < gpu.size(); ++i) ASSERT_EQ(gpu[i], cpu[i]) << what << " cell " << i % w << "," << i / w;
  }
}

}  // namespace
}  // namespace terrazo
