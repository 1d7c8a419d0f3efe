// tests/test_sssp_pipeline.cpp: the out-of-core SSSP pipeline against the in-memory Dijkstra
// reference (tests/support/sssp_reference.h): identical distances, allocation ids and backlinks.
//
// Part 1 drives the exchange and final pass (engine/sssp/exchange.h, engine/sssp/output.h) on
// hundreds of random rasters held in memory, with tiny caches that force evictions. Part 2 runs
// the whole file-based pipeline (engine/commands/sssp.h) on random and real rasters.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "kernels/common/error.h"
#include "engine/sssp/distance_store.h"
#include "engine/commands/sssp.h"
#include "engine/sssp/exchange.h"
#include "engine/sssp/output.h"
#include "kernels/common/tile_geometry.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/exchange_sources.h"
#include "tests/support/random_values.h"
#include "tests/support/sssp_capture_sink.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();


using testing::CaptureSink;

struct CoreCase {
  std::uint64_t width = 1, height = 1;
  std::uint32_t t = 4;
  std::vector<double> values;
  SsspExchangeOptions options;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;  // cell, id
  bool backlinks = false;
  std::uint64_t cache_tiles = 0;  // 0: plenty
  bool release_tiles = false;     // the final pass releases each tile's slot (as the pipeline does)
};

// A width x height raster of `value` everywhere, in tiles of t, friction weights.
CoreCase uniform_case(std::uint64_t width, std::uint64_t height, std::uint32_t t, double value) {
  CoreCase c;
  c.width = width;
  c.height = height;
  c.t = t;
  c.values.assign(width * height, value);
  c.options.params.model = WeightModel::Friction;
  return c;
}

struct CoreOutcome {
  CaptureSink sink;
  SsspExchangeStats stats;
  std::vector<std::uint64_t> rejected;  // source cells on nodata
  std::uint64_t input_tile_reads = 0;
  std::uint64_t store_tiles_after = 0, store_bytes_after = 0;  // what the store holds after the final pass
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
  auto outcome = std::make_unique<CoreOutcome>(CoreOutcome{CaptureSink(c.width, c.height), {}, {}, 0, 0, 0});
  {
    SsspExchange exchange(input, store, options, budget);
    outcome->rejected = testing::add_cell_sources(exchange, input.grid(), c.sources);
    exchange.run(Progress::silent());
    exchange.flush();
    outcome->stats = exchange.stats();
  }
  write_sssp_results(input, store, options, c.backlinks, outcome->sink, budget, Progress::silent(),
                     c.release_tiles);
  outcome->input_tile_reads = input.reads();
  outcome->store_tiles_after = store.tiles_with_interior();
  outcome->store_bytes_after = store.bytes_on_disk();
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
  c.release_tiles = seed % 2 == 1;  // from the seed, so the cases above stay what they were
  return c;
}

testing::SsspReferenceProblem reference_of(const CoreCase& c) {
  testing::SsspReferenceProblem p =
      testing::reference_problem(c.width, c.height, c.values.data(), c.options.params, c.options.connectivity);
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

// 400 random cases in four shards of 100 seeds, so that a parallel ctest spreads them (each shard
// about a minute under the sanitizers).
class SsspCoreShard : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(SsspCoreShard, RandomRastersMatchReference) {
  std::uint64_t evictions = 0, resolves = 0, released_runs = 0;
  const std::uint64_t first = 1 + GetParam() * 100;
  for (std::uint64_t seed = first; seed < first + 100; ++seed) {
    const CoreCase c = random_case(seed);
    const auto out = run_core(c);
    ASSERT_TRUE(out->rejected.empty());
    compare(c, *out, "seed " + std::to_string(seed) + " " + std::to_string(c.width) + "x" +
                         std::to_string(c.height) + " t=" + std::to_string(c.t));
    if (::testing::Test::HasFatalFailure()) return;
    if (c.release_tiles) {
      ASSERT_EQ(out->store_tiles_after, 0u) << "seed " << seed << ": tiles left after a releasing final pass";
      ASSERT_EQ(out->store_bytes_after, 0u) << "seed " << seed;
      ++released_runs;
    }
    evictions += out->stats.cache_evictions;
    resolves += out->stats.resolves;
  }
  EXPECT_GT(evictions, 1000u);  // the tiny caches did force tiles out and back in (2,695-4,912 a shard)
  EXPECT_GT(resolves, 500u);   // (1,260-1,973 a shard)
  EXPECT_EQ(released_runs, 50u);
}

INSTANTIATE_TEST_SUITE_P(SsspCore, SsspCoreShard, ::testing::Values(0, 1, 2, 3));

// release(tile) frees the slot's disk blocks and the slot reads as never written; other slots keep
// their labels.
TEST(SsspCore, DistanceStoreReleaseFreesTheSlot) {
  testing::TempDir dir;
  MemoryBudget budget(64ull << 20);
  TileGrid grid;
  grid.width = 512;
  grid.height = 256;
  grid.tile = 256;
  const std::string path = dir.file("dist");
  DistanceStore store(path, grid, true, budget);
  const std::uint64_t cells = 256 * 256;
  std::vector<PathLength> dist(cells);
  std::vector<std::uint32_t> source(cells), hops(cells);
  for (std::uint64_t i = 0; i < cells; ++i) {
    dist[i] = i * 3;
    source[i] = static_cast<std::uint32_t>(i % 7);
    hops[i] = static_cast<std::uint32_t>(i % 11);
  }
  std::vector<RingCell> ring(store.ring_cells());
  for (std::uint32_t r = 0; r < store.ring_cells(); ++r) ring[r] = RingCell{r + 1u, 0.5 * r, r % 3, r % 5};
  for (std::uint64_t tile = 0; tile < 2; ++tile) {
    store.write_interior(tile, dist.data(), source.data(), hops.data());
    store.write_ring(tile, 0, store.ring_cells(), ring.data());
  }
  const auto allocated = [&] {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    return static_cast<std::uint64_t>(st.st_blocks) * 512;
  };
  const std::uint64_t before = allocated(), on_disk_before = store.bytes_on_disk();
  ASSERT_GE(before, 2 * cells * 16);
  store.release(0);
  EXPECT_FALSE(store.interior_present(0));
  EXPECT_FALSE(store.ring_present(0));
  EXPECT_EQ(store.tiles_with_interior(), 1u);
  EXPECT_EQ(store.bytes_on_disk(), on_disk_before / 2);
  EXPECT_LE(allocated() + cells * 16, before) << "the slot's blocks were not freed";
  std::vector<PathLength> d(cells);
  std::vector<std::uint32_t> s(cells), h(cells);
  std::vector<RingCell> rg(store.ring_cells());
  store.read_interior(0, d.data(), s.data(), h.data());
  store.read_ring(0, 0, store.ring_cells(), rg.data());
  for (std::uint64_t i = 0; i < cells; ++i) ASSERT_TRUE(d[i] == kUnreached && s[i] == 0 && h[i] == 0) << i;
  for (const RingCell& r : rg) ASSERT_TRUE(r.dist == kUnreached && r.source == 0 && r.hops == 0);
  store.read_interior(1, d.data(), s.data(), h.data());
  store.read_ring(1, 0, store.ring_cells(), rg.data());
  EXPECT_EQ(d, dist);
  EXPECT_EQ(s, source);
  EXPECT_EQ(h, hops);
  for (std::uint32_t r = 0; r < store.ring_cells(); ++r) ASSERT_EQ(rg[r].dist, ring[r].dist);
  // Written again after a release, the slot holds the new labels.
  store.write_interior(0, dist.data(), source.data(), hops.data());
  store.read_interior(0, d.data(), s.data(), h.data());
  EXPECT_EQ(d, dist);
  EXPECT_EQ(store.tiles_with_interior(), 2u);
}

// A raster with an unreachable island: its tiles are never loaded.
TEST(SsspCore, UnreachedTilesAreNeverLoaded) {
  CoreCase c = uniform_case(64, 64, 8, 1.0);
  for (std::uint64_t y = 0; y < c.height; ++y) c.values[y * c.width + 20] = kNaN;  // a wall at x = 20
  c.sources = {{5 * c.width + 5, 0}};
  const auto out = run_core(c);
  compare(c, *out, "island");
  // Tiles of columns 0..2 (x < 24) are reachable: 3 x 8 tiles; the rest never solved.
  EXPECT_EQ(out->stats.tiles_solved, 24u);
  EXPECT_LE(out->input_tile_reads, 24u);
}

TEST(SsspCore, SourcesOnNodataAreReturned) {
  CoreCase c = uniform_case(10, 10, 4, 2.0);
  c.values[55] = kNaN;
  c.sources = {{55, 0}, {0, 1}};
  const auto out = run_core(c);
  ASSERT_EQ(out->rejected.size(), 1u);
  EXPECT_EQ(out->rejected[0], 55u);
}

// Friction 0 on a plateau: zero-weight edges everywhere; backlinks must still lead to the source.
TEST(SsspCore, ZeroWeightPlateauBacklinksReachTheSource) {
  CoreCase c = uniform_case(37, 29, 8, 0.0);
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


// ---- Part 2: the file-based pipeline (engine/commands/sssp.h) ---------------------------------

// Runs run_sssp and checks cost (exactly, through the fixed point), backlinks and allocation
// against the reference on the input's values. Point sources must be pixel coordinates.
SsspResult check_file_run(const SsspOptions& options, const RunSettings& options_run, std::uint64_t memory, const std::string& what) {
  MemoryBudget budget(memory);
  const SsspResult result = terrazo::testing::run_with(run_sssp, options, options_run, budget, Progress::silent());
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(options.input, &info);
  testing::SsspReferenceProblem ref =
      testing::reference_problem(info.width, info.height, values.data(), result.params, options.connectivity);
  ref.max_cost = result.max_cost_fixed;
  testing::set_point_sources(ref, options);
  EXPECT_TRUE(testing::sssp_reference(ref)) << what;
  testing::expect_outputs_match_reference(options, result, ref, what);
  return result;
}

SourcePoint pixel(std::uint64_t x, std::uint64_t y) {
  return parse_source_point(std::to_string(x) + "," + std::to_string(y));
}

// A valid cell near (fx * W, fy * H), searched outwards.
SourcePoint valid_cell_near(const std::vector<double>& values, const RasterInfo& info, double fx, double fy) {
  const auto cx = static_cast<std::int64_t>(fx * static_cast<double>(info.width - 1));
  const auto cy = static_cast<std::int64_t>(fy * static_cast<double>(info.height - 1));
  for (std::int64_t r = 0; r < 4096; ++r)
    for (std::int64_t dy = -r; dy <= r; ++dy)
      for (std::int64_t dx = -r; dx <= r; ++dx) {
        const std::int64_t x = cx + dx, y = cy + dy;
        if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(info.width) || y >= static_cast<std::int64_t>(info.height))
          continue;
        const double v = values[static_cast<std::uint64_t>(y) * info.width + static_cast<std::uint64_t>(x)];
        if (v == v) return pixel(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
      }
  throw Error("no valid cell");
}

// Every shipped DEM: friction (absdiff where elevations go negative), tiles of 64 so the exchange
// crosses many tile borders; every other DEM with a cache of 6 tiles, backlinks and allocation.
TEST(SsspPipeline, EveryShippedDemMatchesReference) {
  const std::vector<std::string> dems = {"N44W072.hgt", "Mega_divide.bil", "Mandakini.bil", "nz_elev.tif",
                                         "srtm_bigtujunga30m_utm11.tif", "rhine_elv0.tif", "pysheds_dem.tif",
                                         "hugo_site.asc", "hugo_site.asc.gz", "west_bijou_gully.asc"};
  testing::TempDir dir;
  int k = 0;
  for (const std::string& name : dems) {
    SCOPED_TRACE(name);
    SsspOptions o;
    RunSettings o_run;
    o.input = std::string(TERRAZO_DATASETS) + "/real/" + name;
    RasterInfo info;
    const std::vector<double> values = testing::read_raster_values(o.input, &info);
    double min = 1e300;
    for (double v : values)
      if (v == v) min = std::min(min, v);
    o.weight = min >= 0 ? WeightModel::Friction : WeightModel::AbsDiff;
    o.sources = {valid_cell_near(values, info, 0.5, 0.5)};
    o.tile = info.width * info.height > 100000 ? 64 : 16;
    o.output = dir.file("cost" + std::to_string(k) + ".tif");
    if (k % 2 == 1) {
      o.sources.push_back(valid_cell_near(values, info, 0.1, 0.9));
      o.backlink = dir.file("back" + std::to_string(k) + ".tif");
      o.allocation = dir.file("alloc" + std::to_string(k) + ".tif");
      const std::uint64_t entry = static_cast<std::uint64_t>(o.tile + 2) * (o.tile + 2) * 24 + o.tile * o.tile + 128;
      o.cache_bytes = 6 * entry;
      o_run.threads = 2;
    }
    const SsspResult r = check_file_run(o, o_run, 1ull << 30, name);
    EXPECT_GE(r.sources, 1u);
    if (k % 2 == 1 && r.tiles > 6) {
      EXPECT_GT(r.cache_evictions, 0u);
    }
    ++k;
  }
}

// Random rasters through files: all models, 4/8 connectivity, max cost, several sources, tile
// sizes not dividing W or H, small caches.
TEST(SsspPipeline, RandomRasterFilesMatchReference) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint64_t w = 20 + rng() % 90, h = 20 + rng() % 90;
    std::vector<double> values = testing::random_values(rng, w * h, 0.08, 0, 50);
    const std::string input = dir.file("in" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.output = dir.file("cost" + std::to_string(seed) + ".tif");
    o.weight = seed % 3 == 0 ? WeightModel::Max : seed % 3 == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
    o.connectivity = seed % 4 == 0 ? Connectivity::Four : Connectivity::Eight;
    o.tile = 16;
    const int count = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < count; ++i) {
      std::uint64_t c;
      do c = rng() % (w * h);
      while (values[c] != values[c]);
      o.sources.push_back(pixel(c % w, c / w));
    }
    if (seed % 2 == 0) {
      o.backlink = dir.file("back" + std::to_string(seed) + ".tif");
      o.allocation = dir.file("alloc" + std::to_string(seed) + ".tif");
    }
    if (seed % 5 == 0) o.max_cost = 40.0;
    if (seed % 3 == 0) o.cache_bytes = 3 * (18 * 18 * 24 + 256 + 128);
    if (seed % 7 == 0) o.scale = 3.0;
    check_file_run(o, o_run, 64ull << 20, "seed " + std::to_string(seed));
    if (::testing::Test::HasFailure()) return;
  }
}

// The same input in core (one tile, plenty of memory) and out of core (tiny tiles and cache).
TEST(SsspPipeline, InCoreAndOutOfCoreAgree) {
  testing::TempDir dir;
  SsspOptions o = testing::sssp_options(std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif",
                                        {pixel(10, 300), pixel(350, 20)}, dir.file("a.tif"));
  RunSettings o_run;
  o.tile = 512;
  MemoryBudget big(1ull << 30);
  terrazo::testing::run_with(run_sssp, o, o_run, big, Progress::silent());
  SsspOptions small = o;
  RunSettings small_run = o_run;
  small.output = dir.file("b.tif");
  small.tile = 16;
  small.cache_bytes = 2 * (18 * 18 * 16 + 256 + 128);
  MemoryBudget tiny(24ull << 20);
  const SsspResult r = terrazo::testing::run_with(run_sssp, small, small_run, tiny, Progress::silent());
  EXPECT_GT(r.cache_evictions, 100u);
  EXPECT_GT(r.resolves, 0u);
  EXPECT_EQ(testing::read_raster_values(o.output), testing::read_raster_values(small.output));
}

TEST(SsspPipeline, DefaultScaleIsLargestPowerOfTenUnderTwoToThe30) {
  RasterInfo info;
  info.has_stats = true;
  info.min = 147;
  info.max = 298;
  const WeightParams p = sssp_weight_params(WeightModel::Friction, 0, info, Connectivity::Eight);
  const double largest = 298 * kSqrt2;
  EXPECT_LE(largest * p.scale, 1073741824.0);
  EXPECT_GT(largest * p.scale * 10, 1073741824.0);
  EXPECT_EQ(p.scale, 1e6);
  info.min = -5;
  EXPECT_THROW(sssp_weight_params(WeightModel::Friction, 0, info, Connectivity::Eight), UsageError);
  const WeightParams m = sssp_weight_params(WeightModel::Max, 0, info, Connectivity::Eight);
  EXPECT_EQ(m.offset, -5);
  EXPECT_THROW(sssp_weight_params(WeightModel::AbsDiff, 1e9, info, Connectivity::Eight), Error);
}

// Sources given as map coordinates, as a vector file and as a raster mask give the same distances
// as the same cells in pixel coordinates.
TEST(SsspPipeline, SourcesFromMapCoordinatesVectorFileAndMask) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(dem, &info);
  const auto& g = info.geotransform;
  auto map_of = [&](std::uint64_t x, std::uint64_t y) {
    char text[128];
    std::snprintf(text, sizeof text, "%.12f,%.12f", g[0] + (x + 0.5) * g[1], g[3] + (y + 0.5) * g[5]);
    return std::string(text);
  };
  SsspOptions base;
  RunSettings base_run;
  base.input = dem;
  base.tile = 64;
  base.sources = {pixel(30, 40), pixel(300, 250)};
  base.output = dir.file("pixel.tif");
  base.allocation = dir.file("pixel_alloc.tif");
  check_file_run(base, base_run, 256ull << 20, "pixel");
  const auto expected = testing::read_raster_values(base.output);
  const auto expected_alloc = testing::read_raster_values(base.allocation);
  // `o` run with its costs and allocations written to TAG.tif and TAG_alloc.tif.
  auto run_to = [&](SsspOptions& o, const std::string& tag) {
    o.output = dir.file(tag + ".tif");
    o.allocation = dir.file(tag + "_alloc.tif");
    MemoryBudget budget(256ull << 20);
    return terrazo::testing::run_with(run_sssp, o, base_run, budget, Progress::silent());
  };

  SsspOptions map = base;
  map.sources = {parse_source_point(map_of(30, 40)), parse_source_point(map_of(300, 250))};
  map.map_coords = true;
  run_to(map, "map");
  EXPECT_EQ(testing::read_raster_values(map.output), expected);

  SsspOptions crs = map;  // the same points, declared in EPSG:4326 (the raster's CRS)
  crs.map_coords = false;
  crs.source_crs = "EPSG:4326";
  run_to(crs, "crs");
  EXPECT_EQ(testing::read_raster_values(crs.output), expected);

  const std::string points = dir.file("points.geojson");
  {
    std::ofstream f(points);
    f << R"({"type":"FeatureCollection","features":[)"
      << R"({"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[)" << map_of(30, 40)
      << "]}},"
      << R"({"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[)" << map_of(300, 250)
      << "]}}]}";
  }
  SsspOptions file = base;
  file.sources.clear();
  file.sources_file = points;
  run_to(file, "file");
  EXPECT_EQ(testing::read_raster_values(file.output), expected);
  EXPECT_EQ(testing::read_raster_values(file.allocation), expected_alloc);

  std::vector<double> mask(values.size(), 0.0);
  mask[40 * info.width + 30] = 1;
  mask[250 * info.width + 300] = 2;
  const std::string mask_path = dir.file("mask.tif");
  testing::write_raster_values(mask_path, info.width, info.height, mask, CellType::UInt16, 65535, info);
  SsspOptions raster = base;
  raster.sources.clear();
  raster.source_raster = mask_path;
  const SsspResult r = run_to(raster, "mask_cost");
  EXPECT_EQ(r.sources, 2u);
  EXPECT_EQ(testing::read_raster_values(raster.output), expected);
  EXPECT_EQ(testing::read_raster_values(raster.allocation), expected_alloc);
}

// A generated terrain much larger than the budget against the in-memory reference, every distance.
// By default (CI) 2048 x 2048 (32 MiB of distances) under --memory 24M with tiles of 64;
// TERRAZO_SSSP_LARGE=SIDE (e.g. 8192: 67 M cells, ~40 bytes per cell of RAM for the reference)
// runs SIDE x SIDE under --memory 256M with the default tile instead.
TEST(SsspPipeline, LargeCropMatchesReference) {
  const char* side_text = std::getenv("TERRAZO_SSSP_LARGE");
  const std::uint64_t side = side_text ? std::strtoull(side_text, nullptr, 10) : 2048;
  testing::TempDir dir;
  const std::string dem = dir.file("large.tif");
  const std::string gen = std::string(TERRAZO_BINARY) + " gen -q --width " + std::to_string(side) + " --height " +
                          std::to_string(side) + " --seed 11 --nodata-holes 0.02 " + dem;
  ASSERT_EQ(std::system(gen.c_str()), 0);
  SsspOptions o;
  RunSettings o_run;
  o.input = dem;
  o.output = dir.file("cost.tif");
  o.sources = {pixel(side / 3, side / 2), pixel(side - 10, 7)};
  o_run.tmpdir = dir.path();
  if (!side_text) o.tile = 64;
  const auto start = std::chrono::steady_clock::now();
  const SsspResult r = check_file_run(o, o_run, side_text ? 256ull << 20 : 24ull << 20, "large crop");
  std::printf("large crop %llu^2: %.1f s (reference included), %llu solves, %llu re-solves, %llu evictions, "
              "peak RSS of the test process %.0f MiB\n",
              static_cast<unsigned long long>(side),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              static_cast<unsigned long long>(r.solves), static_cast<unsigned long long>(r.resolves),
              static_cast<unsigned long long>(r.cache_evictions), r.peak_rss_bytes / 1048576.0);
  EXPECT_GT(r.cache_evictions, 0u);
}

}  // namespace
}  // namespace terrazo
