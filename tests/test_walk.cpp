// tests/test_walk.cpp: sssp --model walk and tobler (directed weights: kernels/common/edge_weight.h,
// engine/cost_models/walk_weights.h, engine/tile_inputs/walk_input.h) against the in-memory Dijkstra oracle
// (tests/support/sssp_reference.h relaxes u -> v with w(u, v), so it takes directed weights as they
// are), --direction to against a reverse-graph Dijkstra written here, the formula by hand, the
// asymmetry on a slope, path tracing, refusals, and GRASS r.walk's costs on a shipped DEM (golden
// file made by datasets/make_golden_walk.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/commands/path.h"
#include "engine/commands/sssp.h"
#include "engine/commands/sssp_command.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "engine/cost_models/step_lengths.h"
#include "engine/cost_models/walk_weights.h"
#include "kernels/common/error.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/sssp/block_sssp.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/block_window_check.h"
#include "tests/support/path_support.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

SourcePoint pixel(std::uint64_t x, std::uint64_t y) {
  return parse_source_point(std::to_string(x) + "," + std::to_string(y));
}

RasterInfo utm(double dx, double dy) { return testing::georef("EPSG:32619", 300000, 4900000, dx, dy); }

// ---- the formula by hand ----------------------------------------------------------------------

WeightParams hand_params(WeightModel model) {
  WeightParams p;
  p.model = model;
  p.scale = 1000.0;
  p.steps.ew = 30.0;
  p.steps.ns = 30.0;
  p.steps.diag = std::sqrt(1800.0);
  return p;
}

Weight weigh(const WeightParams& p, double ha, double fa, double hb, double fb, int dir) {
  bool overflow = false;
  const Weight w = step_weight(p, pack_walk_cell(static_cast<float>(ha), static_cast<float>(fa)),
                               pack_walk_cell(static_cast<float>(hb), static_cast<float>(fb)), dir, 0, &overflow);
  EXPECT_FALSE(overflow);
  return w;
}

TEST(WalkWeights, FormulaByHand) {
  WeightParams p = hand_params(WeightModel::Walk);
  // 30 m east, 3 m up: a L + b dh = 21.6 + 18 = 39.6 s.
  EXPECT_EQ(weigh(p, 100, 0, 103, 0, 0), 39600u);
  // The way back, 3 m down (dh/L = -0.1, moderate): 21.6 - 1.9998 x 3 = 15.6006 s.
  EXPECT_EQ(weigh(p, 103, 0, 100, 0, 4), 15601u);
  // 10 m down over 30 m (dh/L = -1/3 < -0.2125, steep): 21.6 + 1.9998 x 10 = 41.598 s.
  EXPECT_EQ(weigh(p, 100, 0, 90, 0, 0), 41598u);
  // Flat with friction 2 and 4 (seconds per metre), lambda 1: 21.6 + 3 x 30 = 111.6 s.
  EXPECT_EQ(weigh(p, 100, 2, 100, 4, 2), 111600u);
  // Diagonal: L = sqrt 1800, 6 m up: 0.72 L + 36.
  EXPECT_EQ(weigh(p, 100, 0, 106, 0, 1), static_cast<Weight>(std::llround((0.72 * std::sqrt(1800.0) + 36.0) * 1000.0)));
  // --direction to weighs the Dijkstra edge u -> v as the travel v -> u.
  p.walk.reverse = true;
  EXPECT_EQ(weigh(p, 103, 0, 100, 0, 4), 39600u);
  EXPECT_EQ(weigh(p, 100, 0, 103, 0, 0), 15601u);
  // lambda scales the friction term only.
  p.walk.reverse = false;
  p.walk.lambda = 0.5;
  EXPECT_EQ(weigh(p, 100, 2, 100, 4, 2), 66600u);
  // Tobler: 0.6 L exp(3.5 |dh/L + 0.05|) seconds, 5.04 km/h on the flat, fastest at dh/L = -0.05.
  WeightParams q = hand_params(WeightModel::Tobler);
  for (const double dh : {0.0, 3.0, -1.5, -3.0, 12.0, -20.0}) {
    const double expected = 0.6 * 30.0 * std::exp(3.5 * std::fabs(dh / 30.0 + 0.05)) * 1000.0;
    EXPECT_NEAR(static_cast<double>(weigh(q, 50, 0, 50 + dh, 0, 0)), expected, 0.5 + 1e-12 * expected) << dh;
  }
  EXPECT_EQ(weigh(q, 50, 0, 48.5, 0, 0), 18000u);  // dh/L = -0.05: exactly 0.6 s per metre
  EXPECT_LT(weigh(q, 50, 0, 48.5, 0, 0), weigh(q, 50, 0, 50, 0, 0));
  for (double x = -700; x < 708; x += 0.731) EXPECT_NEAR(exp_portable(x), std::exp(x), 4e-16 * std::exp(x)) << x;
}

// ---- the asymmetry itself ----------------------------------------------------------------------

// A 5 x 1 ramp, 10 m cells, 10 m up per cell: from A (x 0) to B (x 4) is 4 uphill steps of
// 0.72 x 10 + 6 x 10 = 67.2 s; from B to A 4 steep downhill steps (dh/L = -1) of 7.2 + 19.998 s.
TEST(WalkPipeline, AsymmetryOnASlope) {
  testing::TempDir dir;
  const std::string dem = dir.file("ramp.tif");
  testing::write_raster_values(dem, 5, 1, {0, 10, 20, 30, 40}, CellType::Float32, -9999, utm(10, -10));
  auto cost_at = [&](std::uint64_t source, std::uint64_t at, bool to, WeightModel model) {
    SsspOptions o;
    RunSettings o_run;
    o.input = dem;
    o.output = dir.file("cost.tif");
    o.weight = model;
    o.walk.reverse = to;
    o.sources = {pixel(source, 0)};
    MemoryBudget budget(256ull << 20);
    terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
    return testing::read_raster_values(o.output)[at];
  };
  EXPECT_NEAR(cost_at(0, 4, false, WeightModel::Walk), 4 * 67.2, 1e-6);
  EXPECT_NEAR(cost_at(4, 0, false, WeightModel::Walk), 4 * 27.198, 1e-6);
  // --direction to from source A: the cost of travelling from B to A, downhill.
  EXPECT_NEAR(cost_at(0, 4, true, WeightModel::Walk), 4 * 27.198, 1e-6);
  EXPECT_NEAR(cost_at(4, 0, true, WeightModel::Walk), 4 * 67.2, 1e-6);
  // Tobler: 4 x 0.6 x 10 x exp(3.5 x 1.05) uphill, 4 x 6 x exp(3.5 x 0.95) downhill.
  EXPECT_NEAR(cost_at(0, 4, false, WeightModel::Tobler), 24 * std::exp(3.675), 1e-6 * 24 * std::exp(3.675));
  EXPECT_NEAR(cost_at(4, 0, false, WeightModel::Tobler), 24 * std::exp(3.325), 1e-6 * 24 * std::exp(3.325));
}

// ---- the CPU block solver on random tiles ---------------------------------------------------------

// Packed cells: elevations 0..40 m in steps of 0.5, frictions 0..1.75, `holes` nodata.
std::vector<double> random_cells(std::mt19937_64& rng, std::uint64_t n, double holes, std::vector<double>* elevation = nullptr,
                                 std::vector<double>* friction = nullptr) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> v(n);
  if (elevation) elevation->assign(n, kNaN);
  if (friction) friction->assign(n, kNaN);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (unit(rng) < holes) {
      v[i] = kNaN;
      continue;
    }
    const double h = std::floor(unit(rng) * 80) * 0.5, f = std::floor(unit(rng) * 8) * 0.25;
    v[i] = pack_walk_cell(static_cast<float>(h), static_cast<float>(f));
    if (elevation) (*elevation)[i] = h;
    if (friction) (*friction)[i] = f;
  }
  return v;
}

TEST(WalkBlock, CpuSolverMatchesOracle) {
  for (std::uint64_t seed = 1; seed <= 160; ++seed) {
    std::mt19937_64 rng(seed * 6151);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::uint32_t t = 1 + static_cast<std::uint32_t>(rng() % 24);
    const std::uint32_t s = t + 2;
    WeightParams params = hand_params(seed % 2 ? WeightModel::Walk : WeightModel::Tobler);
    params.steps.ns = 20.0;
    params.steps.diag = std::sqrt(1300.0);
    params.walk.reverse = seed % 3 == 0;
    params.walk.lambda = (seed % 4) * 0.5;
    const Connectivity connectivity = seed % 5 == 1 ? Connectivity::Four : Connectivity::Eight;
    const std::vector<double> values = random_cells(rng, static_cast<std::uint64_t>(s) * s, 0.1);
    const std::vector<PathLength> dist = testing::random_window_seeds(rng, s, 500000);
    testing::SsspReferenceProblem ref = testing::block_window_problem(values.data(), t, params, connectivity, dist);
    ASSERT_TRUE(testing::sssp_reference(ref));
    testing::expect_block_matches(values.data(), t, params, connectivity, dist, ref.dist, seed);
  }
}

// ---- the pipeline: streamed (several tiles, tiny cache), resident twin, direction ---------------

// The reverse-graph oracle of --direction to, written without the engine's reverse flag: Dijkstra
// from the sources where a settled cell u offers its neighbour v the travel v -> u.
std::vector<PathLength> reverse_oracle(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                                       const WeightParams& from_params, Connectivity connectivity,
                                       const std::vector<std::uint64_t>& sources) {
  std::vector<PathLength> dist(w * h, kUnreached);
  using Entry = std::pair<PathLength, std::uint64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (std::uint64_t c : sources) {
    dist[c] = 0;
    queue.push({0, c});
  }
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d != dist[u]) continue;
    for (int k = 0; k < 8; ++k) {
      if (!direction_used(k, connectivity)) continue;
      const std::int64_t x = static_cast<std::int64_t>(u % w) + kDirDx[k], y = static_cast<std::int64_t>(u / w) + kDirDy[k];
      if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(w) || y >= static_cast<std::int64_t>(h)) continue;
      const std::uint64_t v = static_cast<std::uint64_t>(y) * w + static_cast<std::uint64_t>(x);
      double hv, fv, hu, fu;
      if (values[u] != values[u] || values[v] != values[v]) continue;
      unpack_walk_cell(values[v], &hv, &fv);
      unpack_walk_cell(values[u], &hu, &fu);
      const double length = (k & 1) ? from_params.steps.diag : (k == 0 || k == 4) ? from_params.steps.ew : from_params.steps.ns;
      const double seconds = walk_step_cost(from_params, hv, fv, hu, fu, length);  // travel v -> u
      const double fixed = seconds * from_params.scale;
      const PathLength wgt = static_cast<PathLength>(std::floor(fixed) + (fixed - std::floor(fixed) >= 0.5 ? 1 : 0));
      if (d + wgt < dist[v]) {
        dist[v] = d + wgt;
        queue.push({dist[v], v});
      }
    }
  }
  return dist;
}

TEST(WalkPipeline, MatchesOracleAtSeveralTilesAndBothDirections) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed * 3571);
    const std::uint64_t w = 12 + rng() % 40, h = 12 + rng() % 40;
    std::vector<double> elevation, friction;
    const std::vector<double> values = random_cells(rng, w * h, 0.06, &elevation, &friction);
    const std::string tag = std::to_string(seed);
    const std::string dem = dir.file("dem" + tag + ".tif"), fric = dir.file("fric" + tag + ".tif");
    testing::write_raster_values(dem, w, h, elevation, CellType::Float32, -9999, utm(30, -20));
    const bool with_friction = seed % 3 != 0;
    testing::write_raster_values(fric, w, h, friction, CellType::Float32, -9999, utm(30, -20));
    std::vector<double> cells = values;
    if (!with_friction)  // friction 0 where the elevation is valid
      for (std::uint64_t i = 0; i < cells.size(); ++i)
        cells[i] = elevation[i] != elevation[i] ? kNaN : pack_walk_cell(static_cast<float>(elevation[i]), 0.0f);
    SsspOptions o;
    RunSettings o_run;
    o.input = dem;
    o.friction = with_friction ? fric : "";
    o.weight = seed % 2 ? WeightModel::Walk : WeightModel::Tobler;
    o.walk.reverse = seed % 4 >= 2;
    o.connectivity = seed % 5 == 0 ? Connectivity::Four : Connectivity::Eight;
    std::vector<std::uint64_t> source_cells;
    for (int k = 0; k < 1 + static_cast<int>(seed % 3); ++k) {
      std::uint64_t c;
      do c = rng() % cells.size();
      while (cells[c] != cells[c]);
      source_cells.push_back(c);
      o.sources.push_back(pixel(c % w, c / w));
    }
    const std::string what = "seed " + tag + " " + to_string(o.weight) + (o.walk.reverse ? " to" : " from");
    // The oracle's problem with a run's params (its reverse flag included), the sources ids 1, 2, ...
    auto oracle_problem = [&](const WeightParams& params) {
      testing::SsspReferenceProblem ref = testing::reference_problem(w, h, cells.data(), params, o.connectivity);
      std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
      for (std::uint32_t k = 0; k < source_cells.size(); ++k) sources.push_back({source_cells[k], k + 1});
      testing::set_reference_sources(ref, sources);
      return ref;
    };
    std::vector<PathLength> first;
    // Tiles of 4, 8 and 64 (one tile), the last with a cache of 2 tiles; the resident CPU twin.
    for (int variant = 0; variant < 4; ++variant) {
      SsspOptions v = o;
      RunSettings v_run = o_run;
      v.output = dir.file("cost" + tag + "_" + std::to_string(variant) + ".tif");
      v.tile = variant == 0 ? 4 : variant == 1 ? 8 : variant == 2 ? 64 : 8;
      if (variant == 1) {
        v.backlink = dir.file("back" + tag + ".tif");
        v.allocation = dir.file("alloc" + tag + ".tif");
        v_run.threads = 1;
        v.cache_bytes = 2 * (10 * 10 * 24 + 8 * 8 + 128);  // two tiles of 8 with labels: evictions all the way
      }
      if (variant == 3) {
        v.exchange = "resident";
        v_run.device = DeviceRequest::Cpu;
        v.resident_tile = 8;
      }
      MemoryBudget budget(256ull << 20);
      const SsspResult r = terrazo::testing::run_with(run_sssp, v, v_run, budget, Progress::silent());
      EXPECT_EQ(r.distance, DistanceMode::Map) << what;
      EXPECT_EQ(r.params.steps.ew, 30.0);
      const std::vector<PathLength> dist = testing::fixed_distances(testing::read_raster_values(v.output), r.params.scale);
      if (variant == 0) {
        // The oracle with the engine's params...
        testing::SsspReferenceProblem ref = oracle_problem(r.params);
        ASSERT_TRUE(testing::sssp_reference(ref)) << what;
        ASSERT_TRUE(testing::equal_cells(dist, ref.dist, w)) << what;
        // ... and --direction to against the reverse graph written out here.
        if (o.walk.reverse) {
          WeightParams from = r.params;
          from.walk.reverse = false;
          const std::vector<PathLength> expected = reverse_oracle(cells, w, h, from, o.connectivity, source_cells);
          ASSERT_TRUE(testing::equal_cells(dist, expected, w)) << what << " reverse graph";
        }
        first = dist;
        continue;
      }
      ASSERT_EQ(dist, first) << what << " variant " << variant;
      if (variant == 1) {  // backlinks and allocation against the oracle's rule
        testing::SsspReferenceProblem ref = oracle_problem(r.params);
        ASSERT_TRUE(testing::sssp_reference(ref));
        ASSERT_TRUE(testing::equal_cells(testing::read_backlinks(v.backlink), testing::backlinks_reference(ref), w))
            << what << " backlink";
        ASSERT_TRUE(testing::equal_cells(testing::read_allocation(v.allocation), testing::allocation_reference(ref), w))
            << what << " allocation";
        EXPECT_GT(r.cache_evictions, 0u) << what;
      }
    }
  }
}

// The length of a step in direction d with uniform step lengths.
double reference_length(const WeightParams& p, int d) {
  return (d & 1) ? p.steps.diag : (d == 0 || d == 4) ? p.steps.ew : p.steps.ns;
}

// ---- path: back to a source with the reported cost, in both directions ----------------------------

// On a crop of a real UTM DEM: every destination's backlink walk ends at the source, and the exact
// sum of the travel's step weights (source -> destination for from, destination -> source for to)
// equals the cost raster's fixed-point distance at the destination.
TEST(WalkPath, TracesBackToTheSourceWithTheReportedCost) {
  testing::TempDir dir;
  const std::string full = std::string(TERRAZO_DATASETS) + "/real/srtm_bigtujunga30m_utm11.tif";
  RasterInfo info;
  const std::vector<double> all = testing::read_raster_values(full, &info);
  const std::uint64_t w = 90, h = 70, x0 = 100, y0 = 120;
  std::vector<double> elevation(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) elevation[y * w + x] = all[(y0 + y) * info.width + x0 + x];
  RasterInfo crop = info;
  crop.geotransform[0] += static_cast<double>(x0) * info.geotransform[1];
  crop.geotransform[3] += static_cast<double>(y0) * info.geotransform[5];
  const std::string dem = dir.file("crop.tif");
  testing::write_raster_values(dem, w, h, elevation, CellType::Float32, -9999, crop);
  for (const bool to : {false, true}) {
    SsspOptions o;
    RunSettings o_run;
    o.input = dem;
    o.output = dir.file(to ? "cost_to.tif" : "cost_from.tif");
    o.backlink = dir.file(to ? "back_to.tif" : "back_from.tif");
    o.weight = WeightModel::Walk;
    o.walk.reverse = to;
    o.sources = {pixel(45, 35)};
    o.tile = 16;
    MemoryBudget budget(256ull << 20);
    const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
    PathOptions p = testing::path_options_after(o);
    RunSettings p_run;
    p.output = dir.file(to ? "paths_to.geojson" : "paths_from.geojson");
    p.dests = {pixel(0, 0), pixel(89, 69), pixel(10, 60), pixel(80, 5)};
    MemoryBudget path_budget(64ull << 20);
    const PathResult traced = terrazo::testing::run_with(run_path, p, p_run, path_budget, Progress::silent());
    ASSERT_EQ(traced.paths.size(), p.dests.size());
    const std::vector<PathLength> dist = testing::fixed_distances(testing::read_raster_values(o.output), r.params.scale);
    const std::vector<double> back = testing::read_raster_values(o.backlink);
    WeightParams travel = r.params;
    travel.walk.reverse = false;
    for (const TracedPath& t : traced.paths) {
      EXPECT_EQ(t.source_x, 45u);
      EXPECT_EQ(t.source_y, 35u);
      std::uint64_t x = t.x, y = t.y;
      PathLength sum = 0;
      std::uint64_t cells = 1;
      for (;;) {
        const double b = back[y * w + x];
        if (b != b || b == 255) break;
        const int d = static_cast<int>(b);
        const std::uint64_t nx = x + kDirDx[d], ny = y + kDirDy[d];  // the predecessor, nearer the source
        const double here = pack_walk_cell(static_cast<float>(elevation[y * w + x]), 0.0f);
        const double there = pack_walk_cell(static_cast<float>(elevation[ny * w + nx]), 0.0f);
        bool overflow = false;
        // from: the travel goes predecessor -> here; to: here -> predecessor.
        sum += to ? weight_of_step(travel, here, there, reference_length(r.params, d), &overflow)
                  : weight_of_step(travel, there, here, reference_length(r.params, d), &overflow);
        x = nx;
        y = ny;
        ++cells;
      }
      EXPECT_EQ(x, 45u);
      EXPECT_EQ(y, 35u);
      EXPECT_EQ(sum, dist[t.y * w + t.x]) << t.dest << (to ? " to" : " from");
      EXPECT_EQ(t.cells, cells) << t.dest;
      EXPECT_NEAR(t.cost, static_cast<double>(dist[t.y * w + t.x]) / r.params.scale, 1e-9 * t.cost);
    }
  }
}

// ---- GRASS r.walk on a shipped DEM ------------------------------------------------------------------

// datasets/golden/walk_samples_bigtujunga.txt (datasets/make_golden_walk.py): r.walk's defaults with a
// friction raster on srtm_bigtujunga30m_utm11.tif (UTM, 30 m). terrazo's fixed point is within its
// relative bound 0.5 / (scale x w_min) of the exact cost (every step weighs at least w_min); r.walk
// sums doubles (relative error ~1e-13 over a few thousand steps).
TEST(WalkGolden, MatchesGrassRWalk) {
  testing::TempDir dir;
  const std::string golden = std::string(TERRAZO_DATASETS) + "/golden/walk_samples_bigtujunga.txt";
  std::ifstream in(golden);
  ASSERT_TRUE(in) << golden;
  std::string line;
  std::uint64_t sx = 0, sy = 0;
  std::vector<std::tuple<std::uint64_t, std::uint64_t, double>> samples;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    if (line.rfind("source", 0) == 0) {
      std::string word;
      fields >> word >> sx >> sy;
      continue;
    }
    std::uint64_t x, y;
    double cost;
    fields >> x >> y >> cost;
    samples.emplace_back(x, y, cost);
  }
  ASSERT_GT(samples.size(), 400u);
  SsspOptions o;
  RunSettings o_run;
  o.input = std::string(TERRAZO_DATASETS) + "/real/srtm_bigtujunga30m_utm11.tif";
  o.friction = std::string(TERRAZO_DATASETS) + "/golden/walk_friction_bigtujunga.tif";
  o.output = dir.file("walk.tif");
  o.weight = WeightModel::Walk;
  o.sources = {pixel(sx, sy)};
  MemoryBudget budget(256ull << 20);
  const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  EXPECT_EQ(r.distance, DistanceMode::Map);
  const double bound = r.weights.relative_error_bound;
  EXPECT_GT(bound, 0.0);
  EXPECT_LT(bound, 1e-6);
  RasterInfo info;
  const std::vector<double> cost = testing::read_raster_values(o.output, &info);
  double worst = 0;
  for (const auto& [x, y, expected] : samples) {
    const double got = cost[y * info.width + x];
    if (expected == 0) {
      EXPECT_EQ(got, 0.0);
      continue;
    }
    const double relative = std::fabs(got - expected) / expected;
    worst = std::max(worst, relative);
    EXPECT_LE(relative, bound + 1e-12) << "cell " << x << "," << y << ": terrazo " << got << ", r.walk " << expected;
  }
  std::printf("walk vs r.walk: %zu samples, max relative difference %.3g (bound %.3g, scale %g)\n", samples.size(),
              worst, bound, r.params.scale);
}

// The weight scan runs on several threads; its answer is the serial scan's: the same scale and bounds,
// and on bad input the error of the first bad cell in (tile, row, column) order.
TEST(WalkWeights, ScanGivesTheSameAnswerOnAnyThreadCount) {
  std::mt19937_64 rng(77);
  const std::uint64_t w = 300, h = 230;  // tiles of 64: 5 x 4, partial at the right and bottom
  std::vector<double> elevation, friction;
  const std::vector<double> values = random_cells(rng, w * h, 0.05, &elevation, &friction);
  MemoryTileInput<double> cells(values, w, h, 64);
  StepLengths steps;
  steps.ew = steps.ns = 30;
  steps.diag = std::sqrt(1800.0);
  steps.min_length = 30;
  steps.max_length = steps.diag;
  for (WeightModel model : {WeightModel::Walk, WeightModel::Tobler}) {
    const WeightChoice one = choose_walk_weight_params(model, WalkParams{}, 0, cells, steps, 1, nullptr);
    EXPECT_GT(one.largest_step, 0);
    for (unsigned threads : {2u, 3u, 8u, 64u}) {
      const WeightChoice many = choose_walk_weight_params(model, WalkParams{}, 0, cells, steps, threads, nullptr);
      EXPECT_EQ(many.params.scale, one.params.scale);
      EXPECT_EQ(many.largest_step, one.largest_step);
      EXPECT_EQ(many.relative_error_bound, one.relative_error_bound);
    }
  }
  // Negative frictions in every tile but the first: the message names the first in scan order.
  std::vector<double> bad = values;
  const auto set_bad = [&](std::uint64_t x, std::uint64_t y, float f) {
    double e, ignored;
    std::uint64_t i = y * w + x;
    if (bad[i] != bad[i]) bad[i] = pack_walk_cell(10.0f, 0.0f);
    unpack_walk_cell(bad[i], &e, &ignored);
    bad[i] = pack_walk_cell(static_cast<float>(e), f);
  };
  for (std::uint64_t ty = 0; ty < 4; ++ty)  // one in every tile but the first: threads meet them at once
    for (std::uint64_t tx = 0; tx < 5; ++tx)
      if (tx + ty > 0) set_bad(tx * 64 + 4, ty * 64 + 10, -1.0f);
  set_bad(68, 3, -2.0f);  // tile (1, 0), before its other bad cell (68, 10) in scan order: the first
  MemoryTileInput<double> bad_cells(bad, w, h, 64);
  for (unsigned threads : {1u, 2u, 5u, 64u}) {
    try {
      choose_walk_weight_params(WeightModel::Walk, WalkParams{}, 0, bad_cells, steps, threads, nullptr);
      ADD_FAILURE() << "a negative friction was not refused on " << threads << " threads";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("value -2 at cell 68,3"), std::string::npos) << threads << ": " << e.what();
    }
  }
}

// ---- refusals ----------------------------------------------------------------------------------

TEST(WalkCli, BadInputIsRefused) {
  testing::TempDir dir;
  const std::string dem = dir.file("dem.tif"), other = dir.file("other.tif"), shifted = dir.file("shifted.tif");
  std::vector<double> v(16 * 12, 5.0);
  testing::write_raster_values(dem, 16, 12, v, CellType::Float32, -9999, utm(30, -30));
  testing::write_raster_values(other, 16, 11, std::vector<double>(16 * 11, 1.0), CellType::Float32, -9999, utm(30, -30));
  RasterInfo moved = utm(30, -30);
  moved.geotransform[0] += 30;
  testing::write_raster_values(shifted, 16, 12, v, CellType::Float32, -9999, moved);
  const std::string negative = dir.file("negative.tif");
  std::vector<double> neg(v.size(), 1.0);
  neg[37] = -2.0;
  testing::write_raster_values(negative, 16, 12, neg, CellType::Float32, -9999, utm(30, -30));
  auto run = [&](std::vector<std::string> args) {
    const SsspCommandOptions parsed = parse_sssp_options(args);
    MemoryBudget budget(256ull << 20);
    terrazo::testing::run_with(run_sssp, parsed.sssp, run_settings(parsed.common), budget, Progress::silent());
  };
  const std::string out = dir.file("cost.tif");
  EXPECT_THROW(run({"--model", "walk", "--friction", other, "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--friction", shifted, "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--friction", negative, "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "hike", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--weight", "friction", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--walk-coeff", "0.72,6,1.9998", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--walk-coeff", "0.72,6,1.9998,2", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--walk-coeff", "0.1,6,5,-2", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--slope-factor", "0.3", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--lambda", "-1", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "tobler", "--walk-coeff", "0.72,6,1.9998,-1.9998", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--friction", dem, "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--direction", "up", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--model", "walk", "--index", dir.file("x.tzi"), "--source", "1,1", dem, out}), UsageError);
  // The defaults run: map lengths on a projected CRS, direction from.
  run({"--model", "walk", "--walk-coeff", "0.72,6.0,1.9998,-1.9998", "--lambda", "1", "--slope-factor", "-0.2125",
       "--friction", dem, "--direction", "to", "--source", "1,1", dem, out});
}

}  // namespace
}  // namespace terrazo
