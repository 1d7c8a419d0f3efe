// tests/test_sssp_pipeline.cpp: the out-of-core SSSP pipeline against the in-memory Dijkstra
// reference (tests/reference/sssp_reference.h): identical distances, allocation ids and backlinks.
//
// Part 1 drives the exchange and final pass (engine/sssp_exchange.h, engine/sssp_output.h) on
// hundreds of random rasters held in memory, with tiny caches that force evictions. Part 2 runs
// the whole file-based pipeline (engine/sssp_pipeline.h) on random and real rasters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/distance_store.h"
#include "engine/sssp_exchange.h"
#include "engine/sssp_output.h"
#include "kernels/tile_geometry.h"
#include "tests/reference/sssp_reference.h"
#include "tests/reference/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A raster in memory, cut into t x t tiles (padding NaN).
class MemoryTileInput : public SsspTileInput {
 public:
  MemoryTileInput(const std::vector<double>& values, std::uint64_t width, std::uint64_t height, std::uint32_t t)
      : values_(values) {
    grid_.width = width;
    grid_.height = height;
    grid_.tile = t;
  }
  const TileGrid& grid() const override { return grid_; }
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const override {
    for (std::uint32_t y = 0; y < grid_.tile; ++y)
      for (std::uint32_t x = 0; x < grid_.tile; ++x) {
        const double v = at(static_cast<std::uint64_t>(tx) * grid_.tile + x, static_cast<std::uint64_t>(ty) * grid_.tile + y);
        if (v == v) return true;
      }
    return false;
  }
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) override {
    ++reads_;
    for (std::uint32_t y = 0; y < grid_.tile; ++y)
      for (std::uint32_t x = 0; x < grid_.tile; ++x)
        out[static_cast<std::size_t>(y) * grid_.tile + x] =
            at(static_cast<std::uint64_t>(tx) * grid_.tile + x, static_cast<std::uint64_t>(ty) * grid_.tile + y);
  }
  std::uint64_t bytes_read() const override { return reads_ * grid_.tile * grid_.tile * 8; }
  std::uint64_t reads() const { return reads_; }

 private:
  double at(std::uint64_t x, std::uint64_t y) const {
    return x < grid_.width && y < grid_.height ? values_[y * grid_.width + x] : kNaN;
  }
  const std::vector<double>& values_;
  TileGrid grid_;
  std::uint64_t reads_ = 0;
};

// Collects the pipeline's results into whole-raster arrays.
class CaptureSink : public SsspResultSink {
 public:
  CaptureSink(std::uint64_t width, std::uint64_t height)
      : width_(width), dist(width * height, 0), source(width * height, 0), backlink(width * height, 0) {}
  void write_tile(const SsspTileResult& r) override {
    for (std::uint32_t y = 0; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x) {
        const std::uint64_t i = (r.y0 + y) * width_ + r.x0 + x;
        const std::size_t l = static_cast<std::size_t>(y) * r.stride + x;
        ASSERT_EQ(++written_[i], 1) << "cell written twice";
        dist[i] = r.dist[l];
        if (!r.reached) {
          EXPECT_EQ(r.dist[l], kUnreached);
        }
        if (r.source) source[i] = r.source[l];
        if (r.backlink) backlink[i] = r.backlink[l];
      }
  }
  std::uint64_t width_;
  std::vector<PathLength> dist;
  std::vector<std::uint32_t> source;
  std::vector<std::uint8_t> backlink;
  std::map<std::uint64_t, int> written_;
};

struct CoreCase {
  std::uint64_t width = 1, height = 1;
  std::uint32_t t = 4;
  std::vector<double> values;
  SsspExchangeOptions options;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;  // cell, id
  bool backlinks = false;
  std::uint64_t cache_tiles = 0;  // 0: plenty
};

struct CoreOutcome {
  CaptureSink sink;
  SsspExchangeStats stats;
  std::vector<std::uint64_t> rejected;  // source cells on nodata
  std::uint64_t input_tile_reads = 0;
};

std::unique_ptr<CoreOutcome> run_core(const CoreCase& c) {
  testing::TempDir dir;
  MemoryBudget budget(1ull << 30);
  MemoryTileInput input(c.values, c.width, c.height, c.t);
  const bool labelled = c.options.track_source || c.options.track_hops;
  DistanceStore store(dir.file("dist"), input.grid(), labelled, budget);
  SsspExchangeOptions options = c.options;
  const std::uint64_t halo = static_cast<std::uint64_t>(c.t + 2) * (c.t + 2);
  const std::uint64_t entry = halo * (16 + (labelled ? 8 : 0)) + static_cast<std::uint64_t>(c.t) * c.t + 128;
  if (c.cache_tiles) options.cache_bytes = entry * c.cache_tiles;
  auto outcome = std::make_unique<CoreOutcome>(CoreOutcome{CaptureSink(c.width, c.height), {}, {}, 0});
  {
    SsspExchange exchange(input, store, options, budget);
    std::map<std::uint64_t, std::vector<TileSource>> by_tile;
    const std::uint64_t tiles_x = input.grid().tiles_x();
    for (const auto& [cell, id] : c.sources) {
      const std::uint64_t x = cell % c.width, y = cell / c.width;
      by_tile[(y / c.t) * tiles_x + x / c.t].push_back(
          TileSource{static_cast<std::uint32_t>((y % c.t) * c.t + x % c.t), id});
    }
    for (const auto& [tile, list] : by_tile) {
      const auto tx = static_cast<std::uint32_t>(tile % tiles_x), ty = static_cast<std::uint32_t>(tile / tiles_x);
      for (std::uint32_t local : exchange.add_sources(tx, ty, list))
        outcome->rejected.push_back((static_cast<std::uint64_t>(ty) * c.t + local / c.t) * c.width +
                                    static_cast<std::uint64_t>(tx) * c.t + local % c.t);
    }
    exchange.run(Progress::silent());
    exchange.flush();
    outcome->stats = exchange.stats();
  }
  write_sssp_results(input, store, options, c.backlinks, outcome->sink, budget, Progress::silent());
  outcome->input_tile_reads = input.reads();
  return outcome;
}

CoreCase random_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  CoreCase c;
  const std::uint64_t dims[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 40, 64};
  c.width = dims[rng() % 12];
  c.height = dims[rng() % 12];
  const std::uint32_t tiles[] = {1, 2, 4, 8, 16};
  c.t = tiles[rng() % 5];
  const int model = static_cast<int>(rng() % 3);
  c.options.params.model = model == 0 ? WeightModel::Max : model == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
  c.options.params.scale = (rng() % 2) ? 1.0 : 100.0;
  c.options.connectivity = (rng() % 3 == 0) ? Connectivity::Four : Connectivity::Eight;
  const bool integral = rng() % 2;
  const double range = (rng() % 2) ? 4.0 : 1000.0;
  const int nodata_kind = static_cast<int>(rng() % 4);  // none, holes, walls (islands), heavy
  c.values.resize(c.width * c.height);
  for (std::uint64_t y = 0; y < c.height; ++y)
    for (std::uint64_t x = 0; x < c.width; ++x) {
      double v = unit(rng) * range;
      if (integral) v = std::floor(v);
      bool nodata = false;
      if (nodata_kind == 1) nodata = unit(rng) < 0.1;
      if (nodata_kind == 2) nodata = (x == c.width / 2 && y != 0) || (y == c.height / 3 && x > 2);  // walls
      if (nodata_kind == 3) nodata = unit(rng) < 0.4;
      c.values[y * c.width + x] = nodata ? kNaN : v;
    }
  if (c.options.params.model == WeightModel::Max && rng() % 3 == 0) {
    for (double& v : c.values) v -= range / 2;  // negative heights: offset by the minimum
    c.options.params.offset = -range / 2;
  }
  // Sources: on borders, corners, next to nodata, anywhere; one to five.
  const int count = 1 + static_cast<int>(rng() % 5);
  std::vector<std::uint64_t> valid;
  for (std::uint64_t i = 0; i < c.values.size(); ++i)
    if (c.values[i] == c.values[i]) valid.push_back(i);
  for (int k = 0; k < count && !valid.empty(); ++k) {
    std::uint64_t cell;
    switch (rng() % 4) {
      case 0: cell = 0; break;                                  // corner
      case 1: cell = c.values.size() - 1; break;                // opposite corner
      case 2: cell = (rng() % c.height) * c.width + c.width - 1; break;  // right border
      default: cell = valid[rng() % valid.size()]; break;
    }
    if (c.values[cell] != c.values[cell]) cell = valid[rng() % valid.size()];
    c.sources.push_back({cell, static_cast<std::uint32_t>(rng() % 6)});
  }
  c.options.track_source = rng() % 2;
  c.backlinks = rng() % 2;
  c.options.track_hops = c.backlinks;
  if (rng() % 4 == 0) c.options.max_cost = static_cast<PathLength>(unit(rng) * range * c.options.params.scale * 10);
  c.options.threads = 1 + static_cast<unsigned>(rng() % 2);
  c.options.batch = c.options.threads + static_cast<std::uint32_t>(rng() % 3);
  c.cache_tiles = (rng() % 2) ? c.options.batch + rng() % 2 : 0;  // tiny caches force evictions
  return c;
}

testing::SsspReferenceProblem reference_of(const CoreCase& c) {
  testing::SsspReferenceProblem p;
  p.width = c.width;
  p.height = c.height;
  p.values = c.values.data();
  p.params = c.options.params;
  p.connectivity = c.options.connectivity;
  p.max_cost = c.options.max_cost;
  auto sources = c.sources;
  if (!c.options.track_source)
    for (auto& s : sources) s.second = 0;
  testing::set_reference_sources(p, sources);
  EXPECT_TRUE(testing::sssp_reference(p));
  return p;
}

void compare(const CoreCase& c, const CoreOutcome& out, const std::string& what) {
  const testing::SsspReferenceProblem ref = reference_of(c);
  const std::vector<std::uint8_t> back = testing::backlinks_reference(ref);
  for (std::uint64_t i = 0; i < c.values.size(); ++i) {
    ASSERT_EQ(out.sink.dist[i], ref.dist[i]) << what << " cell " << i % c.width << "," << i / c.width;
    if (c.options.track_source && ref.dist[i] != kUnreached) {
      ASSERT_EQ(out.sink.source[i], ref.source[i]) << what << " cell " << i % c.width << "," << i / c.width;
    }
    if (c.backlinks) {
      ASSERT_EQ(out.sink.backlink[i], back[i]) << what << " cell " << i % c.width << "," << i / c.width;
    }
  }
}

TEST(SsspCore, RandomRastersMatchReference) {
  std::uint64_t evictions = 0, resolves = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const CoreCase c = random_case(seed);
    const auto out = run_core(c);
    ASSERT_TRUE(out->rejected.empty());
    compare(c, *out, "seed " + std::to_string(seed) + " " + std::to_string(c.width) + "x" +
                         std::to_string(c.height) + " t=" + std::to_string(c.t));
    if (::testing::Test::HasFatalFailure()) return;
    evictions += out->stats.cache_evictions;
    resolves += out->stats.resolves;
  }
  EXPECT_GT(evictions, 100u);  // the tiny caches did force tiles out and back in
  EXPECT_GT(resolves, 100u);
}

// A raster with an unreachable island: its tiles are never loaded.
TEST(SsspCore, UnreachedTilesAreNeverLoaded) {
  CoreCase c;
  c.width = 64;
  c.height = 64;
  c.t = 8;
  c.values.assign(c.width * c.height, 1.0);
  for (std::uint64_t y = 0; y < c.height; ++y) c.values[y * c.width + 20] = kNaN;  // a wall at x = 20
  c.options.params.model = WeightModel::Friction;
  c.sources = {{5 * c.width + 5, 0}};
  const auto out = run_core(c);
  compare(c, *out, "island");
  // Tiles of columns 0..2 (x < 24) are reachable: 3 x 8 tiles; the rest never solved.
  EXPECT_EQ(out->stats.tiles_solved, 24u);
  EXPECT_LE(out->input_tile_reads, 24u);
}

TEST(SsspCore, SourcesOnNodataAreReturned) {
  CoreCase c;
  c.width = 10;
  c.height = 10;
  c.t = 4;
  c.values.assign(100, 2.0);
  c.values[55] = kNaN;
  c.options.params.model = WeightModel::Friction;
  c.sources = {{55, 0}, {0, 1}};
  const auto out = run_core(c);
  ASSERT_EQ(out->rejected.size(), 1u);
  EXPECT_EQ(out->rejected[0], 55u);
}

// Friction 0 on a plateau: zero-weight edges everywhere; backlinks must still lead to the source.
TEST(SsspCore, ZeroWeightPlateauBacklinksReachTheSource) {
  CoreCase c;
  c.width = 37;
  c.height = 29;
  c.t = 8;
  c.values.assign(c.width * c.height, 0.0);
  c.options.params.model = WeightModel::Friction;
  c.options.track_hops = true;
  c.backlinks = true;
  c.sources = {{3 * c.width + 30, 0}};
  const auto out = run_core(c);
  compare(c, *out, "plateau");
  for (std::uint64_t start = 0; start < c.values.size(); ++start) {
    std::uint64_t u = start, steps = 0;
    while (out->sink.backlink[u] != 255) {
      const int d = out->sink.backlink[u];
      u = (u / c.width + kDirDy[d]) * c.width + (u % c.width + kDirDx[d]);
      ASSERT_LT(++steps, c.values.size()) << "backlinks cycle from " << start;
    }
    EXPECT_EQ(u, 3 * c.width + 30);
  }
}

}  // namespace
}  // namespace terrazo
