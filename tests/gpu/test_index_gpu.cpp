// tests/gpu/test_index_gpu.cpp: the CUDA index kernels (kernels/index/*.cu) against their CPU twins,
// bit for bit: tile boundary matrices by nested dissection (leaves by blocked Floyd-Warshall in
// shared memory, then the merge levels) for batches of random tiles of 16, 32, 64 and 128 with every leaf
// side, weight model and connectivity, holes and walls; min-plus products of random matrices and
// vectors. The CPU twins are themselves checked against Dijkstra in tests/test_index_kernels.cpp.
// Skips (with the reason) without a GPU; the last case then checks the entry points refuse clearly.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/cuda_device.h"
#include "kernels/index/gprime_rounds.h"
#include "kernels/index/min_plus.h"
#include "kernels/index/tile_boundary_matrix.h"
#include "tests/support/gpu_test_support.h"

namespace terrazo {
namespace {

TEST(IndexGpu, TileBoundaryMatricesMatchCpuBitForBit) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed());
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::vector<PathLength> workspace;
  for (std::uint32_t t : {16u, 32u, 64u}) {
    for (std::uint32_t leaf : {4u, 8u, 16u}) {
      for (int batch = 0; batch < 4; ++batch) {
        const WeightParams params = gpu_testing::random_params(rng, false);
        const Connectivity connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;
        const std::uint64_t tiles = 1 + rng() % (t == 64 ? 12 : 40);
        std::vector<double> values;
        for (std::uint64_t i = 0; i < tiles; ++i) {
          const auto v = gpu_testing::random_values(gpu_testing::random_spec(t, rng), rng);
          values.insert(values.end(), v.begin(), v.end());
        }
        const std::uint64_t b2 = static_cast<std::uint64_t>(ring_size(t)) * ring_size(t);
        std::vector<PathLength> cpu(tiles * b2, 1), gpu(tiles * b2, 2);
        bool cpu_overflow = false, gpu_overflow = false;
        for (std::uint64_t i = 0; i < tiles; ++i)
          tile_boundary_matrix_cpu(values.data() + i * t * t, t, leaf, params, connectivity, workspace,
                                   cpu.data() + i * b2, &cpu_overflow);
        tile_boundary_matrix_cuda(values.data(), tiles, t, leaf, params, connectivity, gpu.data(), &gpu_overflow);
        ASSERT_EQ(cpu_overflow, gpu_overflow);
        ASSERT_EQ(cpu, gpu) << "t " << t << " leaf " << leaf << " tiles " << tiles << " model " << to_string(params.model);
      }
    }
  }
}

// The matrices built straight into the G' rounds' device memory (tile_boundary_matrix_cuda_to_device,
// or one TileBoundaryCuda kept for both batches, into GPrimeRoundsCuda::device_matrices at an offset;
// what od-matrix does on a GPU without an index file) read back equal to the CPU twin's; the slots
// before the first batch keep what was uploaded there.
TEST(IndexGpu, MatricesBuiltIntoTheRoundsMemoryMatchCpuBitForBit) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed());
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::vector<PathLength> workspace;
  for (std::uint32_t t : {16u, 32u}) {
    const std::uint32_t b = ring_size(t);
    const std::uint64_t b2 = static_cast<std::uint64_t>(b) * b;
    const WeightParams params = gpu_testing::random_params(rng, false);
    const Connectivity connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;
    const std::uint64_t first = 1 + rng() % 3, tiles = 2 + rng() % 20, split = 1 + rng() % (tiles - 1);
    std::vector<double> values;
    for (std::uint64_t i = 0; i < tiles; ++i) {
      const auto v = gpu_testing::random_values(gpu_testing::random_spec(t, rng), rng);
      values.insert(values.end(), v.begin(), v.end());
    }
    GPrimeRoundsCuda rounds(b, first + tiles, 1);
    const std::vector<PathLength> before(b2, 7);
    for (std::uint64_t d = 0; d < first; ++d) rounds.upload_matrix(d, before.data());
    bool overflow = false;
    if (t == 16) {  // one set of device buffers kept for both batches (what a build of many batches does)
      TileBoundaryCuda build(t, kDefaultIndexLeaf, std::max(split, tiles - split));
      build.build(values.data(), split, params, connectivity, rounds.device_matrices(first), true, &overflow);
      build.build(values.data() + split * t * t, tiles - split, params, connectivity, rounds.device_matrices(first + split),
                  true, &overflow);
    } else {
      tile_boundary_matrix_cuda_to_device(values.data(), split, t, kDefaultIndexLeaf, params, connectivity,
                                          rounds.device_matrices(first), &overflow);
      tile_boundary_matrix_cuda_to_device(values.data() + split * t * t, tiles - split, t, kDefaultIndexLeaf, params,
                                          connectivity, rounds.device_matrices(first + split), &overflow);
    }
    EXPECT_FALSE(overflow);
    std::vector<PathLength> cpu(b2), got(b2);
    for (std::uint64_t d = 0; d < first; ++d) {
      rounds.download_matrix(d, got.data());
      ASSERT_EQ(got, before) << "slot " << d << " before the built ones";
    }
    for (std::uint64_t i = 0; i < tiles; ++i) {
      bool o = false;
      tile_boundary_matrix_cpu(values.data() + i * t * t, t, kDefaultIndexLeaf, params, connectivity, workspace, cpu.data(), &o);
      rounds.download_matrix(first + i, got.data());
      ASSERT_EQ(got, cpu) << "t " << t << " tile " << i << " of " << tiles << " (batches split at " << split << ")";
    }
  }
}

// The blocked merge's larger grids: t = 128 (top merge s = 64: u = 1008 union vertices, 32 pivot
// blocks, trailing products of up to 16 x 16 output tiles), every leaf side, walls and holes.
TEST(IndexGpu, LargeTileMatricesMatchCpuBitForBit) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() ^ 13);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::vector<PathLength> workspace;
  const std::uint32_t t = 128;
  for (std::uint32_t leaf : {4u, 8u, 16u}) {
    const WeightParams params = gpu_testing::random_params(rng, false);
    const Connectivity connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;
    const std::uint64_t tiles = 1 + rng() % 3;
    std::vector<double> values;
    for (std::uint64_t i = 0; i < tiles; ++i) {
      gpu_testing::TileSpec spec = gpu_testing::random_spec(t, rng);
      spec.nodata_wall = i == 0;
      const auto v = gpu_testing::random_values(spec, rng);
      values.insert(values.end(), v.begin(), v.end());
    }
    const std::uint64_t b2 = static_cast<std::uint64_t>(ring_size(t)) * ring_size(t);
    std::vector<PathLength> cpu(tiles * b2, 1), gpu(tiles * b2, 2);
    bool cpu_overflow = false, gpu_overflow = false;
    for (std::uint64_t i = 0; i < tiles; ++i)
      tile_boundary_matrix_cpu(values.data() + i * t * t, t, leaf, params, connectivity, workspace, cpu.data() + i * b2,
                               &cpu_overflow);
    tile_boundary_matrix_cuda(values.data(), tiles, t, leaf, params, connectivity, gpu.data(), &gpu_overflow);
    ASSERT_EQ(cpu_overflow, gpu_overflow);
    ASSERT_EQ(cpu, gpu) << "t " << t << " leaf " << leaf << " tiles " << tiles << " model " << to_string(params.model);
  }
}

TEST(IndexGpu, MinPlusProductsMatchCpuBitForBit) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() ^ 5);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  for (int round = 0; round < 40; ++round) {
    const std::uint32_t b = 1 + static_cast<std::uint32_t>(rng() % 300), k = 1 + static_cast<std::uint32_t>(rng() % 8);
    const std::uint64_t count = 1 + rng() % 20;
    std::vector<PathLength> m(count * b * b), x(count * k * b), y(count * k * b);
    for (auto& e : m) e = rng() % 3 == 0 ? kUnreached : rng() % (1ull << 40);
    for (auto& e : x) e = rng() % 3 == 0 ? kUnreached : rng() % (1ull << 40);
    for (auto& e : y) e = rng() % 2 == 0 ? kUnreached : rng() % (1ull << 41);
    std::vector<PathLength> cpu = y, gpu = y;
    for (std::uint64_t p = 0; p < count; ++p)
      min_plus_product_cpu(m.data() + p * b * b, b, x.data() + p * k * b, k, cpu.data() + p * k * b);
    min_plus_product_cuda(m.data(), count, b, x.data(), k, gpu.data());
    ASSERT_EQ(cpu, gpu) << "b " << b << " k " << k << " count " << count;
  }
}

// The G' exchange's rounds on the GPU (MinPlusCuda: matrices in slots, uploaded once, gathered
// products of vectors of many slots in one launch) against min_plus_gather_cpu, with runs of one slot
// longer than the kernel's 8 vectors, slots reused after re-uploads, and ring sizes of t = 16..128.
TEST(IndexGpu, GatheredProductsOverGpuSlotsMatchCpuBitForBit) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() ^ 11);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  for (std::uint32_t b : {ring_size(16), ring_size(64), ring_size(128), 7u}) {
    const std::uint64_t slots = 1 + rng() % 6;
    const std::uint64_t b2 = static_cast<std::uint64_t>(b) * b;
    MinPlusCuda gpu(b, slots);
    std::vector<PathLength> m(slots * b2);
    for (int round = 0; round < 6; ++round) {
      // Re-upload some slots with new matrices.
      for (std::uint64_t slot = 0; slot < slots; ++slot) {
        if (round > 0 && rng() % 2) continue;
        for (std::uint64_t e = 0; e < b2; ++e) m[slot * b2 + e] = rng() % 4 == 0 ? kUnreached : rng() % (1ull << 40);
        gpu.upload(slot, m.data() + slot * b2);
      }
      std::vector<std::uint32_t> slot_of;
      const std::uint64_t runs = 1 + rng() % 5;
      for (std::uint64_t r = 0; r < runs; ++r) {
        const auto slot = static_cast<std::uint32_t>(rng() % slots);
        const std::uint64_t length = 1 + rng() % 20;
        for (std::uint64_t e = 0; e < length; ++e) slot_of.push_back(slot);
      }
      const std::uint64_t n = slot_of.size();
      std::vector<PathLength> x(n * b), y(n * b);
      for (auto& e : x) e = rng() % 3 == 0 ? kUnreached : rng() % (1ull << 40);
      for (auto& e : y) e = rng() % 2 == 0 ? kUnreached : rng() % (1ull << 41);
      std::vector<PathLength> cpu = y, out = y;
      min_plus_gather_cpu(m.data(), b, slot_of.data(), n, x.data(), cpu.data());
      gpu.gather(slot_of.data(), n, x.data(), out.data());
      ASSERT_EQ(cpu, out) << "b " << b << " slots " << slots << " vectors " << n << " round " << round;
    }
  }
}

TEST(IndexGpu, WithoutAGpuTheEntryPointsRefuseClearly) {
  if (cuda_device().available) GTEST_SKIP() << "a GPU is present: " << cuda_device().name;
  std::vector<double> values(16 * 16, 1.0);
  std::vector<PathLength> out(ring_size(16) * ring_size(16));
  bool overflow = false;
  EXPECT_THROW(tile_boundary_matrix_cuda(values.data(), 1, 16, 8, WeightParams{}, Connectivity::Eight, out.data(), &overflow),
               Error);
  EXPECT_THROW(tile_boundary_matrix_cuda_to_device(values.data(), 1, 16, 8, WeightParams{}, Connectivity::Eight, out.data(),
                                                   &overflow),
               Error);
  EXPECT_THROW(MinPlusCuda(ring_size(16), 2), Error);
  EXPECT_THROW(GPrimeRoundsCuda(ring_size(16), 2, 1), Error);
}

}  // namespace
}  // namespace terrazo
