// tests/gpu/test_knight_gpu.cpp: the CUDA block SSSP with knight's moves (kernels/sssp/block_sssp_knight.cu)
// equals its CPU twin (kernels/sssp/block_sssp_cpu_knight.cpp, checked against the 16-neighbour oracle in
// tests/test_knight.cpp) bit for bit: distances and changed flags, on random (t+4)^2 windows (t = 2..300,
// nodata holes, halo seeds and interior seeds, max cost, friction/geometric/unit, cells and map lengths),
// many tiles per launch; and through the exchange's tile solver (make_sssp_tile_solver, Device::Cuda).
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/cuda_device.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/block_sssp_solver.h"
#include "kernels/sssp/knight.h"
#include "tests/support/gpu_test_support.h"

namespace terrazo {
namespace {

struct Windows {
  std::uint32_t t = 0;
  std::uint64_t tiles = 0;
  WeightParams params;
  PathLength max_cost = kUnreached;
  std::vector<double> values;
  std::vector<PathLength> dist;
};

Windows random_windows(std::uint64_t seed, std::uint32_t t, std::uint64_t tiles) {
  std::mt19937_64 rng(seed * 2654435761u);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Windows w;
  w.t = t;
  w.tiles = tiles;
  w.params.model = seed % 3 == 0 ? WeightModel::Friction : seed % 3 == 1 ? WeightModel::Geometric : WeightModel::Unit;
  w.params.scale = seed % 2 ? 1000.0 : 7.0;
  if (seed % 4 == 3) {  // --distance map
    w.params.steps.ew = 30;
    w.params.steps.ns = 20;
    w.params.steps.diag = std::sqrt(1300.0);
    w.params.steps.min_length = 20;
    w.params.steps.max_length = std::sqrt(1300.0);
  }
  if (seed % 5 == 4) w.max_cost = static_cast<PathLength>(t) * 4000;
  const std::uint32_t s = t + 4;
  const double holes = seed % 3 == 2 ? 0.3 : 0.05;
  w.values.resize(tiles * s * s);
  w.dist.assign(tiles * s * s, kUnreached);
  for (std::uint64_t k = 0; k < tiles; ++k)
    for (std::uint32_t y = 0; y < s; ++y)
      for (std::uint32_t x = 0; x < s; ++x) {
        const std::size_t i = k * s * s + static_cast<std::size_t>(y) * s + x;
        w.values[i] = unit(rng) < holes ? std::numeric_limits<double>::quiet_NaN() : 0.5 + unit(rng) * 30.0;
        const bool halo = x < 2 || y < 2 || x >= t + 2 || y >= t + 2;
        if (unit(rng) < (halo ? 0.2 : 0.01)) w.dist[i] = rng() % 100000;
      }
  return w;
}

TEST(KnightGpu, BlockSolverEqualsCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  const std::uint32_t sizes[] = {2, 3, 4, 5, 8, 16, 31, 64, 130, 256, 300};
  std::uint64_t seed = 0, compared = 0;
  for (std::uint32_t t : sizes)
    for (int rep = 0; rep < 4; ++rep) {
      ++seed;
      const std::uint64_t tiles = t >= 128 ? 3 : 17;
      Windows w = random_windows(seed, t, tiles);
      const std::uint64_t grid = static_cast<std::uint64_t>(t + 4) * (t + 4), cells = static_cast<std::uint64_t>(t) * t;
      std::vector<PathLength> cpu = w.dist, gpu = w.dist;
      std::vector<std::uint8_t> cpu_changed(tiles * cells), gpu_changed(tiles * cells);
      bool cpu_overflow = false, gpu_overflow = false;
      std::uint64_t cpu_count = 0;
      for (std::uint64_t k = 0; k < tiles; ++k)
        cpu_count += block_sssp_cpu(w.values.data() + k * grid, t, w.params, Connectivity::Sixteen, w.max_cost,
                                    cpu.data() + k * grid, cpu_changed.data() + k * cells, &cpu_overflow);
      const std::uint64_t gpu_count = block_sssp_cuda(w.values.data(), tiles, t, w.params, Connectivity::Sixteen, w.max_cost,
                                                      gpu.data(), gpu_changed.data(), &gpu_overflow);
      ASSERT_FALSE(cpu_overflow);
      ASSERT_FALSE(gpu_overflow);
      ASSERT_EQ(gpu_count, cpu_count) << "t " << t << " seed " << seed;
      for (std::size_t i = 0; i < cpu.size(); ++i) ASSERT_EQ(gpu[i], cpu[i]) << "t " << t << " seed " << seed << " cell " << i;
      for (std::size_t i = 0; i < cpu_changed.size(); ++i) ASSERT_EQ(gpu_changed[i], cpu_changed[i]) << "t " << t;
      compared += tiles;
    }
  EXPECT_GT(compared, 300u);
}

// The exchange's CUDA tile solver (the batch solver, two slots in flight) on knight windows.
TEST(KnightGpu, TileSolverEqualsCpuTileSolver) {
  TERRAZO_REQUIRE_GPU();
  const std::uint32_t t = 32;
  Windows w = random_windows(11, t, 40);
  const std::uint64_t grid = static_cast<std::uint64_t>(t + 4) * (t + 4), cells = static_cast<std::uint64_t>(t) * t;
  SsspTileSolverOptions options;
  options.t = t;
  options.params = w.params;
  options.connectivity = Connectivity::Sixteen;
  options.max_cost = w.max_cost;
  options.batch = 8;
  WorkerPool pool(2);
  MemoryBudget budget(1ull << 30);
  std::vector<PathLength> results[2];
  std::vector<std::uint8_t> changed[2];
  for (int device = 0; device < 2; ++device) {
    auto solver = make_sssp_tile_solver(device ? Device::Cuda : Device::Cpu, options, pool, budget);
    results[device] = w.dist;
    changed[device].assign(w.tiles * cells, 0);
    for (std::uint64_t first = 0; first < w.tiles; first += 8) {
      SsspTileBatch batch;
      for (std::uint64_t k = first; k < std::min<std::uint64_t>(w.tiles, first + 8); ++k) {
        SsspTile tile;
        tile.values = w.values.data() + k * grid;
        tile.dist = results[device].data() + k * grid;
        tile.changed = changed[device].data() + k * cells;
        tile.row0 = -2;
        batch.tiles.push_back(tile);
      }
      solver->submit(batch);
      const SsspTileSolved& solved = solver->wait();
      ASSERT_FALSE(solved.overflow);
    }
  }
  EXPECT_EQ(results[1], results[0]);
  EXPECT_EQ(changed[1], changed[0]);
}

}  // namespace
}  // namespace terrazo
