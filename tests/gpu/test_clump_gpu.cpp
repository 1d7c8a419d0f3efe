// tests/gpu/test_clump_gpu.cpp: the CUDA per-tile labelling of clump (kernels/clump/label_tile.cu)
// against its CPU twin label_tile_cpu, bit for bit, and against a plain flood fill: hundreds of
// random tiles of every shape the pipeline meets (random categorical fields with holes, few
// values, checkerboards, spirals and snakes that wind through every subtile, single-cell regions,
// one region over the whole tile, all NaN), tile edges 16..512, 4- and 8-connectivity, many tiles
// per launch (one-shot label_tiles_cuda) and the streamed solver from make_clump_tile_solver with
// both slots in flight. Outputs are poisoned before each run.
//
// Every GPU test skips (GTEST_SKIP with the reason) when there is no CUDA device; the last test
// then checks that the CUDA entry points refuse with a clear error. A failure prints the run's
// seed; TERRAZO_TEST_SEED=<seed> reproduces it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/union_find.h"
#include "kernels/common/worker_pool.h"
#include "kernels/clump/clump_key_code.h"
#include "kernels/clump/label_tile.h"
#include "kernels/clump/label_tile_solver.h"
#include "kernels/common/cuda_device.h"
#include "tests/support/clump_reference.h"
#include "tests/support/gpu_test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint32_t kPoison = 0xDEADBEEFu;

enum class Shape { Random, FewValues, Checkerboard, Spiral, Snake, Singles, Whole, AllNaN, Count };

const char* shape_name(Shape s) {
  switch (s) {
    case Shape::Random: return "random";
    case Shape::FewValues: return "few-values";
    case Shape::Checkerboard: return "checkerboard";
    case Shape::Spiral: return "spiral";
    case Shape::Snake: return "snake";
    case Shape::Singles: return "singles";
    case Shape::Whole: return "whole";
    case Shape::AllNaN: return "all-nan";
    default: return "?";
  }
}

// One t x t tile of keys of the given shape.
std::vector<double> make_tile(std::mt19937_64& rng, std::uint32_t t, Shape shape) {
  const std::uint64_t n = static_cast<std::uint64_t>(t) * t;
  std::vector<double> k(n, 0.0);
  std::uniform_real_distribution<double> u(0, 1);
  switch (shape) {
    case Shape::Random: {
      const int distinct = 2 + static_cast<int>(rng() % 6);
      const double holes = u(rng) * 0.4;
      for (double& x : k) x = u(rng) < holes ? kNaN : static_cast<double>(rng() % distinct);
      break;
    }
    case Shape::FewValues:
      for (double& x : k) x = u(rng) < 0.55 ? 1.0 : (u(rng) < 0.1 ? kNaN : 2.0);
      break;
    case Shape::Checkerboard:
      for (std::uint64_t i = 0; i < n; ++i) k[i] = static_cast<double>((i % t + i / t) % 2);
      break;
    case Shape::Spiral:  // a one-cell-wide wall spiralling in: one long corridor region
      k = testing::spiral_wall(t, t);
      break;
    case Shape::Snake:  // rows joined alternately at the right and left ends, walls between
      k = testing::snake_corridor(t, t, 5.0);
      break;
    case Shape::Singles:
      for (std::uint64_t i = 0; i < n; ++i) k[i] = static_cast<double>(i);
      break;
    case Shape::Whole:
      std::fill(k.begin(), k.end(), -0.0);
      k[n / 2] = 0.0;  // -0 == +0: still one region
      break;
    case Shape::AllNaN:
      std::fill(k.begin(), k.end(), kNaN);
      break;
    default: break;
  }
  return k;
}

// Plain flood fill, numbered in row-major order of first cells.
std::vector<std::uint32_t> flood_fill(const double* k, std::uint32_t t, Connectivity c, std::uint32_t* regions) {
  const std::uint64_t n = static_cast<std::uint64_t>(t) * t;
  std::vector<std::uint32_t> l(n, kNoRegion);
  std::vector<std::uint32_t> stack;
  std::uint32_t next = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (std::isnan(k[s]) || l[s] != kNoRegion) continue;
    l[s] = next;
    stack.push_back(s);
    while (!stack.empty()) {
      const std::uint32_t i = stack.back();
      stack.pop_back();
      const int x = static_cast<int>(i % t), y = static_cast<int>(i / t);
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if ((dx == 0 && dy == 0) || (c == Connectivity::Four && dx != 0 && dy != 0)) continue;
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= static_cast<int>(t) || ny >= static_cast<int>(t)) continue;
          const std::uint32_t j = static_cast<std::uint32_t>(ny) * t + static_cast<std::uint32_t>(nx);
          if (l[j] != kNoRegion || !(k[j] == k[i])) continue;
          l[j] = next;
          stack.push_back(j);
        }
    }
    ++next;
  }
  *regions = next;
  return l;
}

struct Batch {
  std::uint32_t t = 0;
  std::vector<double> keys;
  std::vector<std::string> names;
};

Batch random_batch(std::mt19937_64& rng, std::uint32_t t, std::uint64_t tiles) {
  Batch b;
  b.t = t;
  for (std::uint64_t i = 0; i < tiles; ++i) {
    const auto shape = static_cast<Shape>(rng() % static_cast<unsigned>(Shape::Count));
    const std::vector<double> k = make_tile(rng, t, shape);
    b.keys.insert(b.keys.end(), k.begin(), k.end());
    b.names.push_back(std::string(shape_name(shape)) + " tile " + std::to_string(i));
  }
  return b;
}

// The side and count of a batch's tiles.
struct BatchSize {
  std::uint32_t t;
  std::uint64_t tiles;
};

// A random batch of each size, checked by `check(batch, connectivity)` under 8- and then
// 4-connectivity (a fresh batch each time); stops at the first failure.
template <class Check>
void for_random_batches(std::mt19937_64& rng, std::initializer_list<BatchSize> sizes, Check check) {
  for (const BatchSize size : sizes)
    for (const Connectivity c : {Connectivity::Eight, Connectivity::Four}) {
      check(random_batch(rng, size.t, size.tiles), c);
      if (::testing::Test::HasFailure()) return;
    }
}

const char* connectivity_name(Connectivity c) { return c == Connectivity::Eight ? "8-connectivity" : "4-connectivity"; }

// CPU twin and oracle for every tile of `b`, then the GPU's labels and counts compared bit for bit.
void expect_gpu_equals_cpu(const Batch& b, Connectivity c, const std::vector<std::uint32_t>& gpu_labels,
                           const std::vector<std::uint32_t>& gpu_regions, const std::string& what) {
  const std::uint64_t cells = static_cast<std::uint64_t>(b.t) * b.t;
  UnionFind scratch;
  std::vector<std::uint32_t> cpu(cells);
  for (std::size_t i = 0; i < b.names.size(); ++i) {
    const double* k = b.keys.data() + i * cells;
    const std::uint32_t regions = label_tile_cpu(k, b.t, c, cpu.data(), scratch);
    std::uint32_t oracle_regions = 0;
    const std::vector<std::uint32_t> oracle = flood_fill(k, b.t, c, &oracle_regions);
    ASSERT_EQ(regions, oracle_regions) << what << ", " << b.names[i] << ": the CPU twin disagrees with the flood fill";
    ASSERT_EQ(cpu, oracle) << what << ", " << b.names[i] << ": the CPU twin disagrees with the flood fill";
    ASSERT_EQ(gpu_regions[i], regions) << what << ", " << b.names[i] << " (seed " << gpu_testing::run_seed() << ")";
    const std::uint32_t* g = gpu_labels.data() + i * cells;
    std::uint64_t wrong = 0, first = 0;
    for (std::uint64_t j = 0; j < cells; ++j)
      if (g[j] != cpu[j] && wrong++ == 0) first = j;
    ASSERT_EQ(wrong, 0u) << what << ", " << b.names[i] << ": first at (" << first % b.t << ", " << first / b.t
                         << "): GPU " << g[first] << ", CPU " << cpu[first] << " (seed " << gpu_testing::run_seed() << ")";
  }
}

// label_tiles_cuda on `b` against the CPU twin and the flood fill.
void expect_one_shot_labels(const Batch& b, Connectivity c) {
  const std::uint64_t tiles = b.names.size(), cells = static_cast<std::uint64_t>(b.t) * b.t;
  std::vector<std::uint32_t> labels(tiles * cells, kPoison), regions(tiles, kPoison);
  label_tiles_cuda(b.keys.data(), tiles, b.t, c, labels.data(), regions.data());
  expect_gpu_equals_cpu(b, c, labels, regions, "t " + std::to_string(b.t) + ", " + connectivity_name(c));
}

TEST(ClumpGpu, OneShotEqualsCpuTwinOnHundredsOfRandomTiles) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed());
  for_random_batches(rng, {{16, 160}, {32, 120}, {64, 80}, {128, 40}, {256, 16}, {512, 4}}, expect_one_shot_labels);
}

// The keys coded as the pipeline sends them (kernels/clump/clump_key_code.h): 2-byte codes of
// integer keys, 4-byte float bits of the same keys and of fractional and negative ones (k / 2 - 3);
// the labels are the doubles' labels bit for bit.
TEST(ClumpGpu, CodedKeysGiveTheDoublesLabels) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 3);
  for (const BatchSize size : {BatchSize{16, 120}, BatchSize{64, 60}, BatchSize{128, 24}, BatchSize{256, 12},
                               BatchSize{512, 4}}) {
    for (const ClumpKeyCode code : {ClumpKeyCode::UInt16, ClumpKeyCode::UInt32}) {
      if (code == ClumpKeyCode::UInt16 && size.t > 128) continue;  // the single-cell tiles' keys reach t^2 - 1
      for (const bool shifted : {false, true}) {
        if (shifted && code == ClumpKeyCode::UInt16) continue;
        Batch b = random_batch(rng, size.t, size.tiles);
        if (shifted)
          for (double& k : b.keys) k = k / 2 - 3;
        const std::uint64_t cells = static_cast<std::uint64_t>(size.t) * size.t;
        std::vector<unsigned char> coded(b.keys.size() * clump_key_bytes(code));
        encode_clump_keys(code, b.keys.data(), b.keys.size(), coded.data());
        for (std::uint64_t i = 0; i < b.keys.size(); i += 97) {
          const double back = decode_clump_key(code, coded.data(), i);
          ASSERT_TRUE(back == b.keys[i] || (std::isnan(back) && std::isnan(b.keys[i]))) << "key " << i;
        }
        for (const Connectivity c : {Connectivity::Eight, Connectivity::Four}) {
          std::vector<std::uint32_t> labels(size.tiles * cells, kPoison), regions(size.tiles, kPoison);
          label_tiles_cuda(coded.data(), code, size.tiles, size.t, c, labels.data(), regions.data());
          expect_gpu_equals_cpu(b, c, labels, regions,
                                std::string(to_string(code)) + (shifted ? " k/2-3" : "") + ", t " + std::to_string(size.t) +
                                    ", " + connectivity_name(c));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// Every field of two border summaries (kernels/clump/label_tile.h TileBorder).
void expect_same_border(const TileBorder& gpu, const TileBorder& cpu, const std::string& what) {
  EXPECT_EQ(gpu.region, cpu.region) << what;
  EXPECT_EQ(gpu.first_cell, cpu.first_cell) << what;
  EXPECT_EQ(gpu.starts_before, cpu.starts_before) << what;
  EXPECT_EQ(gpu.cells, cpu.cells) << what;
  EXPECT_EQ(gpu.ring, cpu.ring) << what;
  EXPECT_EQ(gpu.interior_starts_per_row, cpu.interior_starts_per_row) << what;
  EXPECT_EQ(gpu.interior_largest, cpu.interior_largest) << what;
  EXPECT_EQ(gpu.interior_regions, cpu.interior_regions) << what;
  EXPECT_EQ(gpu.labelled, cpu.labelled) << what;
}

// The border summaries of `b` made on the GPU (phase 1's batches) against summarize_tile_border of
// the CPU twin's labels, field by field.
void expect_border_summaries(const Batch& b, Connectivity c) {
  const std::uint64_t tiles = b.names.size(), cells = static_cast<std::uint64_t>(b.t) * b.t;
  const std::uint64_t words = ClumpSummaryLayout{b.t}.words();
  std::vector<std::uint32_t> labels(tiles * cells, kPoison), regions(tiles, kPoison);
  std::vector<std::uint32_t> summaries(tiles * words, kPoison);
  label_tiles_cuda(b.keys.data(), ClumpKeyCode::Float64, tiles, b.t, c, labels.data(), regions.data(),
                   summaries.data());
  UnionFind scratch;
  std::vector<std::uint32_t> cpu(cells);
  for (std::uint64_t i = 0; i < tiles; ++i) {
    const std::uint32_t n = label_tile_cpu(b.keys.data() + i * cells, b.t, c, cpu.data(), scratch);
    TileBorder expected, got;
    summarize_tile_border(cpu.data(), n, b.t, &expected);
    unpack_tile_border(summaries.data() + i * words, b.t, &got);
    expect_same_border(got, expected, b.names[i] + ", t " + std::to_string(b.t) + " (seed " +
                                          std::to_string(gpu_testing::run_seed()) + ")");
    if (::testing::Test::HasFailure()) return;
  }
}

// The border summaries on hundreds of random tiles of every shape and size.
TEST(ClumpGpu, BorderSummariesEqualTheCpuTwins) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 4);
  for_random_batches(rng, {{16, 160}, {32, 100}, {64, 60}, {128, 30}, {256, 12}, {512, 4}}, expect_border_summaries);
}

TEST(ClumpGpu, LargeTileOfOneSpiralEqualsCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 1);
  for (const std::uint32_t t : {1024u, 2048u}) {
    Batch b;
    b.t = t;
    b.keys = make_tile(rng, t, Shape::Spiral);
    b.names = {"spiral " + std::to_string(t)};
    std::vector<std::uint32_t> labels(static_cast<std::uint64_t>(t) * t, kPoison), regions(1, kPoison);
    label_tiles_cuda(b.keys.data(), 1, t, Connectivity::Four, labels.data(), regions.data());
    expect_gpu_equals_cpu(b, Connectivity::Four, labels, regions, "large spiral");
    if (HasFatalFailure()) return;
  }
}

// The streamed solver with keys coded as `code` against the CPU solver (below).
void streamed_solver_equals_cpu_solver(ClumpKeyCode code);

TEST(ClumpGpu, StreamedSolverEqualsCpuSolverWithBothSlotsInFlight) {
  TERRAZO_REQUIRE_GPU();
  for (const ClumpKeyCode code : {ClumpKeyCode::Float64, ClumpKeyCode::UInt32, ClumpKeyCode::UInt16}) {
    SCOPED_TRACE(to_string(code));
    streamed_solver_equals_cpu_solver(code);
    if (HasFatalFailure()) return;
  }
}

void streamed_solver_equals_cpu_solver(ClumpKeyCode code) {
  std::mt19937_64 rng(gpu_testing::run_seed() + 2);
  const std::uint32_t t = 64;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  WorkerPool pool(4);
  MemoryBudget budget(256ull << 20);
  ClumpTileSolverOptions options;
  options.t = t;
  options.connectivity = Connectivity::Eight;
  options.max_tiles = 37;  // batches of 37 tiles (the last one short)
  options.key_code = code;  // the CPU solver labels the doubles whatever the code
  auto gpu = make_clump_tile_solver(Device::Cuda, options, pool, budget);
  auto cpu = make_clump_tile_solver(Device::Cpu, options, pool, budget);
  ASSERT_EQ(gpu->slots(), 2u);
  ASSERT_EQ(gpu->batch_tiles(), 37u);
  const Batch all = random_batch(rng, t, 37 * 5 + 11);
  const std::uint64_t total = all.names.size();
  std::vector<std::uint64_t> begins;
  std::uint64_t checked = 0;
  const std::uint64_t words = ClumpSummaryLayout{t}.words();
  auto check = [&](const ClumpTileSolved& g) {
    const std::uint64_t begin = begins[checked++];
    if ((begin / 37) % 2 == 1) {  // a phase-1 batch: summaries instead of labels
      ASSERT_EQ(g.labels, nullptr);
      ASSERT_NE(g.summaries, nullptr);
      UnionFind scratch;
      std::vector<std::uint32_t> cpu(cells);
      for (std::uint64_t i = 0; i < g.tiles; ++i) {
        const std::uint32_t n = label_tile_cpu(all.keys.data() + (begin + i) * cells, t, Connectivity::Eight, cpu.data(), scratch);
        ASSERT_EQ(g.regions[i], n);
        TileBorder expected, got;
        summarize_tile_border(cpu.data(), n, t, &expected);
        unpack_tile_border(g.summaries + i * words, t, &got);
        expect_same_border(got, expected, "batch at " + std::to_string(begin) + ", tile " + std::to_string(i));
        ASSERT_FALSE(::testing::Test::HasFailure());
      }
      return;
    }
    ASSERT_EQ(g.summaries, nullptr);
    // Copy the GPU's results before the CPU solver runs (they stay valid until the slot is reused anyway).
    const std::vector<std::uint32_t> gl(g.labels, g.labels + g.tiles * cells), gr(g.regions, g.regions + g.tiles);
    // The CPU solver takes batches of its own size (its pool's threads): the GPU batch in pieces.
    for (std::uint64_t first = 0; first < g.tiles; first += cpu->batch_tiles()) {
      ClumpTileBatch job;
      job.tiles = std::min<std::uint64_t>(cpu->batch_tiles(), g.tiles - first);
      job.read = [&, first](std::uint64_t i, double* k) {
        std::copy_n(all.keys.data() + (begin + first + i) * cells, cells, k);
      };
      const ClumpTileSolved& c = cpu->solve(job);
      ASSERT_EQ(std::vector<std::uint32_t>(c.regions, c.regions + c.tiles),
                std::vector<std::uint32_t>(gr.begin() + first, gr.begin() + first + c.tiles))
          << "batch at " << begin << ", tile " << first;
      ASSERT_EQ(std::vector<std::uint32_t>(c.labels, c.labels + c.tiles * cells),
                std::vector<std::uint32_t>(gl.begin() + first * cells, gl.begin() + (first + c.tiles) * cells))
          << "batch at " << begin << ", tile " << first;
    }
    for (std::uint64_t j = 0; j < g.tiles * cells; ++j)
      ASSERT_TRUE(g.key(j) == all.keys[begin * cells + j] || (std::isnan(g.key(j)) && std::isnan(all.keys[begin * cells + j])));
  };
  for (std::uint64_t begin = 0; begin < total; begin += 37) {
    while (gpu->pending() == gpu->slots()) check(gpu->wait());
    ClumpTileBatch job;
    job.tiles = std::min<std::uint64_t>(37, total - begin);
    job.read = [&, begin](std::uint64_t i, double* k) { std::copy_n(all.keys.data() + (begin + i) * cells, cells, k); };
    job.summaries_suffice = (begin / 37) % 2 == 1;
    begins.push_back(begin);
    gpu->submit(job);
  }
  while (gpu->pending()) check(gpu->wait());
  EXPECT_EQ(checked, begins.size());
}

TEST(ClumpGpu, WithoutAGpuTheCudaEntryPointsRefuseClearly) {
  if (cuda_device().available) GTEST_SKIP() << "a GPU is present";
  std::vector<double> keys(256, 1.0);
  std::vector<std::uint32_t> labels(256), regions(1);
  try {
    label_tiles_cuda(keys.data(), 1, 16, Connectivity::Eight, labels.data(), regions.data());
    FAIL() << "label_tiles_cuda ran without a GPU";
  } catch (const Error& e) {
    EXPECT_FALSE(std::string(e.what()).empty());
  }
  WorkerPool pool(1);
  MemoryBudget budget(64ull << 20);
  ClumpTileSolverOptions options;
  options.t = 16;
  EXPECT_THROW(make_clump_tile_solver(Device::Cuda, options, pool, budget), Error);
}

}  // namespace
}  // namespace terrazo
