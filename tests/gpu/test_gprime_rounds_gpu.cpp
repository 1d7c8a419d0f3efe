// tests/gpu/test_gprime_rounds_gpu.cpp: the G' exchange in rounds on the GPU (GPrimeRoundsCuda,
// kernels/index/gprime_rounds.h) against its CPU twin (gprime_round_solve_cpu, gprime_round_push_cpu
// driven round by round here), bit for bit: the labels at the fixed point and the count of active
// tiles in every round, with and without a label window. Random grids of tiles with absent tiles, random nonnegative matrices (zero
// diagonal, kUnreached entries), random in-edges between neighbouring rings, batches of up to 40
// sources (several of the solve's groups of 8 and of the push's runs of 16), max_cost, rings wider
// than a solve block (276 cells), and labels near 2^62, where the solve leaves its fast path (plain
// 64-bit sums, for due labels below 2^62 - 2^56) for kUnreached-absorbing sums part way through. The od-matrix end to end (index, GPU rounds =
// CPU queue) is in tools/bench/gpu_checks/od_matrix_gpu_check.cpp. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/cuda_device.h"
#include "kernels/index/gprime_rounds.h"
#include "tests/support/gpu_test_support.h"

namespace terrazo {
namespace {

TEST(GPrimeRoundsGpu, RoundsMatchTheCpuTwinBitForBit) {
  if (!cuda_device().available) GTEST_SKIP() << "no GPU: " << cuda_device().reason;
  std::mt19937_64 rng(gpu_testing::run_seed());
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  for (int round = 0; round < 9; ++round) {
    // Ring sizes 28 and 76 (a solve chunk of 128 rows, and less), and 276 (two chunks, two columns
    // for some threads of a block of 256).
    const std::uint32_t side = round == 6 ? 70 : round % 2 ? 8 : 20;
    // Cases 7 and 8: labels from just below the fast path's limit upwards, without a window (plain
    // Bellman-Ford: never the fast path) and with one (the rounds cross the limit).
    const PathLength base = round >= 7 ? (PathLength{1} << 62) - (PathLength{1} << 56) - 5000 : 0;
    const std::uint32_t b = ring_size(side);
    const std::uint32_t tiles_x = 2 + rng() % 5, tiles_y = 2 + rng() % 5;
    // Dense ids of the present tiles (about one in eight absent).
    std::vector<std::int64_t> dense(tiles_x * tiles_y, -1);
    std::uint64_t n = 0;
    for (auto& d : dense)
      if (rng() % 8 != 0) d = static_cast<std::int64_t>(n++);
    if (n == 0) continue;
    std::vector<std::int64_t> neighbours(n * 9, -1);
    for (std::uint32_t ty = 0; ty < tiles_y; ++ty)
      for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
        const std::int64_t d = dense[ty * tiles_x + tx];
        if (d < 0) continue;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const std::int64_t nx = static_cast<std::int64_t>(tx) + dx, ny = static_cast<std::int64_t>(ty) + dy;
            if ((dx || dy) && nx >= 0 && ny >= 0 && nx < tiles_x && ny < tiles_y)
              neighbours[static_cast<std::uint64_t>(d) * 9 + static_cast<std::uint64_t>((dy + 1) * 3 + dx + 1)] = dense[ny * tiles_x + nx];
          }
      }
    std::vector<PathLength> matrices(n * b * b);
    for (std::uint64_t d = 0; d < n; ++d)
      for (std::uint32_t i = 0; i < b; ++i)
        for (std::uint32_t j = 0; j < b; ++j)
          matrices[(d * b + i) * b + j] = i == j ? 0 : rng() % 10 == 0 ? kUnreached : 1 + rng() % 5000;
    std::vector<GPrimeInEdge> edges(n * b * kGPrimeInEdges);
    for (auto& e : edges) {
      if (rng() % 3 == 0) continue;  // no edge in this slot
      const int from = static_cast<int>(rng() % 9);
      if (from == 4) continue;
      e = GPrimeInEdge{static_cast<Weight>(rng() % 3000), static_cast<std::uint16_t>(rng() % b), static_cast<std::uint8_t>(from), 0};
    }
    const std::uint64_t kb = 1 + rng() % 40;
    const PathLength max_cost = round % 3 == 2 ? base + 20000 : kUnreached;
    const PathLength window = round % 2 ? 0 : 3000 + rng() % 5000;  // plain Bellman-Ford, or a label window
    const std::uint64_t block = kb * b;
    // Seeds: a few tiles with partial rings.
    std::vector<PathLength> seed_labels(n * block, kUnreached);
    std::vector<std::uint8_t> seeded(n, 0);
    for (int s = 0; s < 3; ++s) {
      const std::uint64_t d = rng() % n;
      seeded[d] = 1;
      for (std::uint64_t e = 0; e < block; ++e)
        if (rng() % 5 == 0) seed_labels[d * block + e] = base + rng() % 10000;
    }
    // The CPU twin, round by round.
    std::vector<PathLength> label = seed_labels, pending = seed_labels, out(n * block, kUnreached);
    std::vector<std::uint8_t> active(n, 0);
    std::vector<PathLength> key(n, kUnreached);
    for (std::uint64_t d = 0; d < n; ++d)
      if (seeded[d]) key[d] = *std::min_element(seed_labels.begin() + d * block, seed_labels.begin() + (d + 1) * block);
    std::vector<std::uint64_t> cpu_counts;
    for (;;) {
      const PathLength threshold = gprime_round_threshold(*std::min_element(key.begin(), key.end()), window);
      std::uint64_t count = 0;
      for (std::uint64_t d = 0; d < n; ++d) {
        active[d] = key[d] != kUnreached && key[d] <= threshold;
        if (active[d]) key[d] = kUnreached;
        count += active[d];
      }
      if (count == 0) break;
      cpu_counts.push_back(count);
      ASSERT_LT(cpu_counts.size(), 100000u) << "no fixed point";
      for (std::uint64_t d = 0; d < n; ++d)
        if (active[d])
          key[d] = gprime_round_solve_cpu(matrices.data() + d * b * b, b, static_cast<std::uint32_t>(kb), max_cost, threshold,
                                          label.data() + d * block, pending.data() + d * block, out.data() + d * block);
      for (std::uint64_t d = 0; d < n; ++d)
        key[d] = std::min(key[d], gprime_round_push_cpu(d, b, static_cast<std::uint32_t>(kb), max_cost, edges.data() + d * b * kGPrimeInEdges,
                                                        neighbours.data() + d * 9, active.data(), out.data(), label.data(),
                                                        pending.data()));
    }
    // The GPU, twice with the same object (reset between batches).
    GPrimeRoundsCuda gpu(b, n, kb + 3);
    for (std::uint64_t d = 0; d < n; ++d) gpu.upload_matrix(d, matrices.data() + d * b * b);
    gpu.upload_edges(edges.data(), neighbours.data());
    for (int again = 0; again < 2; ++again) {
      gpu.reset(kb);
      for (std::uint64_t d = 0; d < n; ++d)
        if (seeded[d]) gpu.seed(d, seed_labels.data() + d * block);
      std::vector<std::uint64_t> gpu_counts;
      gpu.run(max_cost, window, &gpu_counts);
      const std::string what = "case " + std::to_string(round) + " (" + std::to_string(n) + " tiles, B " + std::to_string(b) +
                               ", kb " + std::to_string(kb) + ", window " + std::to_string(window) + ")";
      EXPECT_EQ(gpu_counts, cpu_counts) << what << ": active tiles per round";
      EXPECT_GT(cpu_counts.size(), 1u) << what;
      std::vector<PathLength> got(block);
      for (std::uint64_t d = 0; d < n; ++d) {
        gpu.download(d, got.data());
        for (std::uint64_t e = 0; e < block; ++e)
          ASSERT_EQ(got[e], label[d * block + e]) << what << ": tile " << d << " source " << e / b << " ring " << e % b;
      }
    }
  }
}

}  // namespace
}  // namespace terrazo
