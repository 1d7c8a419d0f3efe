// tests/test_cost_models.cpp: sssp's cost models against the in-memory Dijkstra oracle
// (tests/support/sssp_reference.h, which computes each step's length on its own from per-row
// lengths): --distance cells|map|geodesic (engine/cost_models/step_lengths.h), --weight unit|geometric,
// --barrier-raster; the geodesic table against lengths from GeographicLib (a golden file made by
// datasets/make_golden_geodesic.py); `path` lengths in metres on a geographic CRS.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/commands/path.h"
#include "engine/commands/sssp.h"
#include "engine/commands/sssp_command.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "engine/cost_models/step_lengths.h"
#include "kernels/common/error.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/sssp/block_sssp.h"
#include "tests/support/block_window_check.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/path_support.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

SourcePoint pixel(std::uint64_t x, std::uint64_t y) {
  return parse_source_point(std::to_string(x) + "," + std::to_string(y));
}

using testing::georef;

// Runs run_sssp and compares the cost (through the fixed point), backlinks and allocation with
// the oracle on `values` (NaN: nodata or barrier), the same step lengths written out per row.
// Point sources: o.sources as pixels, then `file_sources` (pixel x, y, initial cost) when given.
struct FileSource {
  std::uint64_t x = 0, y = 0;
  double start = 0;
};

SsspResult check_run(const SsspOptions& o, const RunSettings& o_run, const std::vector<double>& values, std::uint64_t width,
                     std::uint64_t height, const std::vector<double>& row_lengths, const std::string& what,
                     const std::vector<FileSource>& file_sources = {}) {
  MemoryBudget budget(256ull << 20);
  const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  testing::SsspReferenceProblem ref =
      testing::reference_problem(width, height, values.data(), r.params, o.connectivity);
  ref.max_cost = r.max_cost_fixed;
  ref.row_lengths = row_lengths;
  std::uint32_t id = testing::set_point_sources(ref, o);
  for (const FileSource& f : file_sources) {  // label (start, id, 0), the smaller label where two meet
    const std::uint64_t cell = f.y * width + f.x;
    const PathLength start = static_cast<PathLength>(std::nearbyint(f.start * r.params.scale));
    const std::uint32_t source_id = o.allocation.empty() ? 0u : id++;
    if (start > ref.max_cost) continue;
    if (std::make_pair(start, source_id) < std::make_pair(ref.dist[cell], ref.source[cell])) {
      ref.dist[cell] = start;
      ref.source[cell] = source_id;
      ref.hops[cell] = 0;
    }
  }
  EXPECT_TRUE(testing::sssp_reference(ref)) << what;
  testing::expect_outputs_match_reference(o, r, ref, what);
  return r;
}

std::vector<double> random_values(std::mt19937_64& rng, std::uint64_t n, double holes) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> values(n);
  for (auto& v : values) v = unit(rng) < holes ? kNaN : 1.0 + std::floor(unit(rng) * 40.0) * 0.25;
  return values;
}

std::vector<SourcePoint> random_sources(std::mt19937_64& rng, const std::vector<double>& values, std::uint64_t w,
                                        int count) {
  std::vector<SourcePoint> sources;
  for (int i = 0; i < count; ++i) {
    std::uint64_t c;
    do c = rng() % values.size();
    while (values[c] != values[c]);
    sources.push_back(pixel(c % w, c / w));
  }
  return sources;
}

// ---- the block solver with a per-row table and a row origin ------------------------------------

TEST(CostBlock, RowTableTilesMatchOracle) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::uint32_t t = 4u << (seed % 4);  // 4..32
    const std::uint32_t s = t + 2;
    const std::int64_t rows = 200;
    std::vector<double> table(3 * rows);
    for (std::int64_t y = 0; y < rows; ++y) {  // lengths like a lon/lat grid's, with noise
      table[3 * y] = 20.0 + 30.0 * unit(rng);
      table[3 * y + 1] = 30.0 + 5.0 * unit(rng);
      table[3 * y + 2] = std::sqrt(table[3 * y] * table[3 * y] + table[3 * y + 1] * table[3 * y + 1]);
    }
    WeightParams params;
    params.model = seed % 3 == 0 ? WeightModel::Geometric : seed % 5 == 0 ? WeightModel::Unit : WeightModel::Friction;
    params.scale = params.model == WeightModel::Unit ? 1.0 : 100.0;
    params.steps.rows = table.data();
    params.steps.row_count = rows;
    params.steps.min_length = *std::min_element(table.begin(), table.end());
    params.steps.max_length = *std::max_element(table.begin(), table.end());
    params.steps.row0 = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows - s));
    const Connectivity connectivity = seed % 4 == 1 ? Connectivity::Four : Connectivity::Eight;
    std::vector<double> values = random_values(rng, static_cast<std::uint64_t>(s) * s, 0.1);
    const std::vector<PathLength> dist = testing::random_window_seeds(rng, s, 5000);
    testing::SsspReferenceProblem ref = testing::block_window_problem(values.data(), t, params, connectivity, dist);
    ref.row_lengths.assign(table.begin() + 3 * params.steps.row0, table.begin() + 3 * (params.steps.row0 + s));
    ASSERT_TRUE(testing::sssp_reference(ref));
    testing::expect_block_matches(values.data(), t, params, connectivity, dist, ref.dist, seed);
  }
}

// ---- --distance map ---------------------------------------------------------------------------

// A case of the --distance suites: a w x h raster of random values (8% nodata) written with
// `georef`, run in `mode` with geometric or friction weights, 4 or 8 neighbours, tiles of 16, 1 to 3
// random sources, backlinks and allocation on even seeds; everything random drawn from `rng`.
struct DistanceCase {
  std::vector<double> values;
  SsspOptions options;
};

DistanceCase distance_case(const testing::TempDir& dir, std::uint64_t seed, std::mt19937_64& rng, std::uint64_t w,
                           std::uint64_t h, const RasterInfo& georef, DistanceMode mode) {
  DistanceCase c;
  c.values = random_values(rng, w * h, 0.08);
  SsspOptions& o = c.options;
  o.input = dir.file("in" + std::to_string(seed) + ".tif");
  testing::write_raster_values(o.input, w, h, c.values, CellType::Float32, -9999, georef);
  o.output = dir.file("cost" + std::to_string(seed) + ".tif");
  o.distance = mode;
  o.weight = seed % 3 == 0 ? WeightModel::Geometric : WeightModel::Friction;
  o.connectivity = seed % 4 == 0 ? Connectivity::Four : Connectivity::Eight;
  o.tile = 16;
  o.sources = random_sources(rng, c.values, w, 1 + static_cast<int>(seed % 3));
  if (seed % 2 == 0) {
    o.backlink = dir.file("back" + std::to_string(seed) + ".tif");
    o.allocation = dir.file("alloc" + std::to_string(seed) + ".tif");
  }
  return c;
}

// A projected raster with x and y resolutions that differ: lengths 30, 20 and sqrt(1300).
TEST(CostPipeline, MapDistanceMatchesOracle) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint64_t w = 20 + rng() % 60, h = 20 + rng() % 60;
    DistanceCase c = distance_case(dir, seed, rng, w, h, georef("EPSG:32619", 300000, 4900000, 30.0, -20.0),
                                   DistanceMode::Map);
    if (seed % 5 == 0) c.options.max_cost = 2000.0;
    const SsspResult r = check_run(c.options, RunSettings{}, c.values, w, h, {}, "map seed " + std::to_string(seed));
    EXPECT_EQ(r.params.steps.ew, 30.0);
    EXPECT_EQ(r.params.steps.ns, 20.0);
    EXPECT_EQ(r.params.steps.diag, std::sqrt(1300.0));
    EXPECT_EQ(r.length_unit, "metre");
    if (::testing::Test::HasFailure()) return;
  }
}

// Cells mode is the default and gives the lengths 1 and sqrt 2 (today's weights).
TEST(CostPipeline, CellsIsTheDefault) {
  SsspOptions o;
  EXPECT_EQ(o.distance, DistanceMode::Cells);
  const StepTable cells = make_step_table(DistanceMode::Cells, RasterInfo{});
  EXPECT_EQ(cells.lengths.ew, 1.0);
  EXPECT_EQ(cells.lengths.ns, 1.0);
  EXPECT_EQ(cells.lengths.diag, kSqrt2);
  EXPECT_EQ(cells.lengths.rows, nullptr);
}

// ---- --distance geodesic ----------------------------------------------------------------------

// A lon/lat raster at high latitude (every row has its own lengths), streamed with backlinks and
// allocation, and the resident exchange's CPU twin; tiles of 16 so steps cross many tile rows.
TEST(CostPipeline, GeodesicDistanceMatchesOracle) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed * 15485863);
    const std::uint64_t w = 20 + rng() % 50, h = 30 + rng() % 70;
    const double top = seed % 2 ? 70.0 : -20.0;  // northern high latitudes, and across the equator
    DistanceCase c = distance_case(dir, seed, rng, w, h,
                                   georef("EPSG:4326", -72.0, top, 0.01, -0.005 * static_cast<double>(1 + seed % 3)),
                                   DistanceMode::Geodesic);
    SsspOptions& o = c.options;
    RunSettings o_run;
    o_run.device = DeviceRequest::Cpu;
    if (seed % 2 == 1) {  // without backlinks: the resident exchange's CPU twin, or the streamed one
      o.exchange = seed % 4 == 1 ? "resident" : "streamed";
      o.resident_tile = 8;
    }
    MemoryBudget budget(64ull << 20);
    RasterInfo info;
    testing::read_raster_values(o.input, &info);
    const StepTable table = make_step_table(DistanceMode::Geodesic, info);
    const std::vector<double> rows(table.rows->begin(), table.rows->end());
    const SsspResult r = check_run(o, o_run, c.values, w, h, rows, "geodesic seed " + std::to_string(seed));
    EXPECT_EQ(r.length_unit, "metre");
    ASSERT_NE(r.params.steps.rows, nullptr);
    // Lengths shrink towards the pole: east-west steps differ between the first and last row.
    EXPECT_NE(rows[0], rows[3 * (h - 1)]);
    if (::testing::Test::HasFailure()) return;
  }
}

// datasets/golden/geodesic_steps_N44W072.txt: 3 lengths per row (ew, ns, diag), every row.
std::vector<double> golden_rows(std::uint64_t height) {
  std::ifstream golden(std::string(TERRAZO_DATASETS) + "/golden/geodesic_steps_N44W072.txt");
  EXPECT_TRUE(golden) << "datasets/golden/geodesic_steps_N44W072.txt";
  std::vector<double> rows(3 * height, kNaN);
  std::string line;
  std::uint64_t count = 0;
  while (std::getline(golden, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::uint64_t y;
    double ew, ns, diag;
    if (!(in >> y >> ew >> ns >> diag) || y >= height) {
      ADD_FAILURE() << "bad golden line: " << line;
      return rows;
    }
    rows[3 * y] = ew;
    rows[3 * y + 1] = ns;
    rows[3 * y + 2] = diag;
    ++count;
  }
  EXPECT_EQ(count, height);
  return rows;
}

// The table against GeographicLib (pure Python, independent of PROJ) on N44W072.hgt, every row.
TEST(CostSteps, GeodesicTableEqualsGeographicLib) {
  RasterInfo info;
  testing::read_raster_values(std::string(TERRAZO_DATASETS) + "/real/N44W072.hgt", &info);
  const StepTable table = make_step_table(DistanceMode::Geodesic, info);
  ASSERT_EQ(table.lengths.row_count, static_cast<std::int64_t>(info.height));
  const std::vector<double> golden = golden_rows(info.height);
  for (std::uint64_t y = 0; y < info.height; ++y)
    for (int k = 0; k < 3; ++k)
      ASSERT_NEAR(table.lengths.rows[3 * y + k], golden[3 * y + k], 1e-6) << "row " << y << " kind " << k;
  const std::uint64_t rows = golden.size() / 3;
  EXPECT_EQ(rows, info.height);
  // 1 arc-second at 44 N: about 67 m east-west, 92.6 m north-south.
  EXPECT_GT(table.lengths.min_length, 60.0);
  EXPECT_LT(table.lengths.max_length, 120.0);
}

// ---- --weight unit|geometric, --barrier-raster -------------------------------------------------

TEST(CostPipeline, UnitAndGeometricAroundBarriersMatchOracle) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::mt19937_64 rng(seed * 31337);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::uint64_t w = 20 + rng() % 70, h = 20 + rng() % 70;
    std::vector<double> values = random_values(rng, w * h, 0.05);
    std::vector<double> barrier(w * h);
    for (std::uint64_t i = 0; i < w * h; ++i) {  // walls along some rows and columns, and noise
      const std::uint64_t x = i % w, y = i / w;
      const bool wall = (x % 13 == 7 && y % 17 != 3) || (y % 11 == 5 && x % 19 != 2);
      barrier[i] = unit(rng) < 0.1 ? kNaN : wall ? 1.0 + static_cast<double>(rng() % 3) : 0.0;
    }
    const std::string input = dir.file("in" + std::to_string(seed) + ".tif");
    const std::string walls = dir.file("walls" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
    testing::write_raster_values(walls, w, h, barrier, CellType::Int16, -1);
    std::vector<double> open = values;
    std::uint64_t closed = 0;
    for (std::uint64_t i = 0; i < w * h; ++i)
      if (barrier[i] == barrier[i] && barrier[i] != 0 && open[i] == open[i]) {
        open[i] = kNaN;
        ++closed;
      }
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.barrier_raster = walls;
    o.output = dir.file("cost" + std::to_string(seed) + ".tif");
    o.weight = seed % 2 ? WeightModel::Unit : WeightModel::Geometric;
    o.connectivity = seed % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    o.tile = 16;
    // Unit: the frontier BFS twin (kernels/sssp/block_bfs.h) for seeds 3, 7 (no labels), the labelled
    // Dijkstra for 1, 5, 9 (backlinks and allocation), both against the same oracle.
    if (o.weight == WeightModel::Unit) o.block_solver = "bfs";
    o.sources = random_sources(rng, open, w, 1 + static_cast<int>(seed % 3));
    if (seed % 4 < 2) {
      o.backlink = dir.file("back" + std::to_string(seed) + ".tif");
      o.allocation = dir.file("alloc" + std::to_string(seed) + ".tif");
    }
    const SsspResult r = check_run(o, o_run, open, w, h, {}, "seed " + std::to_string(seed));
    EXPECT_EQ(r.barrier_cells, closed);
    EXPECT_EQ(r.block_solver, o.weight == WeightModel::Unit && o.backlink.empty() ? "bfs" : "sweep");
    if (o.weight == WeightModel::Unit) {
      EXPECT_EQ(r.params.scale, 1.0);  // hop counts, exact
      EXPECT_EQ(r.weights.step_error_bound, 0.0);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- refusals: one clear line, exit 2 (UsageError) ---------------------------------------------

TEST(CostSteps, BadInputIsRefused) {
  testing::TempDir dir;
  const std::vector<double> values(16 * 16, 1.0);
  const std::string geographic = dir.file("geo.tif"), projected = dir.file("utm.tif"), bare = dir.file("bare.tif");
  const std::string small = dir.file("small.tif");
  testing::write_raster_values(geographic, 16, 16, values, CellType::Float32, -9999, georef("EPSG:4326", 0, 10, 0.1, -0.1));
  testing::write_raster_values(projected, 16, 16, values, CellType::Float32, -9999,
                               georef("EPSG:32619", 300000, 4900000, 30, -30));
  testing::write_raster_values(bare, 16, 16, values, CellType::Float32, -9999);
  testing::write_raster_values(small, 8, 8, std::vector<double>(64, 1.0), CellType::Float32, -9999);
  auto run = [&](const std::string& input, DistanceMode mode, WeightModel weight, const std::string& barrier) {
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.output = dir.file("cost.tif");
    o.sources = {pixel(1, 1)};
    o.distance = mode;
    o.weight = weight;
    o.barrier_raster = barrier;
    MemoryBudget budget(64ull << 20);
    terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  };
  EXPECT_THROW(run(geographic, DistanceMode::Map, WeightModel::Friction, ""), UsageError);
  EXPECT_THROW(run(projected, DistanceMode::Geodesic, WeightModel::Friction, ""), UsageError);
  EXPECT_THROW(run(bare, DistanceMode::Geodesic, WeightModel::Friction, ""), UsageError);
  const std::string beyond = dir.file("beyond.tif");  // lon/lat CRS, rows past the pole
  testing::write_raster_values(beyond, 16, 16, values, CellType::Float32, -9999, georef("EPSG:4326", 0, 95, 0.1, -0.1));
  EXPECT_THROW(run(beyond, DistanceMode::Geodesic, WeightModel::Friction, ""), UsageError);
  EXPECT_THROW(run(projected, DistanceMode::Map, WeightModel::AbsDiff, ""), UsageError);
  EXPECT_THROW(run(projected, DistanceMode::Cells, WeightModel::Friction, small), UsageError);
  EXPECT_THROW(run(projected, DistanceMode::Cells, WeightModel::Friction, geographic), UsageError);  // other grid
  EXPECT_NO_THROW(run(projected, DistanceMode::Map, WeightModel::Friction, ""));
  EXPECT_THROW(parse_sssp_options({"--source", "1,1", "--block-solver", "dfs", "in.tif", "out.tif"}), UsageError);
  {  // the frontier BFS is for --weight unit only
    SsspOptions o;
    RunSettings o_run;
    o.input = projected;
    o.output = dir.file("cost.tif");
    o.sources = {pixel(1, 1)};
    o.block_solver = "bfs";
    MemoryBudget budget(64ull << 20);
    EXPECT_THROW(terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()), UsageError);
    o.weight = WeightModel::Unit;
    EXPECT_NO_THROW(terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()));
  }
  EXPECT_NO_THROW(run(geographic, DistanceMode::Geodesic, WeightModel::Geometric, ""));
  EXPECT_THROW(parse_sssp_options({"--source", "1,1", "--distance", "map", "--weight", "max", "in.tif", "out.tif"}),
               UsageError);
  EXPECT_THROW(parse_sssp_options({"--source", "1,1", "--distance", "metres", "in.tif", "out.tif"}), UsageError);
  EXPECT_THROW(parse_sssp_options({"--source", "1,1", "--weight", "unit", "--distance", "geodesic", "in.tif",
                                   "out.tif"}),
               UsageError);
  const SsspCommandOptions parsed = parse_sssp_options({"--source", "1,1", "--distance", "geodesic", "--weight",
                                                        "geometric", "--barrier-raster", "b.tif", "in.tif", "out.tif"});
  EXPECT_EQ(parsed.sssp.distance, DistanceMode::Geodesic);
  EXPECT_EQ(parsed.sssp.weight, WeightModel::Geometric);
  EXPECT_EQ(parsed.sssp.barrier_raster, "b.tif");
}

std::string format_coordinate(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// ---- per-source initial cost (--source-start) ------------------------------------------------------

// Sources from a GeoJSON file with an initial cost attribute, beside --source points: the oracle
// seeds each with (start, id, 0); streamed with backlinks and allocation, and the resident CPU twin;
// a max cost below some starts.
TEST(CostSources, InitialCostFromAttributeMatchesOracle) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed * 2654435761u);
    const std::uint64_t w = 30 + rng() % 60, h = 30 + rng() % 60;
    std::vector<double> values = random_values(rng, w * h, 0.05);
    const RasterInfo georef_info = georef("EPSG:4326", 10.0, 50.0, 0.01, -0.01);  // GeoJSON is WGS 84
    const std::string input = dir.file("in" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999, georef_info);
    std::vector<FileSource> file_sources;
    std::string json = "{\"type\":\"FeatureCollection\",\"features\":[";
    const int count = 2 + static_cast<int>(seed % 4);
    for (int k = 0; k < count; ++k) {
      std::uint64_t c;
      do c = rng() % (w * h);
      while (values[c] != values[c]);
      FileSource f{c % w, c / w, k == 0 ? 0.0 : std::floor(std::uniform_real_distribution<double>(0, 400)(rng)) * 0.5};
      if (k == 1 && seed % 3 == 0) f = file_sources[0];  // two points on one cell: the smaller label wins
      file_sources.push_back(f);
      const double mx = 10.0 + (static_cast<double>(f.x) + 0.5) * 0.01, my = 50.0 - (static_cast<double>(f.y) + 0.5) * 0.01;
      json += std::string(k ? "," : "") + "{\"type\":\"Feature\",\"properties\":{\"start\":" +
              std::to_string(f.start) + "},\"geometry\":{\"type\":\"Point\",\"coordinates\":[" +
              format_coordinate(mx) + "," + format_coordinate(my) + "]}}";
    }
    json += "]}";
    const std::string points = dir.file("points" + std::to_string(seed) + ".geojson");
    std::ofstream(points) << json;
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.output = dir.file("cost" + std::to_string(seed) + ".tif");
    o.sources_file = points;
    o.source_start = "start";
    o.sources = random_sources(rng, values, w, static_cast<int>(seed % 2));
    o.tile = 16;
    o_run.device = DeviceRequest::Cpu;
    if (seed % 2 == 0) {
      o.backlink = dir.file("back" + std::to_string(seed) + ".tif");
      o.allocation = dir.file("alloc" + std::to_string(seed) + ".tif");
    } else {
      o.exchange = "resident";
      o.resident_tile = 8;
    }
    if (seed % 4 == 3) o.max_cost = 150.0;
    const SsspResult r = check_run(o, o_run, values, w, h, {}, "seed " + std::to_string(seed), file_sources);
    EXPECT_EQ(r.sources, o.sources.size() + file_sources.size());
    if (::testing::Test::HasFailure()) return;
  }
  // Refusals: an unknown attribute, a negative start, --source-start without --sources-file.
  const std::vector<double> values(16 * 16, 1.0);
  const RasterInfo georef_info = georef("EPSG:4326", 0.0, 16.0, 1.0, -1.0);
  const std::string input = dir.file("flat.tif"), bad = dir.file("bad.geojson");
  testing::write_raster_values(input, 16, 16, values, CellType::Float32, -9999, georef_info);
  std::ofstream(bad) << "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":"
                        "{\"start\":-3},\"geometry\":{\"type\":\"Point\",\"coordinates\":[2.5,2.5]}}]}";
  for (const std::string field : {"start", "speed"}) {
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.output = dir.file("c.tif");
    o.sources_file = bad;
    o.source_start = field;
    MemoryBudget budget(64ull << 20);
    EXPECT_THROW(terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()), UsageError) << field;
  }
  EXPECT_THROW(parse_sssp_options({"--source", "1,1", "--source-start", "start", "in.tif", "out.tif"}), UsageError);
}

// ---- path lengths in metres -------------------------------------------------------------------

// N44W072.hgt (WGS 84): geodesic friction, then paths whose `length` is the sum of GeographicLib's
// step lengths (the golden file) and whose cost is the oracle's distance.
TEST(CostPath, N44W072PathLengthInMetres) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/N44W072.hgt";
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(dem, &info);
  SsspOptions o = testing::sssp_options(dem, {pixel(600, 600)}, dir.file("cost.tif"));
  RunSettings o_run;
  o.backlink = dir.file("back.tif");
  o.distance = DistanceMode::Geodesic;
  o.tile = 128;
  const std::vector<double> golden = golden_rows(info.height);
  // The oracle takes the engine's table (exact weights need the same doubles; the table itself is
  // checked against the golden file to 1e-6 m above); the path lengths are checked on the golden file.
  const StepTable table = make_step_table(DistanceMode::Geodesic, info);
  check_run(o, o_run, values, info.width, info.height, std::vector<double>(table.rows->begin(), table.rows->end()),
            "N44W072");
  PathOptions p = testing::path_options_after(o);
  RunSettings p_run;
  p.output = dir.file("paths.geojson");
  p.dests = {pixel(10, 10), pixel(1190, 700), pixel(600, 1190), pixel(600, 600)};
  MemoryBudget budget(64ull << 20);
  const PathResult traced = terrazo::testing::run_with(run_path, p, p_run, budget, Progress::silent());
  EXPECT_EQ(traced.length_unit, "metre");
  ASSERT_EQ(traced.paths.size(), p.dests.size());
  const std::vector<double> back = testing::read_raster_values(o.backlink);
  for (const TracedPath& t : traced.paths) {
    // Walk the backlinks again, summing GeographicLib's length of each step.
    std::uint64_t x = t.x, y = t.y;
    double metres = 0, cells = 0;
    for (;;) {
      const double b = back[y * info.width + x];
      if (b != b || b == 255) break;
      const int d = static_cast<int>(b);
      const std::uint64_t nx = x + kDirDx[d], ny = y + kDirDy[d];
      const std::uint64_t upper = std::min(y, ny);
      metres += ny == y ? golden[3 * y] : nx == x ? golden[3 * upper + 1] : golden[3 * upper + 2];
      cells += (nx != x && ny != y) ? kSqrt2 : 1.0;
      x = nx;
      y = ny;
    }
    EXPECT_EQ(x, 600u);
    EXPECT_EQ(y, 600u);
    EXPECT_NEAR(t.length, metres, 1e-6 * std::max(1.0, metres)) << t.dest;
    EXPECT_NEAR(t.length_cells, cells, 1e-9 * std::max(1.0, cells)) << t.dest;
    if (t.x != 600 || t.y != 600) {
      EXPECT_GT(t.length, 60.0 * t.length_cells);  // metres, not degrees or cells
    }
  }
}

// ---- the whole pipeline on the GPU (label gpu; skipped without one) ----------------------------

// N44W072.hgt with geodesic friction, geometric and unit weights (the last two around barriers),
// on the CUDA streamed and resident exchanges, against the oracle (and so against the CPU runs).
TEST(CostPipelineGpu, GeodesicUnitGeometricMatchOracle) {
  if (!cuda_device().available) GTEST_SKIP() << "no GPU: " << cuda_device().reason;
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/N44W072.hgt";
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(dem, &info);
  std::vector<double> walls(values.size(), 0.0), open = values;
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    const std::uint64_t x = i % info.width, y = i / info.width;
    if (x % 97 == 50 && y % 211 > 8) {
      walls[i] = 1;
      open[i] = kNaN;
    }
  }
  const std::string barrier = dir.file("walls.tif");
  testing::write_raster_values(barrier, info.width, info.height, walls, CellType::UInt8, 255, info);
  const StepTable table = make_step_table(DistanceMode::Geodesic, info);
  const std::vector<double> rows(table.rows->begin(), table.rows->end());
  int k = 0;
  for (const std::string exchange : {"streamed", "resident"})
    for (const WeightModel weight : {WeightModel::Friction, WeightModel::Geometric, WeightModel::Unit}) {
      SsspOptions o;
      RunSettings o_run;
      o.input = dem;
      o.output = dir.file("cost" + std::to_string(k++) + ".tif");
      o.sources = {pixel(600, 600), pixel(30, 1100)};
      o_run.device = DeviceRequest::Cuda;
      o.exchange = exchange;
      o.weight = weight;
      o.tile = 128;
      o.resident_tile = 32;
      if (weight != WeightModel::Unit) o.distance = DistanceMode::Geodesic;
      if (weight != WeightModel::Friction) o.barrier_raster = barrier;
      if (weight == WeightModel::Unit) o.block_solver = "bfs";  // the CUDA frontier BFS (the sweeps: friction, geometric)
      const std::string what = exchange + " " + to_string(weight);
      const SsspResult r = check_run(o, o_run, weight == WeightModel::Friction ? values : open, info.width, info.height,
                                     o.distance == DistanceMode::Geodesic ? rows : std::vector<double>(), what);
      EXPECT_EQ(r.exchange, exchange) << what;
      EXPECT_NE(r.device.find("cuda"), std::string::npos) << what;
      if (::testing::Test::HasFailure()) return;
    }
}

}  // namespace
}  // namespace terrazo
