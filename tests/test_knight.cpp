// tests/test_knight.cpp: knight's moves, `sssp --connectivity 16` (docs/sssp.md "Knight's moves").
//
// The geometry and the GRASS r.cost -k weight by hand; the two-cell ring layout; the CPU block solver
// on (t+4)^2 windows and the exchange + output on tiles of 2..8 cells (a knight's move from one tile
// can cross a whole 2-cell tile) against the in-memory oracle (tests/support/sssp_reference.h, 16
// neighbours written out there), with labels and backlinks; `path` over a 16-connected backlink
// raster; the golden r.cost -k samples (datasets/make_golden_knight.py); the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/path.h"
#include "engine/commands/sssp.h"
#include "engine/commands/sssp_command.h"
#include "kernels/common/error.h"
#include "engine/sssp/distance_store.h"
#include "engine/sssp/exchange.h"
#include "engine/sssp/output.h"
#include "kernels/sssp/backlink.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/knight.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/exchange_sources.h"
#include "tests/support/sssp_capture_sink.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/path_support.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- geometry and weight by hand ----------------------------------------------------------------

TEST(KnightGeometry, MovesCrossedCellsAndOpposites) {
  for (int d = 8; d < 16; ++d) {
    const int dx = kStepDx[d], dy = kStepDy[d];
    EXPECT_EQ(std::abs(dx) + std::abs(dy), 3);
    EXPECT_EQ(std::abs(dx) * std::abs(dy), 2);
    const int o = opposite_step(d);
    EXPECT_TRUE(is_knight(o));
    EXPECT_EQ(kStepDx[o], -dx);
    EXPECT_EQ(kStepDy[o], -dy);
    EXPECT_EQ(opposite_step(o), d);
    // Seen from the other end, the same two cells are crossed.
    int ax, ay, bx, by, oax, oay, obx, oby;
    knight_crossed(d, &ax, &ay, &bx, &by);
    knight_crossed(o, &oax, &oay, &obx, &oby);
    EXPECT_EQ(dx + oax, bx);
    EXPECT_EQ(dy + oay, by);
    EXPECT_EQ(dx + obx, ax);
    EXPECT_EQ(dy + oby, ay);
  }
  for (int d = 0; d < 8; ++d) EXPECT_EQ(opposite_step(d), opposite(d));
  for (int d = 0; d < 16; ++d) {  // the device-side functions hold the same tables
    EXPECT_EQ(step_dx16(d), kStepDx[d]);
    EXPECT_EQ(step_dy16(d), kStepDy[d]);
  }
  // GRASS r.cost's NNW (col - 1, row - 2) crosses N and NW; WNW (col - 2, row - 1) crosses W and NW.
  int ax, ay, bx, by;
  knight_crossed(13, &ax, &ay, &bx, &by);
  EXPECT_EQ(std::make_tuple(kStepDx[13], kStepDy[13], ax, ay, bx, by), std::make_tuple(-1, -2, 0, -1, -1, -1));
  knight_crossed(12, &ax, &ay, &bx, &by);
  EXPECT_EQ(std::make_tuple(kStepDx[12], kStepDy[12], ax, ay, bx, by), std::make_tuple(-2, -1, -1, 0, -1, -1));
  EXPECT_TRUE(step_used(1, Connectivity::Sixteen) && step_used(15, Connectivity::Sixteen));
  EXPECT_FALSE(step_used(8, Connectivity::Eight) || step_used(1, Connectivity::Four));
  EXPECT_EQ(halo_width(Connectivity::Sixteen), 2u);
  EXPECT_EQ(halo_width(Connectivity::Eight), 1u);
  EXPECT_STREQ(to_string(Connectivity::Sixteen), "16");
}

TEST(KnightWeight, GrassMeanOfFourCellsTimesSqrt5) {
  WeightParams p;
  p.model = WeightModel::Friction;
  p.scale = 1000;
  bool overflow = false;
  // (1 + 2 + 3 + 4) / 4 * sqrt 5 = 5.5901699...
  EXPECT_EQ(knight_weight(p, 1, 2, 3, 4, knight_length(p.steps, 8), &overflow), 5590u);
  EXPECT_EQ(knight_weight(p, 4, 3, 2, 1, knight_length(p.steps, 12), &overflow), 5590u);
  EXPECT_EQ(knight_weight(p, 1, kNaN, 3, 4, std::sqrt(5.0), &overflow), kNoEdge);
  EXPECT_EQ(knight_weight(p, 1, 2, kNaN, 4, std::sqrt(5.0), &overflow), kNoEdge);
  EXPECT_EQ(knight_weight(p, kNaN, 2, 3, 4, std::sqrt(5.0), &overflow), kNoEdge);
  p.model = WeightModel::Geometric;
  EXPECT_EQ(knight_weight(p, 1, 2, 3, 4, std::sqrt(5.0), &overflow), 2236u);
  p.model = WeightModel::Unit;
  EXPECT_EQ(knight_weight(p, 1, 2, 3, 4, std::sqrt(5.0), &overflow), 1000u);
  EXPECT_FALSE(overflow);
  // --distance map: sqrt((2 ew)^2 + ns^2) and sqrt(ew^2 + (2 ns)^2).
  StepLengths s;
  s.ew = 3;
  s.ns = 4;
  EXPECT_DOUBLE_EQ(knight_length(s, 8), std::sqrt(36.0 + 16.0));
  EXPECT_DOUBLE_EQ(knight_length(s, 9), std::sqrt(9.0 + 64.0));
}

// The two-cell ring: a bijection onto the halo, each band row-major; h = 1 is the old layout.
TEST(KnightRing, IndexAndCellAreInverse) {
  for (std::uint32_t h = 1; h <= 2; ++h)
    for (std::uint32_t t = 2; t <= 7; ++t) {
      const std::uint32_t s = t + 2 * h;
      std::vector<int> seen(ring_cell_count(t, h), 0);
      for (std::uint32_t y = 0; y < s; ++y)
        for (std::uint32_t x = 0; x < s; ++x) {
          if (x >= h && y >= h && x < t + h && y < t + h) continue;
          const std::uint32_t r = ring_index(t, x, y, h);
          ASSERT_LT(r, seen.size());
          ++seen[r];
          std::uint32_t hx, hy;
          ring_cell(t, r, &hx, &hy, h);
          ASSERT_EQ(hx, x);
          ASSERT_EQ(hy, y);
          if (h == 1) {  // the layout distance stores always had
            const std::uint32_t old = y == 0 ? x : y == t + 1 ? t + 2 + x : x == 0 ? 2 * t + 4 + (y - 1) : 3 * t + 4 + (y - 1);
            ASSERT_EQ(r, old);
          }
        }
      for (int n : seen) ASSERT_EQ(n, 1);
    }
}

// ---- the block solver -------------------------------------------------------------------------

std::vector<double> random_values(std::mt19937_64& rng, std::uint64_t n, double holes, bool integral) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) {
    x = unit(rng) < holes ? kNaN : 0.5 + unit(rng) * 20.0;
    if (integral && x == x) x = std::floor(x);
  }
  return v;
}

WeightModel model_of(std::uint64_t seed) {
  return seed % 3 == 0 ? WeightModel::Friction : seed % 3 == 1 ? WeightModel::Geometric : WeightModel::Unit;
}

TEST(KnightBlock, CpuSolverMatchesOracleWithLabels) {
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::uint32_t t = 2 + static_cast<std::uint32_t>(rng() % 11), s = t + 4;
    WeightParams params;
    params.model = seed % 5 == 0 ? WeightModel::Friction : model_of(seed);
    params.scale = seed % 2 ? 1000.0 : 1.0;
    if (seed % 7 == 2) {  // --distance map on 30 x 20 cells
      params.steps.ew = 30;
      params.steps.ns = 20;
      params.steps.diag = std::sqrt(1300.0);
      params.steps.min_length = 20;
      params.steps.max_length = std::sqrt(1300.0);
    }
    const std::vector<double> values = random_values(rng, static_cast<std::uint64_t>(s) * s, seed % 4 == 0 ? 0.3 : 0.08,
                                                     params.scale == 1.0);
    const bool labelled = seed % 2 == 0;
    std::vector<PathLength> dist(values.size(), kUnreached);
    std::vector<std::uint32_t> source(values.size(), 0), hops(values.size(), 0);
    std::vector<std::uint8_t> frozen(values.size(), 0);
    for (std::uint32_t y = 0; y < s; ++y)
      for (std::uint32_t x = 0; x < s; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * s + x;
        const bool halo = x < 2 || y < 2 || x >= t + 2 || y >= t + 2;
        frozen[i] = halo ? 1 : 0;
        if (unit(rng) < (halo ? 0.25 : 0.03)) {
          dist[i] = rng() % 200000;
          if (labelled) {
            source[i] = static_cast<std::uint32_t>(rng() % 4);
            hops[i] = static_cast<std::uint32_t>(rng() % 50);
          }
        }
      }
    testing::SsspReferenceProblem ref = testing::reference_problem(s, s, values.data(), params, Connectivity::Sixteen);
    ref.dist = dist;
    ref.source = source;
    ref.hops = hops;
    ref.frozen = frozen;
    ASSERT_TRUE(testing::sssp_reference(ref));
    std::vector<std::uint8_t> changed(static_cast<std::size_t>(t) * t);
    bool overflow = false;
    SsspLabels labels;
    if (labelled) {
      labels.source = source.data();
      labels.hops = hops.data();
    }
    std::vector<PathLength> before = dist;
    block_sssp_cpu_labelled(values.data(), t, params, Connectivity::Sixteen, kUnreached, dist.data(), labels, changed.data(),
                            &overflow);
    ASSERT_FALSE(overflow);
    for (std::uint32_t y = 0; y < s; ++y)
      for (std::uint32_t x = 0; x < s; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * s + x;
        ASSERT_EQ(dist[i], ref.dist[i]) << "seed " << seed << " t " << t << " cell " << x << "," << y;
        if (labelled && dist[i] != kUnreached) {
          ASSERT_EQ(source[i], ref.source[i]) << "seed " << seed << " cell " << x << "," << y;
          ASSERT_EQ(hops[i], ref.hops[i]) << "seed " << seed << " cell " << x << "," << y;
        }
        if (!frozen[i]) {
          ASSERT_EQ(changed[static_cast<std::size_t>(y - 2) * t + x - 2], dist[i] != before[i] ? 1 : 0);
        }
      }
    // A re-solve after a few halo cells improved, with the interior_consistent hint (only the
    // two-cell halo is scanned for seeds), equals a fresh oracle run.
    for (std::uint32_t y = 0; y < s; ++y)
      for (std::uint32_t x = 0; x < s; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * s + x;
        if (frozen[i] && unit(rng) < 0.2) dist[i] = rng() % 50000;
      }
    ref.dist = dist;
    ref.source = source;
    ref.hops = hops;
    ASSERT_TRUE(testing::sssp_reference(ref));
    labels.interior_consistent = true;
    block_sssp_cpu_labelled(values.data(), t, params, Connectivity::Sixteen, kUnreached, dist.data(), labels, changed.data(),
                            &overflow);
    for (std::size_t i = 0; i < dist.size(); ++i) ASSERT_EQ(dist[i], ref.dist[i]) << "seed " << seed << " re-solve";
  }
}

// ---- the exchange and the output phase ----------------------------------------------------------

using testing::CaptureSink;

TEST(KnightCore, RandomRastersAndTinyTilesMatchReference) {
  std::uint64_t evictions = 0, resolves = 0, knight_links = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::uint64_t dims[] = {1, 2, 3, 5, 7, 9, 13, 17, 24};
    const std::uint64_t w = dims[rng() % 9], h = dims[rng() % 9];
    const std::uint32_t tiles[] = {2, 3, 4, 5, 8};
    const std::uint32_t t = tiles[seed % 5];
    SsspExchangeOptions options;
    options.params.model = model_of(seed / 5);
    options.params.scale = seed % 2 ? 100.0 : 1.0;
    if (seed % 7 == 3) {  // --distance map on 30 x 20 cells: knight's moves sqrt(60^2 + 20^2), sqrt(30^2 + 40^2)
      options.params.steps.ew = 30;
      options.params.steps.ns = 20;
      options.params.steps.diag = std::sqrt(1300.0);
      options.params.steps.min_length = 20;
      options.params.steps.max_length = std::sqrt(1300.0);
    }
    options.connectivity = Connectivity::Sixteen;
    const double holes = seed % 4 == 0 ? 0.0 : seed % 4 == 1 ? 0.1 : seed % 4 == 2 ? 0.35 : 0.05;
    const std::vector<double> values = random_values(rng, w * h, holes, options.params.scale == 1.0);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
    std::vector<std::uint64_t> valid;
    for (std::uint64_t i = 0; i < values.size(); ++i)
      if (values[i] == values[i]) valid.push_back(i);
    if (valid.empty()) continue;
    const int count = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < count; ++k) sources.push_back({valid[rng() % valid.size()], static_cast<std::uint32_t>(rng() % 5)});
    options.track_source = rng() % 2;
    const bool backlinks = seed % 3 != 0;
    options.track_hops = backlinks;
    if (rng() % 5 == 0) options.max_cost = static_cast<PathLength>(unit(rng) * 40 * options.params.scale);
    options.threads = 1 + static_cast<unsigned>(rng() % 2);
    options.batch = options.threads + static_cast<std::uint32_t>(rng() % 2);
    const bool labelled = options.track_source || options.track_hops;
    const std::uint64_t window = static_cast<std::uint64_t>(t + 4) * (t + 4);
    if (rng() % 2) options.cache_bytes = (window * (16 + (labelled ? 8 : 0)) + t * t + 128) * (options.batch + 1);

    testing::TempDir dir;
    MemoryBudget budget(1ull << 30);
    MemoryTileInput input(values, w, h, t);
    DistanceStore store(dir.file("dist"), input.grid(), labelled, budget, 2);
    CaptureSink sink(w, h);
    {
      SsspExchange exchange(input, store, options, budget);
      ASSERT_TRUE(testing::add_cell_sources(exchange, input.grid(), sources).empty());
      exchange.run(Progress::silent());
      exchange.flush();
      evictions += exchange.stats().cache_evictions;
      resolves += exchange.stats().resolves;
    }
    write_sssp_results(input, store, options, backlinks, sink, budget, Progress::silent(), seed % 2 == 0);

    testing::SsspReferenceProblem ref =
        testing::reference_problem(w, h, values.data(), options.params, Connectivity::Sixteen);
    ref.max_cost = options.max_cost;
    auto ids = sources;
    if (!options.track_source)
      for (auto& s : ids) s.second = 0;
    testing::set_reference_sources(ref, ids);
    ASSERT_TRUE(testing::sssp_reference(ref));
    const std::vector<std::uint8_t> back = testing::backlinks_reference(ref);
    const std::string what = "seed " + std::to_string(seed) + " " + std::to_string(w) + "x" + std::to_string(h) +
                             " t=" + std::to_string(t) + " model " + to_string(options.params.model);
    for (std::uint64_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(sink.dist[i], ref.dist[i]) << what << " cell " << i % w << "," << i / w;
      if (options.track_source && ref.dist[i] != kUnreached) {
        ASSERT_EQ(sink.source[i], ref.source[i]) << what;
      }
      if (backlinks) {
        ASSERT_EQ(sink.backlink[i], back[i]) << what << " cell " << i % w << "," << i / w;
        knight_links += back[i] >= 8 && back[i] < 16 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(evictions, 20u);
  EXPECT_GT(resolves, 20u);
  EXPECT_GT(knight_links, 100u);  // the backlinks do use the knight's codes
}

// ---- the file pipeline and path ----------------------------------------------------------------

SourcePoint pixel(std::uint64_t x, std::uint64_t y) { return parse_source_point(std::to_string(x) + "," + std::to_string(y)); }

TEST(KnightPath, TracesA16ConnectedBacklinkRaster) {
  testing::TempDir dir;
  const std::uint64_t w = 29, h = 23;
  std::mt19937_64 rng(77);
  std::vector<double> values = random_values(rng, w * h, 0.06, false);
  values[3 * w + 4] = 2.0;  // the source
  const std::string in = dir.file("cost_surface.tif");
  testing::write_raster_values(in, w, h, values, CellType::Float64, -9999);
  SsspOptions o = testing::sssp_options(in, {pixel(4, 3)}, dir.file("cost.tif"));
  RunSettings o_run;
  o.backlink = dir.file("back.tif");
  o.connectivity = Connectivity::Sixteen;
  o.tile = 8;
  o.scale = 1e6;
  MemoryBudget budget(256ull << 20);
  const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  // The rasters equal the oracle's.
  const std::vector<double> read = testing::read_raster_values(in);
  testing::SsspReferenceProblem ref = testing::reference_problem(w, h, read.data(), r.params, Connectivity::Sixteen);
  testing::set_reference_sources(ref, {{3 * w + 4, 0}});
  ASSERT_TRUE(testing::sssp_reference(ref));
  const std::vector<std::uint8_t> expected = testing::backlinks_reference(ref);
  const std::vector<PathLength> dist = testing::fixed_distances(testing::read_raster_values(o.output), r.params.scale);
  ASSERT_TRUE(testing::equal_cells(dist, ref.dist, w)) << "distances";
  ASSERT_TRUE(testing::equal_cells(testing::read_backlinks(o.backlink), expected, w)) << "backlinks";
  int knights = 0;
  for (const std::uint8_t code : expected) knights += code >= 8 && code < 16;
  ASSERT_GT(knights, 20);
  // path walks the knight's codes back to the source; its length in cells sums 1, sqrt 2 and sqrt 5.
  PathOptions po = testing::path_options_after(o);
  RunSettings po_run;
  po.output = dir.file("paths.geojson");
  std::vector<std::uint64_t> far;
  for (std::uint64_t i = 0; i < w * h; ++i)
    if (ref.dist[i] != kUnreached && expected[i] >= 8 && expected[i] < 16) far.push_back(i);
  ASSERT_FALSE(far.empty());
  for (std::size_t k = 0; k < far.size() && k < 6; ++k) po.dests.push_back(pixel(far[k * far.size() / 6] % w, far[k * far.size() / 6] / w));
  MemoryBudget path_budget(64ull << 20);
  const PathResult pr = terrazo::testing::run_with(run_path, po, po_run, path_budget, Progress::silent());
  ASSERT_EQ(pr.paths.size(), po.dests.size());
  for (const TracedPath& p : pr.paths) {
    EXPECT_EQ(p.source_x, 4u);
    EXPECT_EQ(p.source_y, 3u);
    // Replay the walk from the oracle's backlinks: the same cells, and the same length in cells.
    std::uint64_t x = p.x, y = p.y, cells = 1;
    double length = 0;
    while (expected[y * w + x] != 255) {
      const int b = expected[y * w + x];
      x += kStepDx[b];
      y += kStepDy[b];
      length += b >= 8 ? std::sqrt(5.0) : (b & 1) ? std::sqrt(2.0) : 1.0;
      ++cells;
    }
    EXPECT_EQ(p.cells, cells);
    EXPECT_NEAR(p.length_cells, length, 1e-9);
    EXPECT_DOUBLE_EQ(p.cost, static_cast<double>(ref.dist[p.y * w + p.x]) / r.params.scale);
  }
}

// ---- GRASS r.cost -k ---------------------------------------------------------------------------

TEST(KnightGolden, MatchesGrassRCostK) {
  const std::string golden = std::string(TERRAZO_DATASETS) + "/golden/knight_samples.txt";
  std::ifstream in(golden);
  ASSERT_TRUE(in) << golden;
  struct Dem {
    std::string name;
    std::uint64_t sx = 0, sy = 0;
    std::vector<std::tuple<std::uint64_t, std::uint64_t, double>> samples;
  };
  std::vector<Dem> dems;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string word;
    if (line.rfind("dem ", 0) == 0) {
      dems.emplace_back();
      fields >> word >> dems.back().name;
      continue;
    }
    ASSERT_FALSE(dems.empty());
    if (line.rfind("source", 0) == 0) {
      fields >> word >> dems.back().sx >> dems.back().sy;
      continue;
    }
    std::uint64_t x, y;
    std::string cost;
    fields >> x >> y >> cost;
    dems.back().samples.emplace_back(x, y, cost == "nan" ? kNaN : std::stod(cost));
  }
  ASSERT_EQ(dems.size(), 2u);
  for (const Dem& dem : dems) {
    ASSERT_GT(dem.samples.size(), 400u) << dem.name;
    testing::TempDir dir;
    SsspOptions o;
    RunSettings o_run;
    o.input = std::string(TERRAZO_DATASETS) + "/real/" + dem.name;
    o.output = dir.file("cost.tif");
    o.connectivity = Connectivity::Sixteen;
    o.sources = {pixel(dem.sx, dem.sy)};
    o_run.device = DeviceRequest::Cpu;
    MemoryBudget budget(256ull << 20);
    const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
    RasterInfo info;
    const std::vector<double> cost = testing::read_raster_values(o.output, &info);
    // Per step the fixed point is off by at most 0.5 / scale; paths have at most w + h steps here.
    const double absolute = 0.5 * static_cast<double>(info.width + info.height) / r.params.scale;
    double worst = 0;
    std::uint64_t unreached = 0;
    for (const auto& [x, y, expected] : dem.samples) {
      const double got = cost[y * info.width + x];
      if (expected != expected) {
        EXPECT_TRUE(got != got) << dem.name << " cell " << x << "," << y << ": r.cost -k leaves it unreached, terrazo " << got;
        ++unreached;
        continue;
      }
      ASSERT_TRUE(got == got) << dem.name << " cell " << x << "," << y << " unreached, r.cost -k " << expected;
      const double difference = std::fabs(got - expected);
      worst = std::max(worst, expected > 0 ? difference / expected : difference);
      EXPECT_LE(difference, absolute + 1e-9 * expected) << dem.name << " cell " << x << "," << y << ": terrazo " << got
                                                        << ", r.cost -k " << expected;
    }
    std::printf("%s: %zu samples (%llu unreached) vs r.cost -k, max relative difference %.3g (scale %g)\n",
                dem.name.c_str(), dem.samples.size(), static_cast<unsigned long long>(unreached), worst, r.params.scale);
  }
}

// ---- refusals ----------------------------------------------------------------------------------

TEST(KnightCli, UnsupportedCombinationsAreRefused) {
  testing::TempDir dir;
  const std::string dem = dir.file("dem.tif");
  testing::write_raster_values(dem, 16, 12, std::vector<double>(16 * 12, 5.0), CellType::Float32, -9999);
  auto run = [&](std::vector<std::string> args) {
    const SsspCommandOptions parsed = parse_sssp_options(args);
    MemoryBudget budget(256ull << 20);
    return terrazo::testing::run_with(run_sssp, parsed.sssp, run_settings(parsed.common), budget, Progress::silent());
  };
  const std::string out = dir.file("cost.tif");
  for (const char* weight : {"absdiff", "max"})
    EXPECT_THROW(run({"--connectivity", "16", "--weight", weight, "--source", "1,1", dem, out}), UsageError) << weight;
  EXPECT_THROW(run({"--connectivity", "16", "--model", "walk", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--connectivity", "16", "--model", "tobler", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--connectivity", "16", "--distance", "geodesic", "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--connectivity", "16", "--index", dir.file("x.tzi"), "--source", "1,1", dem, out}), UsageError);
  EXPECT_THROW(run({"--connectivity", "16", "--weight", "unit", "--block-solver", "bfs", "--source", "1,1", dem, out}),
               UsageError);
  EXPECT_THROW(run({"--connectivity", "12", "--source", "1,1", dem, out}), UsageError);
  // The other commands (od-matrix, index, network's sssp runs, mst, clump) take 4 or 8 only.
  EXPECT_THROW(parse_connectivity("16"), UsageError);
  // What is supported runs, and says so in the result.
  for (const char* weight : {"friction", "geometric", "unit"}) {
    const SsspResult r = run({"--connectivity", "16", "--weight", weight, "--source", "1,1", "--device", "cpu", dem, out});
    EXPECT_EQ(r.reached_cells, 16u * 12u) << weight;
  }
  // The resident exchange takes knight's moves too (tests/test_resident_sssp.cpp compares it with streamed).
  const SsspResult resident = run({"--connectivity", "16", "--exchange", "resident", "--resident-tile", "8", "--source",
                                   "1,1", "--device", "cpu", dem, out});
  EXPECT_EQ(resident.exchange, "resident");
  EXPECT_EQ(resident.reached_cells, 16u * 12u);
}

}  // namespace
}  // namespace terrazo
