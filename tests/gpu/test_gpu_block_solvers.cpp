// tests/gpu/test_gpu_block_solvers.cpp: the CUDA block solvers against their CPU twins and plain
// oracles, bit for bit, on fresh random tiles (docs/testing.md).
//
// Every GPU test skips (GTEST_SKIP with the reason) when there is no CUDA device, so this
// executable passes on CI machines without a GPU; there, the last test checks that the CUDA entry
// points refuse to run with a clear error instead. Outputs are poisoned before each run.
// A failure prints the run's seed; TERRAZO_TEST_SEED=<seed> reproduces it.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "tests/support/gpu_test_support.h"
#include "kernels/mst/block_mst_batch.h"
#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/mst/block_mst.h"
#include "kernels/mst/block_reduce.h"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/common/cuda_device.h"

namespace terrazo {
namespace {

using gpu_testing::Pattern;
using gpu_testing::TileSpec;

constexpr std::uint8_t kPoison = 0xA5;

std::string describe(const TileSpec& spec, const WeightParams& p, Connectivity c) {
  return std::string("side ") + std::to_string(spec.side) + ", " + gpu_testing::pattern_name(spec.pattern) +
         ", holes " + std::to_string(spec.nodata_fraction) + (spec.nodata_wall ? ", wall" : "") + ", weight " +
         to_string(p.model) + " scale " + std::to_string(p.scale) + " offset " + std::to_string(p.offset) +
         ", connectivity " + to_string(c);
}

std::uint32_t random_power_of_two(std::mt19937_64& rng, int min_log, int max_log) {
  return 1u << (min_log + static_cast<int>(rng() % static_cast<std::uint64_t>(max_log - min_log + 1)));
}

// A batch of tiles of one size with individually random contents; one weight model for all.
struct TileBatch {
  std::uint32_t t = 0;
  std::uint64_t count = 0;
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  std::vector<double> values;
  std::vector<std::string> descriptions;
};

TileBatch random_batch(std::mt19937_64& rng, std::uint32_t t, std::uint64_t count, std::uint32_t side_extra) {
  TileBatch batch;
  batch.t = t;
  batch.count = count;
  const bool negative = rng() % 4 == 0;
  batch.params = gpu_testing::random_params(rng, negative);
  batch.connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
  for (std::uint64_t i = 0; i < count; ++i) {
    TileSpec spec = gpu_testing::random_spec(t + side_extra, rng);
    spec.negative = negative && batch.params.model != WeightModel::Friction;
    const std::vector<double> v = gpu_testing::random_values(spec, rng);
    batch.values.insert(batch.values.end(), v.begin(), v.end());
    batch.descriptions.push_back(describe(spec, batch.params, batch.connectivity));
  }
  return batch;
}

std::uint64_t count_bits(const std::vector<std::uint8_t>& bits) {
  std::uint64_t n = 0;
  for (const std::uint8_t b : bits) n += static_cast<std::uint64_t>(__builtin_popcount(b));
  return n;
}

// ---- block MST -------------------------------------------------------------------------------

void check_mst_batch(const TileBatch& batch) {
  const std::uint64_t cells = static_cast<std::uint64_t>(batch.t) * batch.t;
  std::vector<std::uint8_t> gpu(batch.count * cells, kPoison);
  bool gpu_overflow = false;
  block_mst_cuda(batch.values.data(), batch.count, batch.t, batch.params, batch.connectivity, gpu.data(), &gpu_overflow);
  ASSERT_FALSE(gpu_overflow);
  for (std::uint64_t i = 0; i < batch.count; ++i) {
    SCOPED_TRACE("tile " + std::to_string(i) + " of " + std::to_string(batch.count) + ": " + batch.descriptions[i]);
    const double* values = batch.values.data() + i * cells;
    std::vector<std::uint8_t> cpu(cells, kPoison);
    bool cpu_overflow = false, oracle_overflow = false;
    block_mst_cpu(values, batch.t, batch.params, batch.connectivity, cpu.data(), &cpu_overflow);
    const std::vector<std::uint8_t> oracle =
        gpu_testing::kruskal_forest(values, batch.t, batch.params, batch.connectivity, &oracle_overflow);
    ASSERT_FALSE(cpu_overflow);
    ASSERT_FALSE(oracle_overflow);
    const std::vector<std::uint8_t> tile(gpu.begin() + static_cast<std::ptrdiff_t>(i * cells),
                                         gpu.begin() + static_cast<std::ptrdiff_t>((i + 1) * cells));
    ASSERT_EQ(oracle, cpu) << "the CPU twin disagrees with the Kruskal oracle";
    if (tile != cpu) {
      std::uint64_t first = 0;
      while (tile[first] == cpu[first]) ++first;
      FAIL() << "GPU forest differs from block_mst_cpu first at cell " << first << ": gpu " << int(tile[first])
             << " cpu " << int(cpu[first]) << " (forest edges gpu " << count_bits(tile) << ", cpu " << count_bits(cpu)
             << ")";
    }
  }
}

TEST(GpuBlockMst, MatchesCpuTwinAndOracleOnRandomTiles) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed());
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint32_t t = random_power_of_two(rng, 4, 9);  // 16..512
    const std::uint64_t count = 1 + rng() % (t >= 256 ? 3 : 12);
    const TileBatch batch = random_batch(rng, t, count, 0);
    SCOPED_TRACE("trial " + std::to_string(trial));
    check_mst_batch(batch);
    if (HasFatalFailure() || HasFailure()) return;
  }
}

TEST(GpuBlockMst, SmallAndDegenerateTiles) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 1);
  for (const std::uint32_t t : {1u, 2u, 4u, 8u}) {
    for (int trial = 0; trial < 10; ++trial) {
      const TileBatch batch = random_batch(rng, t, 1 + rng() % 5, 0);
      check_mst_batch(batch);
      if (HasFailure()) return;
    }
  }
  // All nodata, one valid cell, a constant tile (every weight tied).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TileBatch special;
  special.t = 32;
  special.count = 3;
  special.values.assign(3 * 32 * 32, nan);
  special.values[32 * 32 + 517] = 7.0;
  std::fill(special.values.begin() + 2 * 32 * 32, special.values.end(), 3.5);
  special.descriptions = {"all nodata", "one valid cell", "constant"};
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    special.connectivity = c;
    check_mst_batch(special);
  }
}

TEST(GpuBlockMst, LargeTilesBeyondTheThesisLimit) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 2);
  for (const std::uint32_t t : {1024u, 2048u}) {
    TileBatch batch = random_batch(rng, t, 2, 0);
    batch.connectivity = Connectivity::Eight;
    check_mst_batch(batch);
  }
}

TEST(GpuBlockMst, ReportsWeightOverflow) {
  TERRAZO_REQUIRE_GPU();
  const std::uint32_t t = 16;
  std::vector<double> values(2 * t * t, 1.0);
  std::fill(values.begin() + t * t, values.end(), 5e9);  // the second tile overflows at scale 1
  WeightParams params;
  std::vector<std::uint8_t> bits(2 * t * t, kPoison);
  bool overflow = false;
  block_mst_cuda(values.data(), 2, t, params, Connectivity::Eight, bits.data(), &overflow);
  EXPECT_TRUE(overflow);
  bool cpu_overflow = false;
  block_mst_cpu(values.data() + t * t, t, params, Connectivity::Eight, bits.data(), &cpu_overflow);
  EXPECT_TRUE(cpu_overflow);
  bool none = false;
  block_mst_cuda(values.data(), 1, t, params, Connectivity::Eight, bits.data(), &none);
  EXPECT_FALSE(none);
}

TEST(GpuBlockMst, RejectsTileSizesThatAreNotPowersOfTwo) {
  TERRAZO_REQUIRE_GPU();
  std::vector<double> values(3 * 3, 1.0);
  std::vector<std::uint8_t> bits(9);
  bool overflow = false;
  EXPECT_THROW(block_mst_cuda(values.data(), 1, 3, WeightParams{}, Connectivity::Eight, bits.data(), &overflow), Error);
}

// ---- block reduce ----------------------------------------------------------------------------

void check_reduce_batch(const TileBatch& batch, bool forest_from_gpu) {
  const std::uint64_t cells = static_cast<std::uint64_t>(batch.t) * batch.t;
  std::vector<std::uint8_t> forest(batch.count * cells, kPoison);
  bool overflow = false;
  if (forest_from_gpu) {
    block_mst_cuda(batch.values.data(), batch.count, batch.t, batch.params, batch.connectivity, forest.data(), &overflow);
  } else {
    for (std::uint64_t i = 0; i < batch.count; ++i) {
      block_mst_cpu(batch.values.data() + i * cells, batch.t, batch.params, batch.connectivity,
                    forest.data() + i * cells, &overflow);
    }
  }
  ASSERT_FALSE(overflow);
  std::vector<std::vector<TileSummaryEdge>> gpu(batch.count + 3);
  for (auto& s : gpu) s.assign(5, TileSummaryEdge{0xdeadbeefu, 0xdeadbeefu, ~0ull});  // poison
  block_reduce_cuda(forest.data(), batch.values.data(), batch.count, batch.t, batch.params, batch.connectivity, &gpu);
  ASSERT_EQ(gpu.size(), batch.count);
  for (std::uint64_t i = 0; i < batch.count; ++i) {
    SCOPED_TRACE("tile " + std::to_string(i) + ": " + batch.descriptions[i]);
    std::vector<TileSummaryEdge> cpu;
    block_reduce_cpu(forest.data() + i * cells, batch.values.data() + i * cells, batch.t, batch.params,
                     batch.connectivity, &cpu);
    ASSERT_EQ(gpu[i].size(), cpu.size()) << "summary edge counts differ";
    ASSERT_LE(cpu.size(), static_cast<std::size_t>(kMaxSummaryEdgesPerSide) * batch.t);
    for (std::size_t e = 0; e < cpu.size(); ++e) {
      ASSERT_EQ(gpu[i][e].a, cpu[e].a) << "edge " << e;
      ASSERT_EQ(gpu[i][e].b, cpu[e].b) << "edge " << e;
      ASSERT_EQ(gpu[i][e].key, cpu[e].key) << "edge " << e;
    }
    // Every summary key names a forest edge of the tile, between two distinct cells.
    for (const TileSummaryEdge& e : gpu[i]) {
      const std::uint32_t id = static_cast<std::uint32_t>(e.key);
      ASSERT_LT(e.a, e.b);
      ASSERT_TRUE(forest[i * cells + tile_edge_owner(id)] & (1u << tile_edge_direction(id)));
    }
  }
}

TEST(GpuBlockReduce, MatchesCpuTwinOnRandomForests) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 3);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint32_t t = random_power_of_two(rng, 4, 9);
    const TileBatch batch = random_batch(rng, t, 1 + rng() % (t >= 256 ? 3 : 10), 0);
    SCOPED_TRACE("trial " + std::to_string(trial));
    check_reduce_batch(batch, trial % 2 == 0);
    if (HasFailure()) return;
  }
}

TEST(GpuBlockReduce, SmallLargeAndDegenerateTiles) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 4);
  for (const std::uint32_t t : {1u, 2u, 4u, 8u, 1024u}) {
    for (int trial = 0; trial < (t >= 1024 ? 1 : 8); ++trial) {
      const TileBatch batch = random_batch(rng, t, 1 + rng() % 3, 0);
      check_reduce_batch(batch, true);
      if (HasFailure()) return;
    }
  }
}

// ---- block SSSP ------------------------------------------------------------------------------

void check_sssp_batch(const TileBatch& batch, PathLength max_cost, std::mt19937_64& rng) {
  const std::uint32_t s = batch.t + 2;
  const std::uint64_t grid = static_cast<std::uint64_t>(s) * s;
  const std::uint64_t cells = static_cast<std::uint64_t>(batch.t) * batch.t;
  const PathLength spread = batch.params.scale >= 1000.0 ? 2000000 : 2000;
  std::vector<PathLength> dist_in;
  for (std::uint64_t i = 0; i < batch.count; ++i) {
    const std::vector<PathLength> d = gpu_testing::random_seeds(batch.t, rng, spread);
    dist_in.insert(dist_in.end(), d.begin(), d.end());
  }
  std::vector<PathLength> gpu = dist_in;
  std::vector<std::uint8_t> gpu_changed(batch.count * cells, kPoison);
  bool gpu_overflow = false;
  const std::uint64_t gpu_count = block_sssp_cuda(batch.values.data(), batch.count, batch.t, batch.params,
                                                  batch.connectivity, max_cost, gpu.data(), gpu_changed.data(), &gpu_overflow);
  ASSERT_FALSE(gpu_overflow);
  std::uint64_t cpu_count = 0;
  for (std::uint64_t i = 0; i < batch.count; ++i) {
    SCOPED_TRACE("tile " + std::to_string(i) + ": " + batch.descriptions[i]);
    const double* values = batch.values.data() + i * grid;
    std::vector<PathLength> tile_in(dist_in.begin() + static_cast<std::ptrdiff_t>(i * grid),
                                    dist_in.begin() + static_cast<std::ptrdiff_t>((i + 1) * grid));
    std::vector<PathLength> cpu = tile_in;
    std::vector<std::uint8_t> cpu_changed(cells, kPoison);
    bool cpu_overflow = false, oracle_overflow = false;
    cpu_count += block_sssp_cpu(values, batch.t, batch.params, batch.connectivity, max_cost, cpu.data(),
                                cpu_changed.data(), &cpu_overflow);
    const std::vector<PathLength> oracle = gpu_testing::dijkstra_tile(values, batch.t, batch.params, batch.connectivity,
                                                                      max_cost, tile_in, &oracle_overflow);
    ASSERT_FALSE(cpu_overflow);
    ASSERT_EQ(oracle, cpu) << "the CPU twin disagrees with the Dijkstra oracle";
    for (std::uint64_t k = 0; k < grid; ++k) {
      ASSERT_EQ(gpu[i * grid + k], cpu[k]) << "distance at grid cell " << k << " (x " << k % s << ", y " << k / s
                                           << "), input " << tile_in[k];
    }
    for (std::uint64_t k = 0; k < cells; ++k) {
      ASSERT_EQ(gpu_changed[i * cells + k], cpu_changed[k]) << "changed flag at interior cell " << k;
    }
  }
  EXPECT_EQ(gpu_count, cpu_count);
}

TEST(GpuBlockSssp, MatchesCpuTwinAndOracleOnRandomTiles) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 5);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  for (int trial = 0; trial < 40; ++trial) {
    // Any t: the SSSP tile has no power-of-two requirement; mostly powers of two as the engine uses.
    const std::uint32_t t = trial % 5 == 4 ? 1 + static_cast<std::uint32_t>(rng() % 200) : random_power_of_two(rng, 4, 9);
    const TileBatch batch = random_batch(rng, t, 1 + rng() % (t >= 256 ? 3 : 10), 2);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", t " + std::to_string(t));
    check_sssp_batch(batch, kUnreached, rng);
    if (HasFailure()) return;
  }
}

TEST(GpuBlockSssp, MaxCostSmallAndLargeTiles) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 6);
  for (const std::uint32_t t : {1u, 2u, 3u, 16u, 64u, 1024u}) {
    for (int trial = 0; trial < (t >= 1024 ? 1 : 6); ++trial) {
      const TileBatch batch = random_batch(rng, t, 1 + rng() % 4, 2);
      const PathLength max_cost = trial % 2 ? kUnreached : 500 + rng() % 5000;
      SCOPED_TRACE("t " + std::to_string(t) + ", max_cost " + std::to_string(max_cost));
      check_sssp_batch(batch, max_cost, rng);
      if (HasFailure()) return;
    }
  }
}

TEST(GpuBlockSssp, ReportsWeightOverflow) {
  TERRAZO_REQUIRE_GPU();
  const std::uint32_t t = 8, s = t + 2;
  std::vector<double> values(s * s, 5e9);
  std::vector<PathLength> dist(s * s, kUnreached);
  dist[s + 1] = 0;
  std::vector<PathLength> cpu_dist = dist;
  std::vector<std::uint8_t> changed(t * t, kPoison), cpu_changed(t * t);
  WeightParams params;
  params.model = WeightModel::Friction;
  bool overflow = false, cpu_overflow = false;
  block_sssp_cuda(values.data(), 1, t, params, Connectivity::Eight, kUnreached, dist.data(), changed.data(), &overflow);
  block_sssp_cpu(values.data(), t, params, Connectivity::Eight, kUnreached, cpu_dist.data(), cpu_changed.data(),
                 &cpu_overflow);
  EXPECT_TRUE(overflow);
  EXPECT_TRUE(cpu_overflow);
}

// ---- the frontier BFS of the unit model (kernels/sssp/block_bfs.h) --------------------------------

// A one-cell-wide serpentine through nodata over the whole (t+2)^2 window: about t^2 / 2 BFS levels.
std::vector<double> serpentine_window(std::uint32_t side) {
  std::vector<double> values(static_cast<std::size_t>(side) * side, std::numeric_limits<double>::quiet_NaN());
  for (std::uint32_t y = 0; y < side; ++y)
    for (std::uint32_t x = 0; x < side; ++x)
      if (y % 2 == 0 || x == ((y / 2) % 2 == 0 ? side - 2 : 1)) values[static_cast<std::size_t>(y) * side + x] = 1.0;
  return values;
}

// block_bfs_cuda against block_bfs_cpu and block_sssp_cpu (Dijkstra), tile by tile: distances,
// changed flags, count. Tile sides on both sides of the shared-memory limit of the distances
// (t <= 164: shared at 227 KiB; above: global) and up to 512, random fields with holes and walls, serpentines.
TEST(GpuBlockBfs, MatchesCpuTwinsOnRandomTiles) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 11);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  for (const std::uint32_t t : {1u, 2u, 3u, 16u, 45u, 64u, 128u, 164u, 165u, 256u, 512u}) {
    const std::uint64_t count = t >= 256 ? 3 : 12;
    const std::uint64_t grid = static_cast<std::uint64_t>(t + 2) * (t + 2);
    const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
    WeightParams params;
    params.model = WeightModel::Unit;
    const double scales[] = {1.0, 3.0, 1000.0};
    params.scale = scales[rng() % 3];
    const Connectivity connectivity = rng() % 2 ? Connectivity::Four : Connectivity::Eight;
    const PathLength max_cost = rng() % 3 == 0 ? 200 + rng() % 20000 : kUnreached;
    std::vector<double> values;
    std::vector<PathLength> dist_in;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::vector<double> v;
      if (i % 4 == 3) {
        v = serpentine_window(t + 2);
      } else {
        TileSpec spec = gpu_testing::random_spec(t + 2, rng);
        v = gpu_testing::random_values(spec, rng);
      }
      values.insert(values.end(), v.begin(), v.end());
      std::vector<PathLength> d = gpu_testing::random_seeds(t, rng, 5000);
      if (i % 4 == 3) {  // one seed: the halo cell above the serpentine's first interior joint (t^2 / 2 levels)
        std::fill(d.begin(), d.end(), kUnreached);
        d[t] = rng() % 100;
      }
      dist_in.insert(dist_in.end(), d.begin(), d.end());
    }
    SCOPED_TRACE("t " + std::to_string(t) + ", scale " + std::to_string(params.scale) + ", connectivity " +
                 to_string(connectivity) + ", max_cost " + std::to_string(max_cost));
    std::vector<PathLength> gpu = dist_in;
    std::vector<std::uint8_t> gpu_changed(count * cells, kPoison);
    const std::uint64_t gpu_count =
        block_bfs_cuda(values.data(), count, t, params, connectivity, max_cost, gpu.data(), gpu_changed.data());
    std::uint64_t cpu_count = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      SCOPED_TRACE("tile " + std::to_string(i) + (i % 4 == 3 ? " (serpentine)" : ""));
      std::vector<PathLength> bfs(dist_in.begin() + static_cast<std::ptrdiff_t>(i * grid),
                                  dist_in.begin() + static_cast<std::ptrdiff_t>((i + 1) * grid));
      std::vector<PathLength> generic = bfs;
      std::vector<std::uint8_t> bfs_changed(cells, kPoison), generic_changed(cells, kPoison);
      bool overflow = false;
      cpu_count += block_bfs_cpu(values.data() + i * grid, t, params, connectivity, max_cost, bfs.data(), bfs_changed.data());
      block_sssp_cpu(values.data() + i * grid, t, params, connectivity, max_cost, generic.data(), generic_changed.data(),
                     &overflow);
      ASSERT_EQ(bfs, generic) << "the CPU BFS twin disagrees with block_sssp_cpu";
      ASSERT_EQ(bfs_changed, generic_changed);
      ASSERT_EQ(0, std::memcmp(bfs.data(), gpu.data() + i * grid, grid * sizeof(PathLength))) << "GPU distances";
      ASSERT_EQ(0, std::memcmp(bfs_changed.data(), gpu_changed.data() + i * cells, cells)) << "GPU changed flags";
    }
    EXPECT_EQ(gpu_count, cpu_count);
    if (HasFailure()) return;
  }
}

// The streamed SSSP batch solver (batches of 3 through both slots) against block_sssp_cpu on every
// tile of `all`, each seeded with fresh random labels.
void check_streamed_sssp(const TileBatch& all, std::mt19937_64& rng, SsspSweep sweep, std::size_t shared_limit,
                         PathLength max_cost) {
  std::vector<PathLength> dist_in;
  for (std::uint64_t i = 0; i < all.count; ++i) {
    const auto d = gpu_testing::random_seeds(all.t, rng, 5000);
    dist_in.insert(dist_in.end(), d.begin(), d.end());
  }
  SsspBatchOptions options;
  options.t = all.t;
  options.params = all.params;
  options.connectivity = all.connectivity;
  options.max_batch_tiles = 3;
  options.shared_limit_bytes = shared_limit;
  options.sweep = sweep;
  gpu_testing::expect_streamed_sssp_matches_cpu(options, max_cost, all.values, dist_in);
}

// The streamed batch solver picks the frontier BFS for the unit model (SsspSweep::Auto, FrontierBfs)
// and gives what the sweeps and the CPU give, with the distances in shared memory or in global
// memory (a 48 KiB limit puts t = 128's distances in global memory, its bitmaps stay in shared).
TEST(GpuBatchSolvers, UnitModelBatchesThroughTheFrontierBfs) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 12);
  for (const SsspSweep sweep : {SsspSweep::Auto, SsspSweep::FrontierBfs, SsspSweep::ThreadPerLine})
  for (const std::size_t shared_limit : {std::size_t{0}, std::size_t{48 * 1024}})
  for (const std::uint32_t t : {16u, 64u, 128u}) {
    SCOPED_TRACE("t " + std::to_string(t) + ", sweep " + std::to_string(static_cast<int>(sweep)) + ", shared limit " +
                 std::to_string(shared_limit));
    TileBatch all = random_batch(rng, t, 7, 2);
    all.params = WeightParams{};
    all.params.model = WeightModel::Unit;
    all.params.scale = 1000.0;
    check_streamed_sssp(all, rng, sweep, shared_limit, kUnreached);
    if (HasFailure()) return;
  }
}

// ---- streamed batch solvers ------------------------------------------------------------------

// Every scratch placement (shared memory where it fits / global memory) through the streamed solver.
TEST(GpuBatchSolvers, MstBatchesMatchCpuTwins) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 7);
  for (const std::size_t shared_limit : {std::size_t{0}, std::size_t{1}})
  for (const std::uint32_t t : {16u, 64u, 256u}) {
    SCOPED_TRACE("t " + std::to_string(t) + (shared_limit ? ", global scratch" : ", shared scratch where it fits"));
    const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
    const TileBatch all = random_batch(rng, t, 11, 0);
    MstBatchOptions options;
    options.t = t;
    options.params = all.params;
    options.connectivity = all.connectivity;
    options.shared_limit_bytes = shared_limit;
    options.max_batch_tiles = 4;  // 11 tiles: batches of 4, 4, 3 through both slots
    CudaMstBatchSolver solver(options);
    ASSERT_EQ(solver.batch_tiles(), 4u);
    std::uint64_t next = 0, checked = 0;
    auto consume = [&](const CudaMstBatchSolver::Batch& batch) {
      ASSERT_FALSE(batch.overflow);
      for (std::uint64_t i = 0; i < batch.tiles; ++i, ++checked) {
        const double* values = all.values.data() + checked * cells;
        std::vector<std::uint8_t> bits(cells);
        bool overflow = false;
        block_mst_cpu(values, t, all.params, all.connectivity, bits.data(), &overflow);
        ASSERT_EQ(0, std::memcmp(bits.data(), batch.forest_bits + i * cells, cells)) << "tile " << checked;
        std::vector<TileSummaryEdge> summary;
        block_reduce_cpu(bits.data(), values, t, all.params, all.connectivity, &summary);
        ASSERT_EQ(batch.summary_count(i), summary.size()) << "tile " << checked;
        for (std::size_t e = 0; e < summary.size(); ++e) {
          ASSERT_EQ(batch.summary(i)[e].key, summary[e].key);
          ASSERT_EQ(batch.summary(i)[e].a, summary[e].a);
          ASSERT_EQ(batch.summary(i)[e].b, summary[e].b);
        }
      }
    };
    while (next < all.count) {
      if (solver.pending() == 2) consume(solver.wait());
      const std::uint64_t n = std::min<std::uint64_t>(solver.batch_tiles(), all.count - next);
      double* input = solver.input();
      std::fill(input, input + solver.batch_tiles() * cells, -1.0);
      std::memcpy(input, all.values.data() + next * cells, n * cells * sizeof(double));
      solver.submit(n);
      next += n;
    }
    while (solver.pending()) consume(solver.wait());
    EXPECT_EQ(checked, all.count);
    EXPECT_THROW(solver.wait(), Error);
  }
}

// Both sweep methods and every placement of the distances and weights.
TEST(GpuBatchSolvers, SsspBatchesMatchCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() + 8);
  for (const SsspSweep sweep : {SsspSweep::ThreadPerLine, SsspSweep::WarpScan})
  for (const std::size_t shared_limit : {std::size_t{0}, std::size_t{48 * 1024}, std::size_t{1}})
  for (const std::uint32_t t : {1u, 16u, 45u, 64u, 128u}) {
    SCOPED_TRACE("t " + std::to_string(t) + (sweep == SsspSweep::WarpScan ? ", warp scan" : ", thread per line") +
                 ", shared limit " + std::to_string(shared_limit));
    const TileBatch all = random_batch(rng, t, 7, 2);
    check_streamed_sssp(all, rng, sweep, shared_limit, t == 45 ? 3000 : kUnreached);
  }
}

// ---- without a device ------------------------------------------------------------------------

TEST(GpuSolversWithoutDevice, RefuseWithAClearError) {
  if (cuda_device().available) GTEST_SKIP() << "a GPU is present: " << cuda_device().name;
  std::vector<double> values(16, 1.0);
  std::vector<std::uint8_t> bits(16);
  std::vector<PathLength> dist(36, kUnreached);
  std::vector<std::vector<TileSummaryEdge>> summaries;
  bool overflow = false;
  EXPECT_THROW(block_mst_cuda(values.data(), 1, 4, WeightParams{}, Connectivity::Eight, bits.data(), &overflow), Error);
  EXPECT_THROW(block_reduce_cuda(bits.data(), values.data(), 1, 4, WeightParams{}, Connectivity::Eight, &summaries),
               Error);
  EXPECT_THROW(block_sssp_cuda(values.data(), 1, 4, WeightParams{}, Connectivity::Eight, kUnreached, dist.data(),
                               bits.data(), &overflow),
               Error);
  WeightParams unit;
  unit.model = WeightModel::Unit;
  EXPECT_THROW(block_bfs_cuda(values.data(), 1, 4, unit, Connectivity::Eight, kUnreached, dist.data(), bits.data()), Error);
  EXPECT_THROW({ CudaMstBatchSolver solver{MstBatchOptions{}}; }, Error);
  EXPECT_THROW({ CudaSsspBatchSolver solver(SsspBatchOptions{}, kUnreached); }, Error);
  try {
    block_mst_cuda(values.data(), 1, 4, WeightParams{}, Connectivity::Eight, bits.data(), &overflow);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace terrazo
