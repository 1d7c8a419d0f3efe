// tests/test_gprime_rounds.cpp: the G' exchange in Bellman-Ford rounds with the labels resident
// (engine/index/gprime_round_loop.h, docs/index.md "The exchange in rounds") against the label-correcting
// exchange, label for label, and od-matrix --exchange rounds against --exchange queue and the oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/index.h"
#include "kernels/common/error.h"
#include "engine/index/gprime_exchange.h"
#include "engine/index/gprime_round_loop.h"
#include "engine/index/gprime_tiles.h"
#include "kernels/index/boundary_ring.h"
#include "io/store/index_file.h"
#include "tests/support/od_matrix_support.h"
#include "tests/support/random_values.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using namespace testing::od_matrix_suite;

// The G' exchange in Bellman-Ford rounds with the labels resident (CPU threads over tiles): the
// labels of every tile equal the label-correcting exchange's, for random seeds (several per source
// and tile, partial rings) on rasters with nodata walls, an all-nodata tile (absent from the index),
// 4- and 8-connectivity, every weight model and max_cost; one thread and two, with and without a label
// window, give the same labels.
TEST(OdMatrix, RoundsExchangeLabelsEqualTheLabelCorrectingExchange) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint64_t w = 40 + rng() % 50, h = 40 + rng() % 50;
    std::vector<double> values = testing::random_values(rng, w * h, 0.05, 1, 30);
    testing::add_nodata_wall(values, w, h, 8 + rng() % (w - 16), h / 3);
    for (std::uint64_t y = 16; y < 32; ++y)  // tile (0, 1) all nodata: absent from the index
      for (std::uint64_t x = 0; x < 16; ++x) values[y * w + x] = kNaN;
    const std::string input = dir.file("rounds" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    const WeightModel model = seed % 3 == 0 ? WeightModel::Max : seed % 3 == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
    const Connectivity c = seed % 2 == 0 ? Connectivity::Four : Connectivity::Eight;
    const std::string path = dir.file("rounds" + std::to_string(seed) + ".tzi");
    const IndexResult built = build(input, path, model, c, 16, 8);
    MemoryBudget budget(256ull << 20);
    auto index = IndexFile::open(path, budget);
    const TileGrid grid = index->header().grid();
    ASSERT_LT(index->present_tiles(), grid.tile_count()) << "the all-nodata tile should be absent";
    const std::uint32_t b = ring_size(16);
    GPrimeExchangeOptions xo;
    xo.params = built.weights.params;
    xo.connectivity = c;
    xo.max_cost = seed % 3 == 2 ? 200 * static_cast<PathLength>(xo.params.scale) : kUnreached;
    const std::uint64_t kb = 1 + seed % 3;
    std::vector<GPrimeSeed> seeds;
    for (std::uint64_t i = 0; i < 2 * kb + 1; ++i) {
      std::uint64_t tile = rng() % grid.tile_count();
      while (index->entry(tile).offset == 0) tile = rng() % grid.tile_count();  // an absent tile has no ring label
      GPrimeSeed s{tile, static_cast<std::uint32_t>(i % kb), std::vector<PathLength>(b, kUnreached)};
      for (std::uint32_t p = 0; p < b; ++p)
        if (rng() % 4 == 0) s.ring[p] = rng() % (50 * static_cast<PathLength>(xo.params.scale));
      seeds.push_back(s);
    }
    IndexTileCache cache(*index, 4);
    IndexMatrixTiles queue_tiles(*index, cache);
    GPrimeStats queue_stats, rounds_stats;
    const GPrimeLabels want = gprime_exchange(queue_tiles, grid, kb, seeds, xo, &queue_stats);
    std::vector<std::uint64_t> all(grid.tile_count());
    for (std::uint64_t tile = 0; tile < all.size(); ++tile) all[tile] = tile;
    for (unsigned threads : {1u, 2u}) {
      const double window = threads == 2 ? 0.5 * static_cast<double>(seed % 3) : 0.0;  // label windows of 0, 0.5, 1 tile crossings
      GPrimeRounds rounds(*index, cache, xo, Device::Cpu, kb, threads, window);
      const GPrimeLabels got = rounds.run(kb, seeds, all, &rounds_stats);
      std::uint64_t reached = 0;
      for (std::uint64_t tile = 0; tile < all.size(); ++tile) {
        const auto g = got.find(tile), x = want.find(tile);
        for (std::uint64_t e = 0; e < kb * b; ++e) {
          const PathLength gv = g == got.end() ? kUnreached : g->second[e], wv = x == want.end() ? kUnreached : x->second[e];
          ASSERT_EQ(gv, wv) << "seed " << seed << " threads " << threads << " window " << window << " tile " << tile << " source " << e / b << " ring " << e % b;
          reached += gv != kUnreached;
        }
      }
      EXPECT_GT(reached, kb * b) << "seed " << seed << ": the labels should spread beyond the seeds";
    }
    EXPECT_GT(rounds_stats.rounds, 1u);
  }
}

// od-matrix with --exchange rounds (CPU) against --exchange queue and the oracle: sites on tile
// borders and corners, an island, --max-cost, batches of one source and of all.
TEST(OdMatrix, RoundsExchangeEqualsQueueAndTheOracle) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed * 15485863);
    const std::uint64_t w = 30 + rng() % 50, h = 30 + rng() % 50;
    std::vector<double> values = testing::random_values(rng, w * h, 0.06, 1, 40);
    testing::add_nodata_island(values, w, 5);
    const std::string input = dir.file("rq" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    const WeightModel model = seed % 2 ? WeightModel::Friction : WeightModel::AbsDiff;
    const Connectivity c = seed == 3 ? Connectivity::Four : Connectivity::Eight;
    std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 5);
    cells.push_back(5 * w + 5);
    const std::string index = dir.file("rq" + std::to_string(seed) + ".tzi");
    build(input, index, model, c, 16, 8);
    OdMatrixOptions o = od_options(input, model, c);
    o.index = index;
    o.sites = points_of(cells, w);
    o.max_cost = seed == 4 ? 80.0 : -1.0;
    o.exchange = "queue";
    const OdMatrixResult queue = run_query(o, DeviceRequest::Cpu);
    EXPECT_EQ(queue.exchange, "queue");
    o.exchange = "rounds";
    o.max_batch = seed % 2 ? 1 : 0;
    const OdMatrixResult rounds = run_query(o, DeviceRequest::Cpu);
    EXPECT_EQ(rounds.exchange, "rounds-cpu");
    const PathLength max_fixed = o.max_cost < 0 ? kUnreached : static_cast<PathLength>(std::floor(o.max_cost * rounds.params.scale));
    const std::string what = "seed " + std::to_string(seed);
    expect_same(rounds.costs, queue.costs, cells.size(), what + ": rounds against the queue");
    o.exchange = "sweep";
    o.max_batch = 0;
    const OdMatrixResult sweep = run_query(o, DeviceRequest::Cpu);
    EXPECT_EQ(sweep.exchange, "sweep");
    expect_same(sweep.costs, queue.costs, cells.size(), what + ": the sweep against the queue");
    expect_same(rounds.costs, reference_matrix(values, w, h, rounds.params, c, max_fixed, cells), cells.size(), what + ": rounds against the oracle");
    if (::testing::Test::HasFailure()) return;
  }
  // Rounds need the index; an unknown exchange is a usage error.
  OdMatrixOptions bad;
  RunSettings bad_run;
  bad.input = dir.file("rq1.tif");
  bad.sites = {pixel(10, 12), pixel(20, 22)};
  bad.exchange = "rounds";
  bad.weight = WeightModel::Friction;
  MemoryBudget budget(64ull << 20);
  auto message = [&]() -> std::string {
    try {
      terrazo::testing::run_with(run_od_matrix, bad, bad_run, budget, Progress::silent());
    } catch (const UsageError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message().find("--exchange rounds needs --index"), std::string::npos) << message();
  bad.index = dir.file("rq1.tzi");
  bad.exchange = "fastest";
  EXPECT_NE(message().find("--exchange must be auto, queue, rounds or sweep"), std::string::npos) << message();
  bad.exchange = "sweep";  // the sweep runs over an index on the CPU
  bad.index.clear();
  EXPECT_NE(message().find("--exchange sweep runs over an index on the CPU"), std::string::npos) << message();
}

}  // namespace
}  // namespace terrazo
