// tests/test_network.cpp: `terrazo network` (engine/commands/network.h): the tree is the minimum spanning forest of
// the sites' matrix (Prim on the oracle, independent of the network's Kruskal), every edge traced;
// point sites and region sites (--sites-raster: a multi-source Dijkstra per region as the oracle,
// regions across tile borders, touching, split in parts, on an island), with the index and without;
// the program with region sites and its refusals of bad zone rasters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/index.h"
#include "engine/commands/network.h"
#include "tests/support/od_matrix_support.h"
#include "tests/support/random_values.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using namespace testing::od_matrix_suite;

// Prim's total weight and component count of a K x K matrix (kUnreached: no edge), independent of
// the network's Kruskal.
void prim(const std::vector<PathLength>& matrix, std::uint64_t k, PathLength* total, std::uint64_t* components) {
  std::vector<char> in(k, 0);
  *total = 0;
  *components = 0;
  for (std::uint64_t root = 0; root < k; ++root) {
    if (in[root]) continue;
    ++*components;
    std::vector<PathLength> key(k, kUnreached);
    key[root] = 0;
    for (;;) {
      std::uint64_t best = k;
      for (std::uint64_t v = 0; v < k; ++v)
        if (!in[v] && key[v] != kUnreached && (best == k || key[v] < key[best])) best = v;
      if (best == k) break;
      in[best] = 1;
      *total += key[best];
      for (std::uint64_t v = 0; v < k; ++v)
        if (!in[v] && matrix[best * k + v] < key[v]) key[v] = matrix[best * k + v];
    }
  }
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The network: the tree's edges are the minimum spanning tree of the oracle's matrix (Prim on the
// oracle, independent of Kruskal), each traced as a line whose cost is the matrix entry; an island
// site makes a forest.
TEST(Network, TreeIsTheMinimumSpanningTreeOfTheMatrixAndEveryEdgeIsTraced) {
  testing::TempDir dir;
  std::mt19937_64 rng(5);
  const std::uint64_t w = 70, h = 50;
  std::vector<double> values = testing::random_values(rng, w * h, 0.05, 1, 30);
  testing::add_nodata_island(values, w, 3);
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
    RunSettings o_run;
    o.od.input = input;
    o.od.output = dir.file(with_index ? "a.geojson" : "b.geojson");
    o.od.index = with_index ? index : "";
    o.od.sites = points_of(cells, w);
    o.od.tile = 16;
    MemoryBudget budget(256ull << 20);
    const NetworkResult r = terrazo::testing::run_with(run_network, o, o_run, budget, Progress::silent());
    const auto want = reference_matrix(values, w, h, r.matrix.params, Connectivity::Eight, kUnreached, cells);
    PathLength total = 0;
    std::uint64_t components = 0;
    prim(want, k, &total, &components);
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
    EXPECT_EQ(count_of(read_text(o.od.output), "\"LineString\""), r.edges.size());
  }
}

// A zones raster of region ids over a w x h raster (tile 16): a rectangle across tile borders (5), a
// region touching it (9), one split in two far-apart parts with one cell on nodata (2), a single
// cell (40), and one on an island closed off by nodata (77). The region cells' values are made valid
// (but the one nodata cell of region 2).
std::vector<double> make_zones(std::vector<double>& values, std::uint64_t w, std::uint64_t h) {
  std::vector<double> ids(w * h, 0);
  auto set = [&](std::uint64_t x0, std::uint64_t y0, std::uint64_t x1, std::uint64_t y1, double id) {
    for (std::uint64_t y = y0; y <= y1; ++y)
      for (std::uint64_t x = x0; x <= x1; ++x) {
        ids[y * w + x] = id;
        if (values[y * w + x] != values[y * w + x]) values[y * w + x] = 4;
      }
  };
  for (std::uint64_t y = 1; y <= 9; ++y)  // a closed nodata ring around an island
    for (std::uint64_t x = 1; x <= 9; ++x)
      if (y == 1 || y == 9 || x == 1 || x == 9) values[y * w + x] = kNaN;
  set(13, 14, 18, 19, 5);   // across the tile borders x = 16 and y = 16
  set(19, 15, 21, 17, 9);   // touching 5 on its right
  set(26, 3, 27, 4, 2);     // region 2, first part
  set(w - 4, h - 3, w - 3, h - 2, 2);  // region 2, second part, far away
  ids[(h - 2) * w + w - 5] = 2;        // and a cell of it on nodata (left out)
  values[(h - 2) * w + w - 5] = kNaN;
  set(6, h - 6, 6, h - 6, 40);  // a single cell
  set(4, 4, 6, 5, 77);          // on the island
  return ids;
}

// Region sites (--sites-raster): the tree is the minimum spanning forest of the oracle's region
// matrix (a multi-source Dijkstra from every region's valid cells), every edge's cost its entry,
// traced from the lowest-id cell of the target region where the oracle's cost is least back to a
// cell of the source region; the GeoJSON names the regions by their ids; with the index and without
// it the same file.
TEST(Network, RegionSitesTreeMatchesAMultiSourceOracle) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    std::mt19937_64 rng(seed * 3571);
    const std::uint64_t w = 40 + rng() % 20, h = 34 + rng() % 20;
    std::vector<double> values = testing::random_values(rng, w * h, 0.05, 1, seed == 2 ? 3 : 25);  // seed 2: many ties
    const std::vector<double> ids = make_zones(values, w, h);
    const std::string input = dir.file("in" + std::to_string(seed) + ".tif"), zones = dir.file("zones" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    testing::write_raster_values(zones, w, h, ids, CellType::Int32, 0);
    const Connectivity c = seed == 3 ? Connectivity::Four : Connectivity::Eight;
    const WeightModel model = seed == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
    const std::string index = dir.file("in" + std::to_string(seed) + ".tzi");
    build(input, index, model, c, 16, 8);
    // The oracle: per region, the multi-source distances from its valid cells.
    std::map<std::uint64_t, std::vector<std::uint64_t>> cells_of;
    for (std::uint64_t cell = 0; cell < w * h; ++cell)
      if (ids[cell] != 0 && values[cell] == values[cell]) cells_of[static_cast<std::uint64_t>(ids[cell])].push_back(cell);
    std::vector<std::uint64_t> want_ids;
    for (const auto& [id, list] : cells_of) want_ids.push_back(id);
    const std::uint64_t k = want_ids.size();
    std::string texts[2];
    for (const bool with_index : {false, true}) {
      NetworkOptions o;
      RunSettings o_run;
      o.od.input = input;
      o.od.output = dir.file(std::string(with_index ? "a" : "b") + std::to_string(seed) + ".geojson");
      o.od.index = with_index ? index : "";
      o.od.sites_raster = zones;
      o.od.weight = model;
      o.od.connectivity = c;
      o.od.tile = 16;
      o_run.threads = 2;
      MemoryBudget budget(256ull << 20);
      const NetworkResult r = terrazo::testing::run_with(run_network, o, o_run, budget, Progress::silent());
      const std::string what = "seed " + std::to_string(seed) + (with_index ? " with the index" : " without it");
      ASSERT_EQ(r.matrix.site_ids, want_ids) << what;
      std::vector<std::vector<PathLength>> dist;  // per region, the oracle's distances
      std::vector<PathLength> matrix;
      for (const auto& [id, list] : cells_of) {
        testing::SsspReferenceProblem ref = testing::reference_problem(w, h, values.data(), r.matrix.params, c);
        std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
        for (std::uint64_t cell : list) sources.push_back({cell, 0});
        testing::set_reference_sources(ref, sources);
        ASSERT_TRUE(testing::sssp_reference(ref));
        for (const auto& [to, targets] : cells_of) {
          PathLength best = kUnreached;
          for (std::uint64_t cell : targets) best = std::min(best, ref.dist[cell]);
          matrix.push_back(best);
        }
        dist.push_back(ref.dist);
      }
      expect_same(r.matrix.costs, matrix, k, what);
      PathLength total = 0;
      std::uint64_t components = 0;
      prim(matrix, k, &total, &components);
      EXPECT_EQ(components, 2u) << what << ": the island region is a tree of its own";
      EXPECT_EQ(r.components, components) << what;
      ASSERT_EQ(r.edges.size(), k - components) << what;
      PathLength got = 0;
      const std::uint64_t touching_a = std::find(want_ids.begin(), want_ids.end(), 5) - want_ids.begin();
      const std::uint64_t touching_b = std::find(want_ids.begin(), want_ids.end(), 9) - want_ids.begin();
      for (const NetworkEdge& e : r.edges) {
        const std::string edge = what + ": edge " + std::to_string(want_ids[e.from]) + "-" + std::to_string(want_ids[e.to]);
        got += e.cost;
        EXPECT_EQ(e.cost, matrix[e.from * k + e.to]) << edge;
        // The target cell: the least oracle cost from the source region, the lowest id among equals.
        std::uint64_t want_cell = 0;
        PathLength least = kUnreached;
        for (std::uint64_t cell : cells_of[want_ids[e.to]])
          if (dist[e.from][cell] < least) {
            least = dist[e.from][cell];
            want_cell = cell;
          }
        EXPECT_EQ(e.to_cell, want_cell) << edge;
        const auto& from_cells = cells_of[want_ids[e.from]];
        EXPECT_TRUE(std::binary_search(from_cells.begin(), from_cells.end(), e.from_cell)) << edge << ": the path starts at " << e.from_cell;
        EXPECT_GE(e.cells, 2u) << edge;
        if (e.from == touching_a && e.to == touching_b) {
          EXPECT_EQ(e.cells, 2u) << edge << ": touching regions, one step";
        }
      }
      EXPECT_EQ(got, total) << what;
      if (model == WeightModel::Friction) {  // values >= 1: every step costs; absdiff's steps between equal values cost 0
        EXPECT_GT(matrix[touching_a * k + touching_b], 0u) << what << ": touching regions cost one step, not 0";
      }
      texts[with_index] = read_text(o.od.output);
      EXPECT_EQ(count_of(texts[with_index], "\"LineString\""), r.edges.size()) << what;
      for (const NetworkEdge& e : r.edges)
        EXPECT_EQ(count_of(texts[with_index], "\"from_id\": " + std::to_string(want_ids[e.from]) + ", \"to_id\": " +
                                                  std::to_string(want_ids[e.to]) + ","),
                  1u)
            << what;
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(texts[0], texts[1]) << "seed " << seed << ": the same network with the index and without";
  }
}

// Regions whose cells span the windows network reads and writes them in (256 rows by 4096 columns):
// a raster 4200 cells wide (the target region across column 4096, the source region beyond it) and
// one 300 rows high (across row 256); constant values, so the least cost is reached along a whole
// row or column of the target region and the lowest cell id must win.
TEST(Network, RegionsAcrossWindowsTakeTheLowestLeastCostCell) {
  testing::TempDir dir;
  struct Case {
    std::uint64_t w, h;
    std::uint64_t ax0, ax1, ay0, ay1;  // region 1 (the source)
    std::uint64_t bx0, bx1, by0, by1;  // region 2
  };
  for (const Case& k : {Case{4200, 3, 4195, 4199, 0, 2, 4050, 4150, 0, 2}, Case{12, 300, 0, 11, 290, 299, 0, 11, 200, 270}}) {
    std::vector<double> values(k.w * k.h, 2), ids(k.w * k.h, 0);
    for (std::uint64_t y = k.ay0; y <= k.ay1; ++y)
      for (std::uint64_t x = k.ax0; x <= k.ax1; ++x) ids[y * k.w + x] = 1;
    for (std::uint64_t y = k.by0; y <= k.by1; ++y)
      for (std::uint64_t x = k.bx0; x <= k.bx1; ++x) ids[y * k.w + x] = 2;
    const std::string input = dir.file("wide" + std::to_string(k.w) + ".tif"), zones = dir.file("zones" + std::to_string(k.w) + ".tif");
    testing::write_raster_values(input, k.w, k.h, values, CellType::Float32, -9999);
    testing::write_raster_values(zones, k.w, k.h, ids, CellType::Int32, 0);
    NetworkOptions o;
    RunSettings o_run;
    o.od.input = input;
    o.od.output = dir.file("wide" + std::to_string(k.w) + ".geojson");
    o.od.sites_raster = zones;
    o_run.threads = 2;
    MemoryBudget budget(256ull << 20);
    const NetworkResult r = terrazo::testing::run_with(run_network, o, o_run, budget, Progress::silent());
    ASSERT_EQ(r.edges.size(), 1u);
    testing::SsspReferenceProblem ref =
        testing::reference_problem(k.w, k.h, values.data(), r.matrix.params, Connectivity::Eight);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
    for (std::uint64_t cell = 0; cell < ids.size(); ++cell)
      if (ids[cell] == 1) sources.push_back({cell, 0});
    testing::set_reference_sources(ref, sources);
    ASSERT_TRUE(testing::sssp_reference(ref));
    std::uint64_t want_cell = 0;
    PathLength least = kUnreached;
    for (std::uint64_t cell = 0; cell < ids.size(); ++cell)
      if (ids[cell] == 2 && ref.dist[cell] < least) {
        least = ref.dist[cell];
        want_cell = cell;
      }
    EXPECT_EQ(r.edges[0].cost, least) << k.w << " x " << k.h;
    EXPECT_EQ(r.edges[0].to_cell, want_cell) << k.w << " x " << k.h;
    EXPECT_EQ(ids[r.edges[0].from_cell], 1.0) << k.w << " x " << k.h;
  }
}

// `terrazo network --sites-raster`: the program writes the network (with --index too, the same
// file); a zones raster of another size, with no region, with an id that is not a positive integer,
// with a region only on nodata, or given with --site: one line on stderr, exit 2.
TEST(NetworkCli, RegionSitesAndBadZoneRastersExitTwoWithOneLine) {
  testing::TempDir dir;
  std::mt19937_64 rng(99);
  const std::uint64_t w = 40, h = 30;
  std::vector<double> values = testing::random_values(rng, w * h, 0.03, 1, 20);
  const std::vector<double> ids = make_zones(values, w, h);
  const std::string input = dir.file("in.tif"), zones = dir.file("zones.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
  testing::write_raster_values(zones, w, h, ids, CellType::Int32, 0);
  const std::string index = dir.file("in.tzi");
  build(input, index, WeightModel::Friction, Connectivity::Eight, 16, 8);
  const testing::CliRun plain = testing::run_cli("network -q --tile 16 --sites-raster " + zones + " " + input + " " + dir.file("a.geojson"), dir);
  ASSERT_EQ(plain.code, 0) << plain.err;
  const testing::CliRun indexed = testing::run_cli("network -q --json --index " + index + " --sites-raster " + zones + " " + input + " " +
                                                       dir.file("b.geojson"), dir);
  ASSERT_EQ(indexed.code, 0) << indexed.err;
  EXPECT_NE(indexed.out.find("\"sites\":5"), std::string::npos) << indexed.out;
  EXPECT_NE(indexed.out.find("\"components\":2"), std::string::npos) << indexed.out;
  EXPECT_EQ(read_text(dir.file("a.geojson")), read_text(dir.file("b.geojson")));
  EXPECT_EQ(count_of(read_text(dir.file("a.geojson")), "\"LineString\""), 3u);
  auto refused = [&](const std::vector<double>& bad_ids, std::uint64_t bw, std::uint64_t bh, CellType type, const std::string& flags,
                     const std::string& expect) {
    const std::string bad = dir.file("bad.tif");
    testing::write_raster_values(bad, bw, bh, bad_ids, type, 0);
    const testing::CliRun run = testing::run_cli("network -q " + flags + " --sites-raster " + bad + " " + input + " " + dir.file("c.geojson"), dir);
    EXPECT_EQ(run.code, 2) << expect << ": " << run.err;
    EXPECT_EQ(count_of(run.err, "\n"), 1u) << run.err;
    EXPECT_NE(run.err.find(expect), std::string::npos) << run.err;
  };
  refused(std::vector<double>((w - 1) * h, 3), w - 1, h, CellType::Int32, "", "must match cell for cell");
  refused(std::vector<double>(w * h, 0), w, h, CellType::Int32, "", "holds no region");
  std::vector<double> fraction = ids;
  fraction[3 * w + 30] = 1.5;
  refused(fraction, w, h, CellType::Float32, "", "positive integers");
  std::vector<double> negative = ids;
  negative[3 * w + 30] = -3;
  refused(negative, w, h, CellType::Int32, "", "positive integers");
  std::vector<double> on_nodata = ids;  // region 11: two cells, both on INPUT's nodata
  int marked = 0;
  for (std::uint64_t cell = 0; cell < w * h && marked < 2; ++cell)
    if (values[cell] != values[cell] && ids[cell] == 0) {
      on_nodata[cell] = 11;
      ++marked;
    }
  ASSERT_EQ(marked, 2);
  refused(on_nodata, w, h, CellType::Int32, "", "region 11 has no cell on valid data");
  refused(ids, w, h, CellType::Int32, "--site 20,20", "use one kind");
}

}  // namespace
}  // namespace terrazo
