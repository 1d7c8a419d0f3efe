// tests/test_od_matrix.cpp: the boundary-graph index (terrazo index) and origin-destination matrices
// (terrazo od-matrix) against the in-memory Dijkstra oracle (tests/support/sssp_reference.h) and
// against plain `terrazo sssp` runs: random rasters with holes, walls and islands, real DEMs and
// generated terrain; sites on tile borders and corners, in one tile, on unreachable islands; with the
// index, without it, with a tiny cache; the index file's checksums and fingerprint; bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/generate_terrain.h"
#include "api/index.h"
#include "api/index_command.h"
#include "api/info_command.h"
#include "api/network.h"
#include "api/od_matrix_command.h"
#include "api/sssp.h"
#include "core/error.h"
#include "engine/index/gprime_exchange.h"
#include "engine/index/gprime_rounds.h"
#include "engine/index/gprime_tiles.h"
#include "store/index_file.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

SourcePoint pixel(std::uint64_t x, std::uint64_t y) { return parse_source_point(std::to_string(x) + "," + std::to_string(y), "--site"); }

// The oracle: costs from each site to every site by Dijkstra over the whole raster.
std::vector<PathLength> reference_matrix(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                                         const WeightParams& params, Connectivity connectivity, PathLength max_cost,
                                         const std::vector<std::uint64_t>& cells) {
  std::vector<PathLength> out;
  for (std::uint64_t s : cells) {
    testing::SsspReferenceProblem ref;
    ref.width = w;
    ref.height = h;
    ref.values = values.data();
    ref.params = params;
    ref.connectivity = connectivity;
    ref.max_cost = max_cost;
    testing::set_reference_sources(ref, {{s, 0}});
    EXPECT_TRUE(testing::sssp_reference(ref));
    for (std::uint64_t t : cells) out.push_back(ref.dist[t]);
  }
  return out;
}

IndexResult build(const std::string& input, const std::string& output, WeightModel model, Connectivity c,
                  std::uint32_t tile, std::uint32_t leaf, double scale = 0.0) {
  IndexOptions o;
  o.input = input;
  o.output = output;
  o.weight = model;
  o.connectivity = c;
  o.tile = tile;
  o.leaf = leaf;
  o.scale = scale;
  o.device = "cpu";
  MemoryBudget budget(256ull << 20);
  return run_index(o, budget, Progress::silent());
}

OdMatrixResult query(const std::string& input, const std::string& index, const std::vector<SourcePoint>& sites,
                     WeightModel model, Connectivity c, double max_cost = -1, std::uint64_t cache_bytes = 0,
                     std::uint32_t tile = 16, double scale = 0.0) {
  OdMatrixOptions o;
  o.input = input;
  o.index = index;
  o.sites = sites;
  o.weight = model;
  o.connectivity = c;
  o.max_cost = max_cost;
  o.cache_bytes = cache_bytes;
  o.tile = tile;
  o.scale = scale;
  o.threads = 2;
  MemoryBudget budget(256ull << 20);
  return run_od_matrix(o, budget, Progress::silent());
}

// Random valid sites, with some on tile borders and corners (tile 16), two in one tile.
std::vector<std::uint64_t> pick_sites(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::mt19937_64& rng,
                                      int count) {
  std::vector<std::uint64_t> cells;
  auto valid = [&](std::uint64_t c) { return values[c] == values[c]; };
  for (int tries = 0; cells.size() < static_cast<std::size_t>(count) && tries < 100000; ++tries) {
    std::uint64_t x = rng() % w, y = rng() % h;
    switch (cells.size() % 4) {
      case 0: x = std::min<std::uint64_t>(w - 1, (x / 16) * 16 + (rng() % 2 ? 15 : 0)); break;  // tile border column
      case 1: x = std::min<std::uint64_t>(w - 1, (x / 16) * 16 + 15); y = std::min<std::uint64_t>(h - 1, (y / 16) * 16); break;  // corner
      case 2: if (!cells.empty()) { x = std::min<std::uint64_t>(w - 1, cells[0] % w + rng() % 3); y = cells[0] / w; } break;  // same tile
      default: break;
    }
    if (valid(y * w + x)) cells.push_back(y * w + x);
  }
  return cells;
}

std::vector<SourcePoint> points_of(const std::vector<std::uint64_t>& cells, std::uint64_t w) {
  std::vector<SourcePoint> points;
  for (std::uint64_t c : cells) points.push_back(pixel(c % w, c / w));
  return points;
}

void expect_same(const std::vector<PathLength>& got, const std::vector<PathLength>& want, std::uint64_t k, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::uint64_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << what << ": from site " << i / k + 1 << " to site " << i % k + 1;
}

TEST(OdMatrix, RandomRastersWithIndexAndWithoutMatchTheOracle) {
  testing::TempDir dir;
  int unreachable_pairs = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    const std::uint64_t w = 20 + rng() % 60, h = 20 + rng() % 60;
    std::vector<double> values(w * h);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (auto& v : values) v = unit(rng) < 0.06 ? kNaN : std::floor(unit(rng) * 50);
    if (seed % 2 == 0) {  // a wall of nodata with a gap, and a closed nodata ring around an island
      const std::uint64_t wx = 5 + rng() % (w - 10);
      for (std::uint64_t y = 0; y < h; ++y)
        if (y != h / 2) values[y * w + wx] = kNaN;
      for (std::uint64_t y = 2; y <= 8; ++y)
        for (std::uint64_t x = 2; x <= 8; ++x)
          if (y == 2 || y == 8 || x == 2 || x == 8) values[y * w + x] = kNaN;
          else values[y * w + x] = 7;
    }
    const std::string input = dir.file("in" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    const WeightModel model = seed % 3 == 0 ? WeightModel::Max : seed % 3 == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
    const Connectivity c = seed % 4 == 0 ? Connectivity::Four : Connectivity::Eight;
    std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 3 + static_cast<int>(rng() % 5));
    if (seed % 2 == 0) cells.push_back(5 * w + 5);  // on the island
    const std::uint32_t leaf = seed % 3 == 0 ? 4 : seed % 3 == 1 ? 8 : 16;
    const std::string index = dir.file("in" + std::to_string(seed) + ".tzi");
    const IndexResult built = build(input, index, model, c, 16, leaf);
    const double max_cost = seed % 5 == 0 ? 60.0 : -1.0;
    const OdMatrixResult with = query(input, index, points_of(cells, w), model, c, max_cost, seed % 3 == 0 ? 1 : 0);
    const OdMatrixResult without = query(input, "", points_of(cells, w), model, c, max_cost);
    const PathLength max_fixed = max_cost < 0 ? kUnreached : static_cast<PathLength>(std::floor(max_cost * with.params.scale));
    const auto want = reference_matrix(values, w, h, with.params, c, max_fixed, cells);
    const std::string what = "seed " + std::to_string(seed);
    EXPECT_EQ(built.weights.params.scale, with.params.scale);
    expect_same(with.costs, want, cells.size(), what + " with the index");
    expect_same(without.costs, want, cells.size(), what + " without the index");
    for (PathLength d : want) unreachable_pairs += d == kUnreached;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(unreachable_pairs, 0) << "no case had an unreachable pair (island sites)";
}

// The exchange without the index carries a label vector per source for a batch of sources: batches
// of one and of two sources and one batch of all give the same matrix, the oracle's (tiles of 16).
TEST(OdMatrix, BatchedExchangeEqualsOneSourceAtATime) {
  testing::TempDir dir;
  std::mt19937_64 rng(4242);
  const std::uint64_t w = 150, h = 120;
  std::vector<double> values(w * h);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (auto& v : values) v = unit(rng) < 0.05 ? kNaN : 1 + std::floor(unit(rng) * 20);
  const std::string input = dir.file("batch.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
  const std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 9);
  OdMatrixOptions o;
  o.input = input;
  o.sites = points_of(cells, w);
  o.weight = WeightModel::Friction;
  o.tile = 16;
  o.threads = 2;
  MemoryBudget budget(256ull << 20);
  const OdMatrixResult all = run_od_matrix(o, budget, Progress::silent());
  EXPECT_EQ(all.batch_sources, cells.size());
  for (std::uint64_t batch : {1u, 2u}) {
    o.max_batch = batch;
    const OdMatrixResult few = run_od_matrix(o, budget, Progress::silent());
    EXPECT_EQ(few.batch_sources, batch);
    expect_same(few.costs, all.costs, cells.size(), "batches of " + std::to_string(batch) + " against one batch");
  }
  expect_same(all.costs, reference_matrix(values, w, h, all.params, Connectivity::Eight, kUnreached, cells), cells.size(),
              "batched against the oracle");
}

// Region sites (--sites-raster): the cost between two regions is the least over their cells' pairs:
// against a multi-source Dijkstra from each region's cells, with and without the index, regions that
// span several tiles, share a tile, hold nodata cells, and one closed off by nodata.
TEST(OdMatrix, RegionSitesMatchAMultiSourceOracle) {
  testing::TempDir dir;
  int unreachable = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed * 6151);
    const std::uint64_t w = 30 + rng() % 50, h = 30 + rng() % 50;
    std::vector<double> values(w * h);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (auto& v : values) v = unit(rng) < 0.05 ? kNaN : 1 + std::floor(unit(rng) * 30);
    for (std::uint64_t y = 2; y <= 8; ++y)  // a closed nodata ring around an island
      for (std::uint64_t x = 2; x <= 8; ++x)
        if (y == 2 || y == 8 || x == 2 || x == 8) values[y * w + x] = kNaN;
        else values[y * w + x] = 5;
    // Regions: rectangles and scattered cells with ids 3, 7, 12, ..., one on the island.
    std::vector<double> ids(w * h, 0);
    const int regions = 3 + static_cast<int>(rng() % 3);
    for (int r = 0; r < regions; ++r) {
      const double id = 3 + 4 * r + (r == 1 ? 1 : 0);
      const std::uint64_t x0 = 10 + rng() % (w - 20), y0 = 10 + rng() % (h - 20);
      const std::uint64_t rw = 1 + rng() % 12, rh = 1 + rng() % 12;
      for (std::uint64_t y = y0; y < std::min(h, y0 + rh); ++y)
        for (std::uint64_t x = x0; x < std::min(w, x0 + rw); ++x) ids[y * w + x] = id;
      for (int extra = 0; extra < 3; ++extra) ids[(rng() % h) * w + rng() % w] = id;
      ids[(y0 + rh / 2 < h ? y0 + rh / 2 : y0) * w + x0] = id;  // at least one cell kept
    }
    for (std::uint64_t y = 4; y <= 6; ++y) ids[y * w + 4] = ids[y * w + 5] = 99;  // the island region
    const std::string input = dir.file("reg" + std::to_string(seed) + ".tif");
    const std::string zones = dir.file("zones" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    testing::write_raster_values(zones, w, h, ids, CellType::Int32, 0);
    const Connectivity c = seed % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    const WeightModel model = seed % 2 ? WeightModel::Friction : WeightModel::AbsDiff;
    const std::string index = dir.file("reg" + std::to_string(seed) + ".tzi");
    build(input, index, model, c, 16, 8);
    OdMatrixOptions o;
    o.input = input;
    o.sites_raster = zones;
    o.weight = model;
    o.connectivity = c;
    o.tile = 16;
    o.threads = 2;
    MemoryBudget budget(256ull << 20);
    const OdMatrixResult without = run_od_matrix(o, budget, Progress::silent());
    o.index = index;
    const OdMatrixResult with = run_od_matrix(o, budget, Progress::silent());
    // The oracle: one multi-source Dijkstra per region from its valid cells.
    std::map<std::uint64_t, std::vector<std::uint64_t>> cells_of;
    for (std::uint64_t cell = 0; cell < w * h; ++cell)
      if (ids[cell] != 0) cells_of[static_cast<std::uint64_t>(ids[cell])].push_back(cell);
    std::vector<std::uint64_t> want_ids;
    std::vector<PathLength> want;
    for (const auto& [id, list] : cells_of) want_ids.push_back(id);
    for (const auto& [id, list] : cells_of) {
      testing::SsspReferenceProblem ref;
      ref.width = w;
      ref.height = h;
      ref.values = values.data();
      ref.params = with.params;
      ref.connectivity = c;
      std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
      for (std::uint64_t cell : list)
        if (values[cell] == values[cell]) sources.push_back({cell, 0});
      testing::set_reference_sources(ref, sources);
      ASSERT_TRUE(testing::sssp_reference(ref));
      for (const auto& [to, targets] : cells_of) {
        PathLength best = kUnreached;
        for (std::uint64_t cell : targets)
          if (values[cell] == values[cell]) best = std::min(best, ref.dist[cell]);
        want.push_back(best);
        unreachable += best == kUnreached;
      }
    }
    const std::string what = "seed " + std::to_string(seed);
    EXPECT_EQ(with.site_ids, want_ids) << what;
    expect_same(without.costs, want, want_ids.size(), what + " regions without the index");
    expect_same(with.costs, want, want_ids.size(), what + " regions with the index");
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(unreachable, 0) << "the island region should be unreachable from the others";
}

// --distance: od-matrix with map step lengths (an index built with --distance map, and without an
// index) against the oracle with those lengths; geodesic (no index) against plain sssp at the sites;
// an index of one mode refuses a query of another, and an index refuses geodesic.
TEST(OdMatrix, DistanceModesMatchSsspAndTheIndexRecordsItsMode) {
  testing::TempDir dir;
  std::mt19937_64 rng(777);
  const std::uint64_t w = 60, h = 50;
  std::vector<double> values(w * h);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (auto& v : values) v = unit(rng) < 0.05 ? kNaN : 1 + std::floor(unit(rng) * 20);
  auto georef = [](const std::string& crs, double x0, double y0, double dx, double dy) {
    RasterInfo info;
    info.has_geotransform = true;
    info.geotransform = {x0, dx, 0, y0, 0, dy};
    info.crs_wkt = crs_to_wkt(crs, "test");
    return info;
  };
  const std::string projected = dir.file("utm.tif"), lonlat = dir.file("lonlat.tif");
  testing::write_raster_values(projected, w, h, values, CellType::Float32, -9999, georef("EPSG:32619", 300000, 4900000, 30.0, -20.0));
  testing::write_raster_values(lonlat, w, h, values, CellType::Float32, -9999, georef("EPSG:4326", -72.0, 70.0, 0.01, -0.005));
  const std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 6);
  OdMatrixOptions o;
  o.input = projected;
  o.sites = points_of(cells, w);
  o.tile = 16;
  o.threads = 2;
  o.distance = DistanceMode::Map;
  MemoryBudget budget(256ull << 20);
  const OdMatrixResult map = run_od_matrix(o, budget, Progress::silent());
  EXPECT_EQ(map.params.steps.ew, 30.0);
  EXPECT_EQ(map.params.steps.ns, 20.0);
  expect_same(map.costs, reference_matrix(values, w, h, map.params, Connectivity::Eight, kUnreached, cells), cells.size(),
              "map without the index");
  IndexOptions io;
  io.input = projected;
  io.output = dir.file("utm_map.tzi");
  io.tile = 16;
  io.device = "cpu";
  io.distance = DistanceMode::Map;
  run_index(io, budget, Progress::silent());
  o.index = io.output;
  const OdMatrixResult map_indexed = run_od_matrix(o, budget, Progress::silent());
  expect_same(map_indexed.costs, map.costs, cells.size(), "map with the index");
  // Mismatches: a map index queried with cell lengths, a cells index queried with map lengths.
  OdMatrixOptions cells_query = o;
  cells_query.distance = DistanceMode::Cells;
  EXPECT_THROW(run_od_matrix(cells_query, budget, Progress::silent()), UsageError);
  io.output = dir.file("utm_cells.tzi");
  io.distance = DistanceMode::Cells;
  run_index(io, budget, Progress::silent());
  o.index = io.output;
  EXPECT_THROW(run_od_matrix(o, budget, Progress::silent()), UsageError);
  // Geodesic: no index; od-matrix equals sssp's cost raster at the sites.
  io.input = lonlat;
  io.output = dir.file("geo.tzi");
  io.distance = DistanceMode::Geodesic;
  EXPECT_THROW(run_index(io, budget, Progress::silent()), UsageError);
  OdMatrixOptions g = o;
  g.input = lonlat;
  g.index = "";
  g.distance = DistanceMode::Geodesic;
  const OdMatrixResult geo = run_od_matrix(g, budget, Progress::silent());
  ASSERT_NE(geo.params.steps.rows, nullptr);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    SsspOptions so;
    so.input = lonlat;
    so.output = dir.file("geo_cost.tif");
    so.sources = {o.sites[i]};
    so.distance = DistanceMode::Geodesic;
    so.tile = 16;
    so.device = "cpu";
    const SsspResult r = run_sssp(so, budget, Progress::silent());
    ASSERT_EQ(r.params.scale, geo.params.scale);
    const auto dist = testing::fixed_distances(testing::read_raster_values(so.output), r.params.scale);
    for (std::size_t j = 0; j < cells.size(); ++j)
      ASSERT_EQ(geo.costs[i * cells.size() + j], dist[cells[j]]) << "geodesic from site " << i + 1 << " to " << j + 1;
  }
  g.index = dir.file("utm_cells.tzi");  // geodesic with an index: refused
  EXPECT_THROW(run_od_matrix(g, budget, Progress::silent()), UsageError);
}

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
    std::vector<double> values(w * h);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (auto& v : values) v = unit(rng) < 0.05 ? kNaN : 1 + std::floor(unit(rng) * 30);
    const std::uint64_t wx = 8 + rng() % (w - 16);
    for (std::uint64_t y = 0; y < h; ++y)
      if (y != h / 3) values[y * w + wx] = kNaN;
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
    std::vector<double> values(w * h);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (auto& v : values) v = unit(rng) < 0.06 ? kNaN : std::floor(1 + unit(rng) * 40);
    for (std::uint64_t y = 2; y <= 8; ++y)  // a closed nodata ring around an island
      for (std::uint64_t x = 2; x <= 8; ++x)
        values[y * w + x] = y == 2 || y == 8 || x == 2 || x == 8 ? kNaN : 5;
    const std::string input = dir.file("rq" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    const WeightModel model = seed % 2 ? WeightModel::Friction : WeightModel::AbsDiff;
    const Connectivity c = seed == 3 ? Connectivity::Four : Connectivity::Eight;
    std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 5);
    cells.push_back(5 * w + 5);
    const std::string index = dir.file("rq" + std::to_string(seed) + ".tzi");
    build(input, index, model, c, 16, 8);
    OdMatrixOptions o;
    o.input = input;
    o.index = index;
    o.sites = points_of(cells, w);
    o.weight = model;
    o.connectivity = c;
    o.max_cost = seed == 4 ? 80.0 : -1.0;
    o.threads = 2;
    o.device = "cpu";
    MemoryBudget budget(256ull << 20);
    o.exchange = "queue";
    const OdMatrixResult queue = run_od_matrix(o, budget, Progress::silent());
    EXPECT_EQ(queue.exchange, "queue");
    o.exchange = "rounds";
    o.max_batch = seed % 2 ? 1 : 0;
    const OdMatrixResult rounds = run_od_matrix(o, budget, Progress::silent());
    EXPECT_EQ(rounds.exchange, "rounds-cpu");
    const PathLength max_fixed = o.max_cost < 0 ? kUnreached : static_cast<PathLength>(std::floor(o.max_cost * rounds.params.scale));
    const std::string what = "seed " + std::to_string(seed);
    expect_same(rounds.costs, queue.costs, cells.size(), what + ": rounds against the queue");
    expect_same(rounds.costs, reference_matrix(values, w, h, rounds.params, c, max_fixed, cells), cells.size(), what + ": rounds against the oracle");
    if (::testing::Test::HasFailure()) return;
  }
  // Rounds need the index; an unknown exchange is a usage error.
  OdMatrixOptions bad;
  bad.input = dir.file("rq1.tif");
  bad.sites = {pixel(10, 12), pixel(20, 22)};
  bad.exchange = "rounds";
  bad.weight = WeightModel::Friction;
  MemoryBudget budget(64ull << 20);
  auto message = [&]() -> std::string {
    try {
      run_od_matrix(bad, budget, Progress::silent());
    } catch (const UsageError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message().find("--exchange rounds needs --index"), std::string::npos) << message();
  bad.index = dir.file("rq1.tzi");
  bad.exchange = "fastest";
  EXPECT_NE(message().find("--exchange must be auto, queue or rounds"), std::string::npos) << message();
}

TEST(OdMatrix, RealDemsEqualPlainSsspRuns) {
  testing::TempDir dir;
  for (const std::string name : {"pysheds_dem.tif", "hugo_site.asc"}) {
    const std::string input = std::string(TERRAZO_DATASETS) + "/real/" + name;
    RasterInfo info;
    const std::vector<double> values = testing::read_raster_values(input, &info);
    std::mt19937_64 rng(name.size());
    const std::vector<std::uint64_t> cells = pick_sites(values, info.width, info.height, rng, 5);
    const std::string index = dir.file(name + ".tzi");
    build(input, index, WeightModel::Friction, Connectivity::Eight, 32, 8);
    const OdMatrixResult with = query(input, index, points_of(cells, info.width), WeightModel::Friction, Connectivity::Eight);
    const OdMatrixResult without = query(input, "", points_of(cells, info.width), WeightModel::Friction, Connectivity::Eight,
                                         -1, 0, 64);
    expect_same(without.costs, with.costs, cells.size(), name + ": without the index against with it");
    // K plain sssp runs through the api: the cost raster at every site.
    for (std::uint64_t s = 0; s < cells.size(); ++s) {
      SsspOptions o;
      o.input = input;
      o.output = dir.file(name + "_cost" + std::to_string(s) + ".tif");
      o.sources = {pixel(cells[s] % info.width, cells[s] / info.width)};
      o.tile = 64;
      MemoryBudget budget(256ull << 20);
      const SsspResult r = run_sssp(o, budget, Progress::silent());
      ASSERT_EQ(r.params.scale, with.params.scale);
      const auto dist = testing::fixed_distances(testing::read_raster_values(o.output), r.params.scale);
      for (std::uint64_t t = 0; t < cells.size(); ++t)
        ASSERT_EQ(with.costs[s * cells.size() + t], dist[cells[t]]) << name << " site " << s + 1 << " -> " << t + 1;
    }
  }
}

TEST(OdMatrix, GeneratedTerrainWithTheIndexMatchesTheOracle) {
  testing::TempDir dir;
  GenerateOptions g;
  g.terrain.width = 300;
  g.terrain.height = 217;
  g.terrain.seed = 7;
  g.terrain.nodata_holes = 0.02;
  g.output = dir.file("gen.tzs");
  g.tile = 64;
  MemoryBudget budget(256ull << 20);
  run_generate(g, budget, Progress::silent());
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(g.output, &info);
  std::mt19937_64 rng(7);
  const std::vector<std::uint64_t> cells = pick_sites(values, info.width, info.height, rng, 8);
  const std::string index = dir.file("gen.tzi");
  build(g.output, index, WeightModel::AbsDiff, Connectivity::Eight, 32, 8);
  const OdMatrixResult with = query(g.output, index, points_of(cells, info.width), WeightModel::AbsDiff, Connectivity::Eight);
  const auto want = reference_matrix(values, info.width, info.height, with.params, Connectivity::Eight, kUnreached, cells);
  expect_same(with.costs, want, cells.size(), "generated terrain");
}

// `sssp --index` against the oracle (random rasters with walls and islands, several sources, max
// cost) and against plain sssp on a real DEM.
TEST(SsspIndex, CostRasterEqualsTheOracleAndPlainSssp) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::mt19937_64 rng(seed * 7907);
    const std::uint64_t w = 20 + rng() % 70, h = 20 + rng() % 70;
    std::vector<double> values(w * h);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (auto& v : values) v = unit(rng) < 0.06 ? kNaN : std::floor(unit(rng) * 50);
    if (seed % 2 == 0) {
      const std::uint64_t wx = 5 + rng() % (w - 10);
      for (std::uint64_t y = 0; y < h; ++y)
        if (y != h / 3) values[y * w + wx] = kNaN;
    }
    const std::string input = dir.file("s" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    const WeightModel model = seed % 3 == 0 ? WeightModel::Max : seed % 3 == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
    const Connectivity c = seed % 4 == 0 ? Connectivity::Four : Connectivity::Eight;
    const std::string index = dir.file("s" + std::to_string(seed) + ".tzi");
    build(input, index, model, c, 16, 8);
    SsspOptions o;
    o.input = input;
    o.output = dir.file("s" + std::to_string(seed) + "_cost.tif");
    o.index = index;
    o.weight = model;
    o.connectivity = c;
    if (seed % 5 == 0) o.max_cost = 50.0;
    if (seed % 3 == 0) o.cache_bytes = 1;  // the smallest cache: two tiles
    const std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 1 + static_cast<int>(rng() % 3));
    std::vector<std::pair<std::uint64_t, std::uint32_t>> seeds;
    for (std::uint64_t cell : cells) {
      o.sources.push_back(pixel(cell % w, cell / w));
      seeds.push_back({cell, 0});
    }
    MemoryBudget budget(256ull << 20);
    const SsspResult r = run_sssp(o, budget, Progress::silent());
    EXPECT_EQ(r.exchange, "index");
    testing::SsspReferenceProblem ref;
    ref.width = w;
    ref.height = h;
    ref.values = values.data();
    ref.params = r.params;
    ref.connectivity = c;
    ref.max_cost = r.max_cost_fixed;
    testing::set_reference_sources(ref, seeds);
    ASSERT_TRUE(testing::sssp_reference(ref));
    const auto dist = testing::fixed_distances(testing::read_raster_values(o.output), r.params.scale);
    for (std::uint64_t i = 0; i < dist.size(); ++i)
      ASSERT_EQ(dist[i], ref.dist[i]) << "seed " << seed << " cell " << i % w << "," << i / w;
  }
  // A real DEM: the index's cost raster equals plain sssp's, bit for bit.
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string index = dir.file("pysheds.tzi");
  build(dem, index, WeightModel::Friction, Connectivity::Eight, 32, 8);
  SsspOptions a;
  a.input = dem;
  a.output = dir.file("plain.tif");
  a.sources = {pixel(17, 23), pixel(300, 200)};
  a.tile = 64;
  SsspOptions b = a;
  b.output = dir.file("indexed.tif");
  b.index = index;
  MemoryBudget budget(256ull << 20);
  run_sssp(a, budget, Progress::silent());
  run_sssp(b, budget, Progress::silent());
  const auto plain = testing::read_raster_values(a.output), indexed = testing::read_raster_values(b.output);
  ASSERT_EQ(plain.size(), indexed.size());
  for (std::uint64_t i = 0; i < plain.size(); ++i)
    ASSERT_TRUE(plain[i] == indexed[i] || (plain[i] != plain[i] && indexed[i] != indexed[i])) << "cell " << i;
  // --index with --backlink: one usage error.
  SsspOptions c = b;
  c.backlink = dir.file("back.tif");
  EXPECT_THROW(run_sssp(c, budget, Progress::silent()), UsageError);
  // --index with map step lengths (the index holds cell step lengths): one usage error.
  SsspOptions d = b;
  d.distance = DistanceMode::Map;
  EXPECT_THROW(run_sssp(d, budget, Progress::silent()), UsageError);
}

// The network: the tree's edges are the minimum spanning tree of the oracle's matrix (Prim on the
// oracle, independent of Kruskal), each traced as a line whose cost is the matrix entry; an island
// site makes a forest.
TEST(Network, TreeIsTheMinimumSpanningTreeOfTheMatrixAndEveryEdgeIsTraced) {
  testing::TempDir dir;
  std::mt19937_64 rng(5);
  const std::uint64_t w = 70, h = 50;
  std::vector<double> values(w * h);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (auto& v : values) v = unit(rng) < 0.05 ? kNaN : 1 + std::floor(unit(rng) * 30);
  for (std::uint64_t y = 2; y <= 8; ++y)
    for (std::uint64_t x = 2; x <= 8; ++x) values[y * w + x] = (y == 2 || y == 8 || x == 2 || x == 8) ? kNaN : 3;
  const std::string input = dir.file("net.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
  std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 7);
  cells.push_back(5 * w + 5);  // the island
  cells.push_back(4 * w + 6);  // a second site on it
  const std::uint64_t k = cells.size();
  const std::string index = dir.file("net.tzi");
  build(input, index, WeightModel::Friction, Connectivity::Eight, 16, 8);
  for (const bool with_index : {true, false}) {
    NetworkOptions o;
    o.od.input = input;
    o.od.output = dir.file(with_index ? "a.geojson" : "b.geojson");
    o.od.index = with_index ? index : "";
    o.od.sites = points_of(cells, w);
    o.od.tile = 16;
    MemoryBudget budget(256ull << 20);
    const NetworkResult r = run_network(o, budget, Progress::silent());
    const auto want = reference_matrix(values, w, h, r.matrix.params, Connectivity::Eight, kUnreached, cells);
    // Prim's total weight per component on the oracle's matrix.
    std::vector<char> in(k, 0);
    PathLength total = 0;
    std::uint64_t components = 0;
    for (std::uint64_t root = 0; root < k; ++root) {
      if (in[root]) continue;
      ++components;
      std::vector<PathLength> key(k, kUnreached);
      key[root] = 0;
      for (;;) {
        std::uint64_t best = k;
        for (std::uint64_t v = 0; v < k; ++v)
          if (!in[v] && key[v] != kUnreached && (best == k || key[v] < key[best])) best = v;
        if (best == k) break;
        in[best] = 1;
        total += key[best];
        for (std::uint64_t v = 0; v < k; ++v)
          if (!in[v] && want[best * k + v] < key[v]) key[v] = want[best * k + v];
      }
    }
    EXPECT_EQ(r.components, components);
    EXPECT_EQ(components, 2u);
    EXPECT_EQ(r.edges.size(), k - components);
    PathLength got = 0;
    for (const NetworkEdge& e : r.edges) {
      got += e.cost;
      EXPECT_EQ(e.cost, want[e.from * k + e.to]);
      EXPECT_GE(e.cells, cells[e.from] == cells[e.to] ? 1u : 2u);
    }
    EXPECT_EQ(got, total);
    std::ifstream f(o.od.output);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::size_t features = 0;
    for (std::size_t at = text.find("\"LineString\""); at != std::string::npos; at = text.find("\"LineString\"", at + 1)) ++features;
    EXPECT_EQ(features, r.edges.size());
  }
}

TEST(IndexFile, LeafSideDoesNotChangeTheMatricesAndCorruptionIsAnError) {
  testing::TempDir dir;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc";
  build(input, dir.file("a.tzi"), WeightModel::Friction, Connectivity::Eight, 32, 4);
  build(input, dir.file("b.tzi"), WeightModel::Friction, Connectivity::Eight, 32, 16);
  MemoryBudget budget(64ull << 20);
  auto a = IndexFile::open(dir.file("a.tzi"), budget);
  auto b = IndexFile::open(dir.file("b.tzi"), budget);
  EXPECT_EQ(a->header().fingerprint, b->header().fingerprint);
  const std::uint32_t ring = 4 * 32 - 4;
  std::vector<double> ra(ring), rb(ring);
  std::vector<PathLength> ma(ring * ring), mb(ring * ring);
  const std::uint64_t tiles = a->header().grid().tile_count();
  std::uint64_t present = 0;
  for (std::uint64_t i = 0; i < tiles; ++i) {
    a->read_tile(i, ra.data(), ma.data());
    b->read_tile(i, rb.data(), mb.data());
    ASSERT_EQ(ma, mb) << "tile " << i;
    present += a->entry(i).offset != 0;
  }
  EXPECT_GT(present, 0u);
  // `terrazo info` describes an index (and reads every tile).
  const InfoCommandResult info = run_info_command(parse_info_options({dir.file("b.tzi")}), Progress::silent());
  EXPECT_NE(info.summary().find("boundary-graph index"), std::string::npos) << info.summary();
  EXPECT_EQ(info.index.present_tiles, present);
  EXPECT_NE(info.to_json().find("\"format\":\"tzi\""), std::string::npos);
  // One flipped byte in a tile record: an Error naming the tile, not a wrong distance.
  std::uint64_t victim = 0;
  while (a->entry(victim).offset == 0) ++victim;
  const std::uint64_t at = a->entry(victim).offset + a->entry(victim).bytes / 2;
  a.reset();
  {
    std::fstream f(dir.file("a.tzi"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x40);
    f.seekp(static_cast<std::streamoff>(at));
    f.write(&byte, 1);
  }
  auto corrupt = IndexFile::open(dir.file("a.tzi"), budget);
  EXPECT_THROW(corrupt->read_tile(victim, ra.data(), ma.data()), Error);
  // Truncated: refused on open.
  {
    std::ifstream in(dir.file("b.tzi"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(dir.file("c.tzi"), std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() - 100));
  }
  EXPECT_THROW(IndexFile::open(dir.file("c.tzi"), budget), Error);
}

TEST(OdMatrixCommand, BadInputIsAUsageError) {
  testing::TempDir dir;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc";
  const std::string out = dir.file("od.csv");
  // Fewer than 2 sites.
  EXPECT_THROW(parse_od_matrix_options({"--site", "1,1", input, out}), UsageError);
  EXPECT_THROW(parse_od_matrix_options({input, out}), UsageError);
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(input, &info);
  std::uint64_t nodata = 0;
  while (nodata < values.size() && values[nodata] == values[nodata]) ++nodata;
  std::uint64_t valid = 0;
  while (values[valid] != values[valid]) ++valid;
  const std::string a = std::to_string(valid % info.width) + "," + std::to_string(valid / info.width);
  // Outside the raster.
  auto outside = parse_od_matrix_options({"--site", a, "--site", std::to_string(info.width + 5) + ",0", input, out});
  EXPECT_THROW(run_od_matrix_command(outside, Progress::silent()), UsageError);
  // On nodata (with and without an index).
  const std::string index = dir.file("hugo.tzi");
  build(input, index, WeightModel::Friction, Connectivity::Eight, 16, 8);
  if (nodata < values.size()) {
    const std::string n = std::to_string(nodata % info.width) + "," + std::to_string(nodata / info.width);
    auto on_nodata = parse_od_matrix_options({"--site", a, "--site", n, input, out});
    EXPECT_THROW(run_od_matrix_command(on_nodata, Progress::silent()), UsageError);
    auto on_nodata_index = parse_od_matrix_options({"--index", index, "--site", a, "--site", n, input, out});
    EXPECT_THROW(run_od_matrix_command(on_nodata_index, Progress::silent()), UsageError);
  }
  // An index of another weight model.
  auto other_weight = parse_od_matrix_options({"--index", index, "--weight", "absdiff", "--site", a, "--site", a, input, out});
  EXPECT_THROW(run_od_matrix_command(other_weight, Progress::silent()), UsageError);
  // An index of another raster of another size, and of the same size with other values (fingerprint).
  const std::string pysheds = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  auto other_raster = parse_od_matrix_options({"--index", index, "--site", "1,1", "--site", "2,2", pysheds, out});
  EXPECT_THROW(run_od_matrix_command(other_raster, Progress::silent()), UsageError);
  std::vector<double> changed = values;
  for (double& v : changed)
    if (v == v) v += 1.0;
  const std::string shifted = dir.file("shifted.tif");
  testing::write_raster_values(shifted, info.width, info.height, changed, CellType::Float64, -9999, info);
  auto fingerprint = parse_od_matrix_options({"--index", index, "--scale", std::to_string(build(input, dir.file("x.tzi"), WeightModel::Friction, Connectivity::Eight, 16, 8).weights.params.scale),
                                              "--site", a, "--site", a, shifted, out});
  EXPECT_THROW(run_od_matrix_command(fingerprint, Progress::silent()), UsageError);
  // Not an index at all.
  auto not_index = parse_od_matrix_options({"--index", input, "--site", a, "--site", a, input, out});
  EXPECT_THROW(run_od_matrix_command(not_index, Progress::silent()), UsageError);
}

TEST(OdMatrixCli, WritesTheCsvAndRefusesBadInputWithOneLineAndExitTwo) {
  testing::TempDir dir;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string index = dir.file("p.tzi"), out = dir.file("od.csv"), wide = dir.file("wide.csv"), err = dir.file("err.txt");
  const std::string bin = TERRAZO_BINARY;
  ASSERT_EQ(std::system((bin + " index -q --device cpu --tile 32 " + input + " " + index).c_str()), 0);
  ASSERT_EQ(std::system((bin + " od-matrix -q --index " + index + " --site 10,10 --site 100,50 --site 200,120 " + input + " " + out).c_str()), 0);
  ASSERT_EQ(std::system((bin + " od-matrix -q --wide --geojson " + dir.file("lines.geojson") +
                         " --site 10,10 --site 100,50 --site 200,120 " + input + " " + wide).c_str()), 0);
  {
    std::ifstream lines(dir.file("lines.geojson"));
    const std::string text((std::istreambuf_iterator<char>(lines)), std::istreambuf_iterator<char>());
    std::size_t count = 0;
    for (std::size_t at = text.find("\"LineString\""); at != std::string::npos; at = text.find("\"LineString\"", at + 1)) ++count;
    EXPECT_EQ(count, 3u) << text;  // pairs 1-2, 1-3, 2-3
    EXPECT_NE(text.find("urn:ogc:def:crs:EPSG::4326"), std::string::npos);
  }
  std::ifstream f(out);
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "from_id,to_id,cost");
  int rows = 0;
  std::vector<double> long_costs;
  while (std::getline(f, line)) {
    ++rows;
    long_costs.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  }
  EXPECT_EQ(rows, 9);
  EXPECT_EQ(long_costs[0], 0.0);
  EXPECT_GT(long_costs[1], 0.0);
  std::ifstream g(wide);
  std::getline(g, line);
  EXPECT_EQ(line, "from_id,1,2,3");
  std::getline(g, line);
  std::stringstream cells(line);
  std::string cell;
  std::getline(cells, cell, ',');
  for (int j = 0; j < 3; ++j) {
    std::getline(cells, cell, ',');
    EXPECT_EQ(std::stod(cell), long_costs[j]) << "the wide table and the long form (index or not) agree";
  }
  // One site: exit 2, one line.
  const int status = std::system((bin + " od-matrix --site 10,10 " + input + " " + out + " 2> " + err).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream e(err);
  int lines = 0;
  while (std::getline(e, line)) ++lines;
  EXPECT_EQ(lines, 1);
}

}  // namespace
}  // namespace terrazo
