// tests/test_od_matrix.cpp: the boundary-graph index (terrazo index) and origin-destination matrices
// (terrazo od-matrix) against the in-memory Dijkstra oracle (tests/support/sssp_reference.h) and
// against plain `terrazo sssp` runs: random rasters with holes, walls and islands, real DEMs and
// generated terrain; sites on tile borders and corners, in one tile, on unreachable islands; region
// sites; step-length modes; with the index, without it, with a tiny cache; `sssp --index`; the index
// file's checksums. The G' rounds: test_gprime_rounds.cpp; the transient index and the index in
// memory: test_od_matrix_transient.cpp; the command and the CLI: test_od_matrix_cli.cpp; the
// network: test_network.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/generate_terrain.h"
#include "engine/commands/index.h"
#include "engine/commands/info_command.h"
#include "engine/commands/sssp.h"
#include "kernels/common/error.h"
#include "engine/index/index_loader.h"
#include "io/store/index_file.h"
#include "kernels/index/boundary_ring.h"
#include "tests/support/od_matrix_support.h"
#include "tests/support/random_values.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using namespace testing::od_matrix_suite;

TEST(OdMatrix, RandomRastersWithIndexAndWithoutMatchTheOracle) {
  testing::TempDir dir;
  int unreachable_pairs = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    const std::uint64_t w = 20 + rng() % 60, h = 20 + rng() % 60;
    std::vector<double> values = testing::random_values(rng, w * h, 0.06, 0, 50);
    if (seed % 2 == 0) {  // a wall of nodata with a gap, and a closed nodata ring around an island
      testing::add_nodata_wall(values, w, h, 5 + rng() % (w - 10), h / 2);
      testing::add_nodata_island(values, w, 7);
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
    // With the index: the sweep (the CPU's auto) on odd seeds, the queue on even ones (a tiny cache on
    // every third): the same matrix.
    const OdMatrixResult with = query(input, index, points_of(cells, w), model, c, max_cost, seed % 3 == 0 ? 1 : 0,
                                      seed % 2 ? "auto" : "queue");
    EXPECT_EQ(with.exchange, seed % 2 ? "sweep" : "queue");
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
  std::vector<double> values = testing::random_values(rng, w * h, 0.05, 1, 20);
  const std::string input = dir.file("batch.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
  const std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 9);
  OdMatrixOptions o = od_options(input, WeightModel::Friction, Connectivity::Eight);
  o.sites = points_of(cells, w);
  const OdMatrixResult all = run_query(o);
  EXPECT_EQ(all.batch_sources, cells.size());
  for (std::uint64_t batch : {1u, 2u}) {
    o.max_batch = batch;
    const OdMatrixResult few = run_query(o);
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
    std::vector<double> values = testing::random_values(rng, w * h, 0.05, 1, 30);
    testing::add_nodata_island(values, w, 5);
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
    OdMatrixOptions o = od_options(input, model, c);
    o.sites_raster = zones;
    const OdMatrixResult without = run_query(o);
    o.index = index;
    const OdMatrixResult with = run_query(o);
    // The oracle: one multi-source Dijkstra per region from its valid cells.
    std::map<std::uint64_t, std::vector<std::uint64_t>> cells_of;
    for (std::uint64_t cell = 0; cell < w * h; ++cell)
      if (ids[cell] != 0) cells_of[static_cast<std::uint64_t>(ids[cell])].push_back(cell);
    std::vector<std::uint64_t> want_ids;
    std::vector<PathLength> want;
    for (const auto& [id, list] : cells_of) want_ids.push_back(id);
    for (const auto& [id, list] : cells_of) {
      testing::SsspReferenceProblem ref = testing::reference_problem(w, h, values.data(), with.params, c);
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
  std::vector<double> values = testing::random_values(rng, w * h, 0.05, 1, 20);
  const std::string projected = dir.file("utm.tif"), lonlat = dir.file("lonlat.tif");
  testing::write_raster_values(projected, w, h, values, CellType::Float32, -9999,
                               testing::georef("EPSG:32619", 300000, 4900000, 30.0, -20.0));
  testing::write_raster_values(lonlat, w, h, values, CellType::Float32, -9999,
                               testing::georef("EPSG:4326", -72.0, 70.0, 0.01, -0.005));
  const std::vector<std::uint64_t> cells = pick_sites(values, w, h, rng, 6);
  OdMatrixOptions o = od_options(projected, WeightModel::Friction, Connectivity::Eight);
  o.sites = points_of(cells, w);
  o.distance = DistanceMode::Map;
  const OdMatrixResult map = run_query(o);
  EXPECT_EQ(map.params.steps.ew, 30.0);
  EXPECT_EQ(map.params.steps.ns, 20.0);
  expect_same(map.costs, reference_matrix(values, w, h, map.params, Connectivity::Eight, kUnreached, cells), cells.size(),
              "map without the index");
  IndexOptions io;
  io.input = projected;
  io.output = dir.file("utm_map.tzi");
  io.tile = 16;
  io.distance = DistanceMode::Map;
  run_index_on_cpu(io);
  o.index = io.output;
  const OdMatrixResult map_indexed = run_query(o);
  expect_same(map_indexed.costs, map.costs, cells.size(), "map with the index");
  // Mismatches: a map index queried with cell lengths, a cells index queried with map lengths.
  OdMatrixOptions cells_query = o;
  cells_query.distance = DistanceMode::Cells;
  EXPECT_THROW(run_query(cells_query), UsageError);
  io.output = dir.file("utm_cells.tzi");
  io.distance = DistanceMode::Cells;
  run_index_on_cpu(io);
  o.index = io.output;
  EXPECT_THROW(run_query(o), UsageError);
  // Geodesic: no index; od-matrix equals sssp's cost raster at the sites.
  io.input = lonlat;
  io.output = dir.file("geo.tzi");
  io.distance = DistanceMode::Geodesic;
  EXPECT_THROW(run_index_on_cpu(io), UsageError);
  OdMatrixOptions g = o;
  g.input = lonlat;
  g.index = "";
  g.distance = DistanceMode::Geodesic;
  const OdMatrixResult geo = run_query(g);
  MemoryBudget budget(256ull << 20);
  ASSERT_NE(geo.params.steps.rows, nullptr);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    SsspOptions so;
    RunSettings so_run;
    so.input = lonlat;
    so.output = dir.file("geo_cost.tif");
    so.sources = {o.sites[i]};
    so.distance = DistanceMode::Geodesic;
    so.tile = 16;
    so_run.device = DeviceRequest::Cpu;
    const SsspResult r = terrazo::testing::run_with(run_sssp, so, so_run, budget, Progress::silent());
    ASSERT_EQ(r.params.scale, geo.params.scale);
    const auto dist = testing::fixed_distances(testing::read_raster_values(so.output), r.params.scale);
    for (std::size_t j = 0; j < cells.size(); ++j)
      ASSERT_EQ(geo.costs[i * cells.size() + j], dist[cells[j]]) << "geodesic from site " << i + 1 << " to " << j + 1;
  }
  g.index = dir.file("utm_cells.tzi");  // geodesic with an index: refused
  EXPECT_THROW(run_query(g), UsageError);
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
    OdMatrixOptions exchange = od_options(input, WeightModel::Friction, Connectivity::Eight);
    exchange.sites = points_of(cells, info.width);
    exchange.tile = 64;
    const OdMatrixResult without = run_query(exchange);
    expect_same(without.costs, with.costs, cells.size(), name + ": without the index against with it");
    // K plain sssp runs through the api: the cost raster at every site.
    for (std::uint64_t s = 0; s < cells.size(); ++s) {
      SsspOptions o;
      RunSettings o_run;
      o.input = input;
      o.output = dir.file(name + "_cost" + std::to_string(s) + ".tif");
      o.sources = {pixel(cells[s] % info.width, cells[s] / info.width)};
      o.tile = 64;
      MemoryBudget budget(256ull << 20);
      const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
      ASSERT_EQ(r.params.scale, with.params.scale);
      const auto dist = testing::fixed_distances(testing::read_raster_values(o.output), r.params.scale);
      for (std::uint64_t t = 0; t < cells.size(); ++t)
        ASSERT_EQ(with.costs[s * cells.size() + t], dist[cells[t]]) << name << " site " << s + 1 << " -> " << t + 1;
    }
  }
}

TEST(OdMatrix, GeneratedTerrainWithTheIndexMatchesTheOracle) {
  testing::TempDir dir;
  const GeneratedTerrain g = generated_terrain(dir, 300, 217, 7);
  std::mt19937_64 rng(7);
  const std::vector<std::uint64_t> cells = pick_sites(g.values, g.info.width, g.info.height, rng, 8);
  const std::string index = dir.file("gen.tzi");
  build(g.path, index, WeightModel::AbsDiff, Connectivity::Eight, 32, 8);
  const OdMatrixResult with = query(g.path, index, points_of(cells, g.info.width), WeightModel::AbsDiff, Connectivity::Eight);
  const auto want = reference_matrix(g.values, g.info.width, g.info.height, with.params, Connectivity::Eight, kUnreached, cells);
  expect_same(with.costs, want, cells.size(), "generated terrain");
}

// `sssp --index` against the oracle (random rasters with walls and islands, several sources, max
// cost) and against plain sssp on a real DEM.
TEST(SsspIndex, CostRasterEqualsTheOracleAndPlainSssp) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::mt19937_64 rng(seed * 7907);
    const std::uint64_t w = 20 + rng() % 70, h = 20 + rng() % 70;
    std::vector<double> values = testing::random_values(rng, w * h, 0.06, 0, 50);
    if (seed % 2 == 0) testing::add_nodata_wall(values, w, h, 5 + rng() % (w - 10), h / 3);
    const std::string input = dir.file("s" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    const WeightModel model = seed % 3 == 0 ? WeightModel::Max : seed % 3 == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
    const Connectivity c = seed % 4 == 0 ? Connectivity::Four : Connectivity::Eight;
    const std::string index = dir.file("s" + std::to_string(seed) + ".tzi");
    build(input, index, model, c, 16, 8);
    SsspOptions o;
    RunSettings o_run;
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
    const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
    EXPECT_EQ(r.exchange, "index");
    testing::SsspReferenceProblem ref = testing::reference_problem(w, h, values.data(), r.params, c);
    ref.max_cost = r.max_cost_fixed;
    testing::set_reference_sources(ref, seeds);
    ASSERT_TRUE(testing::sssp_reference(ref));
    const auto dist = testing::fixed_distances(testing::read_raster_values(o.output), r.params.scale);
    ASSERT_TRUE(testing::equal_cells(dist, ref.dist, w)) << "seed " << seed;
  }
  // A real DEM: the index's cost raster equals plain sssp's, bit for bit.
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string index = dir.file("pysheds.tzi");
  build(dem, index, WeightModel::Friction, Connectivity::Eight, 32, 8);
  SsspOptions a;
  RunSettings a_run;
  a.input = dem;
  a.output = dir.file("plain.tif");
  a.sources = {pixel(17, 23), pixel(300, 200)};
  a.tile = 64;
  SsspOptions b = a;
  RunSettings b_run = a_run;
  b.output = dir.file("indexed.tif");
  b.index = index;
  MemoryBudget budget(256ull << 20);
  terrazo::testing::run_with(run_sssp, a, a_run, budget, Progress::silent());
  terrazo::testing::run_with(run_sssp, b, b_run, budget, Progress::silent());
  const auto plain = testing::read_raster_values(a.output), indexed = testing::read_raster_values(b.output);
  ASSERT_EQ(plain.size(), indexed.size());
  for (std::uint64_t i = 0; i < plain.size(); ++i)
    ASSERT_TRUE(plain[i] == indexed[i] || (plain[i] != plain[i] && indexed[i] != indexed[i])) << "cell " << i;
  // --index with --backlink: one usage error.
  SsspOptions c = b;
  RunSettings c_run = b_run;
  c.backlink = dir.file("back.tif");
  EXPECT_THROW(terrazo::testing::run_with(run_sssp, c, c_run, budget, Progress::silent()), UsageError);
  // --index with map step lengths (the index holds cell step lengths): one usage error.
  SsspOptions d = b;
  RunSettings d_run = b_run;
  d.distance = DistanceMode::Map;
  EXPECT_THROW(terrazo::testing::run_with(run_sssp, d, d_run, budget, Progress::silent()), UsageError);
}

// The threaded load of an index (engine/index/index_loader.h, GPrimeRounds' GPU upload): for 1, 3 and
// 8 threads, chunks of 1 and 3 tiles and 1, 2 or 5 slots, every chunk reaches consume in tile order
// with exactly read_tile's ring values and matrix per tile (checked when consumed, so a slot refilled
// too early fails); a corrupt tile record and an error of consume are rethrown, with no thread left.
TEST(IndexFile, ThreadedLoadEqualsReadTileInTileOrder) {
  testing::TempDir dir;
  const std::string path = dir.file("load.tzi");
  MemoryBudget budget(64ull << 20);
  auto index = testing::hugo_site_index(path, budget);
  const std::uint64_t b = ring_size(16);
  std::vector<std::uint64_t> tiles;
  for (std::uint64_t i = 0; i < index->header().grid().tile_count(); ++i)
    if (index->entry(i).offset != 0) tiles.push_back(i);
  ASSERT_GT(tiles.size(), 8u);
  std::vector<double> want_rings(tiles.size() * b);
  std::vector<PathLength> want(tiles.size() * b * b);
  for (std::uint64_t i = 0; i < tiles.size(); ++i) index->read_tile(tiles[i], want_rings.data() + i * b, want.data() + i * b * b);
  struct Sink : IndexLoadSink {
    std::uint64_t b, chunk, next = 0, fail_at = ~0ull;
    std::vector<std::vector<double>> ring_slots;
    std::vector<std::vector<PathLength>> matrix_slots;
    const std::vector<double>* want_rings;
    const std::vector<PathLength>* want;
    PathLength* matrices(unsigned slot) override { return matrix_slots[slot].data(); }
    double* rings(unsigned slot) override { return ring_slots[slot].data(); }
    void consume(unsigned slot, std::uint64_t first, std::uint64_t count) override {
      if (first == fail_at) throw Error("the sink fails");
      ASSERT_EQ(first, next) << "chunks out of order";
      for (std::uint64_t i = 0; i < count * b; ++i) {  // NaN on nodata ring cells: bit for bit
        const double got = ring_slots[slot][i], expected = (*want_rings)[first * b + i];
        ASSERT_TRUE(got == expected || (got != got && expected != expected)) << "tile " << first + i / b;
      }
      for (std::uint64_t i = 0; i < count * b * b; ++i) ASSERT_EQ(matrix_slots[slot][i], (*want)[first * b * b + i]) << "tile " << first + i / (b * b);
      next = first + count;
    }
  };
  auto sink_for = [&](std::uint64_t chunk, unsigned slots) {
    Sink sink;
    sink.b = b;
    sink.chunk = chunk;
    sink.ring_slots.assign(slots, std::vector<double>(chunk * b));
    sink.matrix_slots.assign(slots, std::vector<PathLength>(chunk * b * b));
    sink.want_rings = &want_rings;
    sink.want = &want;
    return sink;
  };
  for (unsigned threads : {1u, 3u, 8u})
    for (std::uint64_t chunk : {1u, 3u})
      for (unsigned slots : {1u, 2u, 5u}) {
        Sink sink = sink_for(chunk, slots);
        load_index_tiles(*index, tiles, chunk, slots, threads, sink);
        ASSERT_EQ(sink.next, tiles.size()) << threads << " threads, chunks of " << chunk << ", " << slots << " slots";
        if (::testing::Test::HasFailure()) return;
      }
  Sink failing = sink_for(2, 2);
  failing.fail_at = 4;
  EXPECT_THROW(load_index_tiles(*index, tiles, 2, 2, 3, failing), Error);
  // One flipped byte in the record of the sixth present tile: its checksum error, from a reader.
  const std::uint64_t at = index->entry(tiles[5]).offset + index->entry(tiles[5]).bytes / 2;
  index.reset();
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x40);
    f.seekp(static_cast<std::streamoff>(at));
    f.write(&byte, 1);
  }
  auto corrupt = IndexFile::open(path, budget);
  Sink sink = sink_for(1, 2);
  try {
    load_index_tiles(*corrupt, tiles, 1, 2, 4, sink);
    ADD_FAILURE() << "a corrupt tile was loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  EXPECT_LE(sink.next, 5u) << "chunks after the corrupt tile reached consume";
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

}  // namespace
}  // namespace terrazo
