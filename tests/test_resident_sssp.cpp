// tests/test_resident_sssp.cpp: the resident SSSP exchange (kernels/sssp/resident_sssp.h, its CPU
// twin here; the CUDA solver in tests/gpu/test_resident_sssp_gpu.cpp) against the in-memory
// Dijkstra oracle on random rasters, and the pipeline's `--exchange resident` against `streamed`
// on shipped DEMs: the same cost rasters bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/sssp.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/worker_pool.h"
#include "engine/commands/generate_terrain.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/tile_pager.h"
#include "kernels/sssp/resident_sssp.h"
#include "kernels/sssp/resident_sssp_steps.h"
#include "tests/support/random_tiles.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using testing::kNaN;

struct ResidentCase {
  ResidentSsspOptions options;
  std::vector<double> values;
  std::vector<std::uint64_t> sources;
  unsigned threads = 1;
};

ResidentCase random_resident_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ResidentCase c;
  const std::uint64_t dims[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 40, 64, 67};
  c.options.width = dims[rng() % 13];
  c.options.height = dims[rng() % 13];
  const std::uint32_t sides[] = {2, 3, 4, 8, 16};
  c.options.g = sides[rng() % 5];
  const int model = static_cast<int>(rng() % 4);  // 3: unit, half of them through the frontier BFS twin
  c.options.params.model = model == 0 ? WeightModel::Max : model == 1 ? WeightModel::AbsDiff
                         : model == 2 ? WeightModel::Friction : WeightModel::Unit;
  c.options.params.scale = (rng() % 2) ? 1.0 : 100.0;
  c.options.frontier_bfs = model == 3 && rng() % 2;
  c.options.connectivity = (rng() % 3 == 0) ? Connectivity::Four : Connectivity::Eight;
  const std::uint64_t batches[] = {1, 2, 5, 64};
  c.options.batch_tiles = batches[rng() % 4];
  const std::uint64_t rounds[] = {1, 3, 16, 100000};
  c.options.round_tiles = rounds[rng() % 4];
  c.threads = 1 + static_cast<unsigned>(rng() % 2);
  const bool integral = rng() % 2;
  const double range = (rng() % 2) ? 4.0 : 1000.0;
  const int nodata_kind = static_cast<int>(rng() % 4);  // none, holes, walls, heavy
  const std::uint64_t w = c.options.width, h = c.options.height;
  c.values.resize(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      double v = unit(rng) * range;
      if (integral) v = std::floor(v);
      bool nodata = false;
      if (nodata_kind == 1) nodata = unit(rng) < 0.1;
      if (nodata_kind == 2) nodata = (x == w / 2 && y != 0) || (y == h / 3 && x > 2);
      if (nodata_kind == 3) nodata = unit(rng) < 0.4;
      c.values[y * w + x] = nodata ? kNaN : v;
    }
  if (c.options.params.model == WeightModel::Max && rng() % 3 == 0) {
    for (double& v : c.values) v -= range / 2;
    c.options.params.offset = -range / 2;
  }
  std::vector<std::uint64_t> valid;
  for (std::uint64_t i = 0; i < c.values.size(); ++i)
    if (c.values[i] == c.values[i]) valid.push_back(i);
  const int count = valid.empty() ? 0 : 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < count; ++k) c.sources.push_back(valid[rng() % valid.size()]);
  if (rng() % 4 == 0)
    c.options.max_cost = static_cast<PathLength>(unit(rng) * range * c.options.params.scale * 10);
  return c;
}

std::vector<PathLength> solve_resident_cpu(const ResidentCase& c, ResidentSsspStats* stats) {
  WorkerPool pool(c.threads);
  auto solver = make_resident_sssp_solver(Device::Cpu, c.options, pool);
  const std::uint64_t w = c.options.width, h = c.options.height;
  // Upload in uneven windows (rows in two pieces) to exercise the window mapping.
  const std::uint32_t left = static_cast<std::uint32_t>(w / 2);
  std::vector<double> piece;
  for (std::uint64_t y = 0; y < h; ++y) {
    if (left > 0) solver->write_values(0, y, left, 1, &c.values[y * w]);
    solver->write_values(left, y, static_cast<std::uint32_t>(w - left), 1, &c.values[y * w + left]);
  }
  for (std::uint64_t cell : c.sources) solver->set_source(cell % w, cell / w);
  std::uint64_t callbacks = 0;
  *stats = solver->solve([&](std::uint64_t, std::uint64_t) { ++callbacks; });
  EXPECT_EQ(callbacks, stats->rounds);
  std::vector<PathLength> dist(w * h);
  solver->read_distances(0, 0, static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h), dist.data());
  return dist;
}

TEST(ResidentSsspCpu, RandomRastersMatchReference) {
  std::uint64_t multi_round = 0, resolved = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const ResidentCase c = random_resident_case(seed);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + std::to_string(c.options.width) + "x" +
                 std::to_string(c.options.height) + " g=" + std::to_string(c.options.g) + " batch " +
                 std::to_string(c.options.batch_tiles) + " round " + std::to_string(c.options.round_tiles));
    ResidentSsspStats stats;
    const std::vector<PathLength> dist = solve_resident_cpu(c, &stats);
    ASSERT_FALSE(stats.overflow);
    testing::SsspReferenceProblem p = testing::reference_problem(c.options.width, c.options.height, c.values.data(),
                                                                  c.options.params, c.options.connectivity);
    p.max_cost = c.options.max_cost;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> seeds;
    for (std::uint64_t cell : c.sources) seeds.push_back({cell, 0});
    testing::set_reference_sources(p, seeds);
    ASSERT_TRUE(testing::sssp_reference(p));
    for (std::uint64_t i = 0; i < dist.size(); ++i)
      ASSERT_EQ(dist[i], p.dist[i]) << "cell " << i % c.options.width << "," << i / c.options.width;
    const std::uint64_t tiles = ((c.options.width + c.options.g - 1) / c.options.g) *
                                ((c.options.height + c.options.g - 1) / c.options.g);
    EXPECT_LE(stats.tiles_solved, tiles);
    EXPECT_GE(stats.solves, stats.tiles_solved);
    if (!c.sources.empty()) {
      EXPECT_GE(stats.rounds, 1u);
    }
    if (stats.rounds > 2) ++multi_round;
    resolved += stats.solves - stats.tiles_solved;
  }
  EXPECT_GT(multi_round, 100u);  // the cases did cross many tile borders
  EXPECT_GT(resolved, 50u);      // and re-solved tiles
}

// The border band a solved tile activates from: every cell within `halo` of the tile's edge exactly
// once (the whole tile when g <= 2 halo), nothing deeper; 4g - 4 cells with halo 1.
TEST(ResidentLayout, BorderBandIsEveryCellWithinTheHaloOnce) {
  for (const Connectivity c : {Connectivity::Eight, Connectivity::Sixteen})
    for (std::uint32_t g = 2; g <= 9; ++g) {
      ResidentSsspOptions o;
      o.width = o.height = 3 * g;
      o.g = g;
      o.connectivity = c;
      const ResidentLayout l(o);
      const std::uint32_t h = c == Connectivity::Sixteen ? 2 : 1;
      ASSERT_EQ(l.halo, h);
      ASSERT_EQ(l.window_side(), g + 2 * h);
      std::vector<int> seen(static_cast<std::size_t>(g) * g, 0);
      for (std::uint32_t b = 0; b < l.border_count(); ++b) {
        std::uint32_t x, y;
        l.border_cell(b, &x, &y);
        ASSERT_LT(x, g);
        ASSERT_LT(y, g);
        ++seen[static_cast<std::size_t>(y) * g + x];
      }
      for (std::uint32_t y = 0; y < g; ++y)
        for (std::uint32_t x = 0; x < g; ++x) {
          const bool band = x < h || y < h || x + h >= g || y + h >= g;
          EXPECT_EQ(seen[static_cast<std::size_t>(y) * g + x], band ? 1 : 0) << "g " << g << " halo " << h << " cell " << x << "," << y;
        }
      if (h == 1) {
        EXPECT_EQ(l.border_count(), 4 * g - 4);
      }
    }
}

// Knight's moves (--connectivity 16): (g+4)^2 windows and activations from the two-cell border band,
// against the 16-neighbour oracle, on tiles down to 2 cells (a knight's move then crosses a whole
// tile), nodata holes, several sources, max cost, cell and map step lengths.
TEST(ResidentSsspCpu, KnightRandomRastersMatchReference) {
  std::uint64_t multi_round = 0, resolved = 0;
  for (std::uint64_t seed = 1; seed <= 160; ++seed) {
    std::mt19937_64 rng(seed * 6364136223846793005ull);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    ResidentCase c;
    const std::uint64_t dims[] = {1, 2, 3, 5, 7, 9, 13, 17, 24, 40};
    c.options.width = dims[rng() % 10];
    c.options.height = dims[rng() % 10];
    const std::uint32_t sides[] = {2, 3, 4, 5, 8};
    c.options.g = sides[seed % 5];
    c.options.connectivity = Connectivity::Sixteen;
    c.options.params.model = seed % 3 == 0 ? WeightModel::Friction : seed % 3 == 1 ? WeightModel::Geometric : WeightModel::Unit;
    if (seed % 4 == 0) c.options.params.model = WeightModel::Friction;
    c.options.params.scale = rng() % 2 ? 100.0 : 1.0;
    if (seed % 7 == 3) {  // --distance map on 30 x 20 cells
      c.options.params.steps.ew = 30;
      c.options.params.steps.ns = 20;
      c.options.params.steps.diag = std::sqrt(1300.0);
      c.options.params.steps.min_length = 20;
      c.options.params.steps.max_length = std::sqrt(1300.0);
    }
    const std::uint64_t batches[] = {1, 2, 5, 64};
    c.options.batch_tiles = batches[rng() % 4];
    const std::uint64_t rounds[] = {1, 3, 16, 100000};
    c.options.round_tiles = rounds[rng() % 4];
    c.threads = 1 + static_cast<unsigned>(rng() % 2);
    const double holes = seed % 4 == 0 ? 0.0 : seed % 4 == 1 ? 0.1 : seed % 4 == 2 ? 0.35 : 0.05;
    const std::uint64_t w = c.options.width, h = c.options.height;
    c.values.resize(w * h);
    for (double& v : c.values) {
      v = unit(rng) < holes ? kNaN : 0.5 + unit(rng) * 20.0;
      if (c.options.params.scale == 1.0 && v == v) v = std::floor(v);
    }
    std::vector<std::uint64_t> valid;
    for (std::uint64_t i = 0; i < c.values.size(); ++i)
      if (c.values[i] == c.values[i]) valid.push_back(i);
    if (valid.empty()) continue;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) c.sources.push_back(valid[rng() % valid.size()]);
    if (rng() % 5 == 0) c.options.max_cost = static_cast<PathLength>(unit(rng) * 40 * c.options.params.scale);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + std::to_string(w) + "x" + std::to_string(h) +
                 " g=" + std::to_string(c.options.g) + " " + to_string(c.options.params.model) + " batch " +
                 std::to_string(c.options.batch_tiles) + " round " + std::to_string(c.options.round_tiles));
    ResidentSsspStats stats;
    const std::vector<PathLength> dist = solve_resident_cpu(c, &stats);
    ASSERT_FALSE(stats.overflow);
    testing::SsspReferenceProblem p =
        testing::reference_problem(w, h, c.values.data(), c.options.params, Connectivity::Sixteen);
    p.max_cost = c.options.max_cost;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> seeds;
    for (std::uint64_t cell : c.sources) seeds.push_back({cell, 0});
    testing::set_reference_sources(p, seeds);
    ASSERT_TRUE(testing::sssp_reference(p));
    for (std::uint64_t i = 0; i < dist.size(); ++i) ASSERT_EQ(dist[i], p.dist[i]) << "cell " << i % w << "," << i / w;
    if (stats.rounds > 2) ++multi_round;
    resolved += stats.solves - stats.tiles_solved;
  }
  EXPECT_GT(multi_round, 60u);
  EXPECT_GT(resolved, 30u);
}

// Distances do not depend on the schedule: every round width, group size and thread count gives
// the same distances on a larger terrain-like raster.
TEST(ResidentSsspCpu, ScheduleDoesNotChangeDistances) {
  std::mt19937_64 rng(99);
  ResidentCase base;
  base.options.width = 203;
  base.options.height = 150;
  base.options.params.model = WeightModel::Friction;
  base.options.params.scale = 1000.0;
  base.values = testing::random_raster(rng, 203, 150, 0, 0.03);
  testing::make_costs(base.values);
  base.sources = {0, 150 * 203 / 2 + 100, 203 * 150 - 1};
  for (std::uint64_t cell : base.sources) base.values[cell] = 1.0;
  std::vector<PathLength> first;
  for (std::uint32_t g : {4u, 16u, 64u})
    for (std::uint64_t round : {1ull, 7ull, 1000000ull})
      for (unsigned threads : {1u, 2u}) {
        ResidentCase c = base;
        c.options.g = g;
        c.options.round_tiles = round;
        c.options.batch_tiles = 5;
        c.threads = threads;
        ResidentSsspStats stats;
        const auto dist = solve_resident_cpu(c, &stats);
        if (first.empty()) first = dist;
        ASSERT_EQ(dist, first) << "g " << g << " round " << round << " threads " << threads;
      }
}

// Two cost rasters cell for cell: nodata (NaN) at the same cells, the same values elsewhere.
void expect_same_costs(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool nan_a = a[i] != a[i], nan_b = b[i] != b[i];
    ASSERT_EQ(nan_a, nan_b) << "cell " << i;
    if (!nan_a) {
      ASSERT_EQ(a[i], b[i]) << "cell " << i;
    }
  }
}

// The cost raster of run_sssp of `o` on the CPU (2 threads, 1 GiB), which ran the exchange `o` asks
// for and reached over 1000 cells.
std::vector<double> cpu_costs(const SsspOptions& o) {
  RunSettings o_run;
  o_run.device = DeviceRequest::Cpu;
  o_run.threads = 2;
  MemoryBudget budget(1ull << 30);
  const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  EXPECT_EQ(r.exchange, o.exchange);
  EXPECT_GT(r.reached_cells, 1000u);
  return testing::read_raster_values(o.output);
}

// The pipeline: --exchange resident (CPU twin) writes the same cost raster as streamed, on shipped DEMs.
TEST(ResidentSsspPipeline, ShippedDemsMatchStreamed) {
  testing::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> dems = {
      {"pysheds_dem.tif", "180,180"}, {"N44W072.hgt", "600,600"}, {"Mandakini.bil", "300,300"}};
  int k = 0;
  for (const auto& [name, source] : dems) {
    SCOPED_TRACE(name);
    std::vector<double> costs[2];
    for (int resident = 0; resident < 2; ++resident) {
      SsspOptions o;
      o.input = std::string(TERRAZO_DATASETS) + "/real/" + name;
      o.weight = WeightModel::AbsDiff;
      o.sources = {parse_source_point(source)};
      o.output = dir.file("cost" + std::to_string(k++) + ".tif");
      o.exchange = resident ? "resident" : "streamed";
      o.resident_tile = resident ? 32 : 64;
      costs[resident] = cpu_costs(o);
    }
    expect_same_costs(costs[0], costs[1]);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Knight's moves through the pipeline: --exchange resident (CPU twin, tiny and larger resident
// tiles) writes the same cost raster as streamed, with nodata holes, several sources and --max-cost.
TEST(ResidentSsspPipeline, KnightMatchesStreamed) {
  testing::TempDir dir;
  std::mt19937_64 rng(16);
  const std::uint64_t w = 157, h = 93;
  std::vector<double> values = testing::random_raster(rng, w, h, 0, 0.04);
  testing::make_costs(values);
  for (double& v : values) v /= 100.0;  // 0..10 per cell
  for (const std::uint64_t cell : {4 * w + 3, 80 * w + 120, 45 * w + 60}) values[cell] = 1.0;  // the sources
  const std::string in = dir.file("friction.tif");
  testing::write_raster_values(in, w, h, values, CellType::Float64, -9999);
  int k = 0;
  for (const double max_cost : {-1.0, 150.0}) {
    std::vector<double> costs[3];
    for (int run = 0; run < 3; ++run) {  // streamed, resident g = 8, resident g = 32
      SsspOptions o;
      o.input = in;
      o.weight = WeightModel::Friction;
      o.connectivity = Connectivity::Sixteen;
      o.sources = {parse_source_point("3,4"), parse_source_point("120,80"), parse_source_point("60,45")};
      o.max_cost = max_cost;
      o.output = dir.file("cost" + std::to_string(k++) + ".tif");
      o.exchange = run ? "resident" : "streamed";
      o.resident_tile = run == 1 ? 8 : 32;
      o.tile = 32;
      costs[run] = cpu_costs(o);
    }
    SCOPED_TRACE("max cost " + std::to_string(max_cost));
    expect_same_costs(costs[0], costs[1]);
    expect_same_costs(costs[0], costs[2]);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// On a GPU: --device cuda with the resident exchange (outputs read from the device) against the
// CPU's streamed exchange, on shipped DEMs and a generated raster with nodata holes. Skips without a GPU.
TEST(ResidentSsspPipeline, GpuMatchesCpu) {
  if (!cuda_device().available) GTEST_SKIP() << "no GPU: " << cuda_device().reason;
  testing::TempDir dir;
  const std::string generated = dir.file("g.tzs");
  {
    GenerateOptions g;
    RunSettings g_run;
    g.terrain.width = 1500;
    g.terrain.height = 1100;
    g.terrain.seed = 5;
    g.terrain.nodata_holes = 0.02;
    g.output = generated;
    MemoryBudget budget(1ull << 30);
    terrazo::testing::run_with(run_generate, g, g_run, budget, Progress::silent());
  }
  const std::vector<std::string> inputs = {std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif",
                                           std::string(TERRAZO_DATASETS) + "/real/N44W072.hgt", generated};
  int k = 0;
  for (const std::string& input : inputs) {
    SCOPED_TRACE(input);
    RasterInfo info;
    const std::vector<double> values = testing::read_raster_values(input, &info);
    auto valid_near = [&](std::uint64_t x, std::uint64_t y) {
      for (std::uint64_t k = 0; k < info.width * info.height; ++k) {
        const std::uint64_t i = (y * info.width + x + k) % (info.width * info.height);
        if (values[i] == values[i]) return parse_source_point(std::to_string(i % info.width) + "," + std::to_string(i / info.width));
      }
      throw Error("no valid cell");
    };
    std::vector<double> costs[2];
    for (int gpu = 0; gpu < 2; ++gpu) {
      SsspOptions o;
      RunSettings o_run;
      o.input = input;
      o.sources = {valid_near(300, 300), valid_near(10, 20)};
      o.output = dir.file("cost" + std::to_string(k++) + ".tif");
      o_run.device = gpu ? DeviceRequest::Cuda : DeviceRequest::Cpu;
      o.exchange = gpu ? "resident" : "streamed";
      o.resident_tile = gpu && k % 2 ? 32 : 64;
      MemoryBudget budget(1ull << 30);
      const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
      EXPECT_EQ(r.exchange, o.exchange);
      costs[gpu] = testing::read_raster_values(o.output);
    }
    expect_same_costs(costs[0], costs[1]);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ResidentSsspPipeline, RefusesLabelsAndBadValues) {
  testing::TempDir dir;
  SsspOptions o = testing::sssp_options(std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif",
                                        {parse_source_point("180,180")}, dir.file("c.tif"));
  RunSettings o_run;
  o.exchange = "resident";
  o.backlink = dir.file("b.tif");
  MemoryBudget budget(1ull << 30);
  EXPECT_THROW(terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()), UsageError);
  o.backlink.clear();
  o.exchange = "sideways";
  EXPECT_THROW(terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()), UsageError);
  o.exchange = "resident";
  o.resident_tile = 4;
  EXPECT_THROW(terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()), UsageError);
}

// The paged solver's pieces that run on the host (its kernels run on the GPU machine:
// tests/gpu/test_resident_sssp_gpu.cpp). TilePager: every group resident after admit(), a group's
// tiles never evicted for each other, dirty victims copied back first, every eviction unmapped.
TEST(TilePager, GroupsComeInAndDirtyVictimsGoBackFirst) {
  std::mt19937_64 rng(0x9a9e);
  for (int k = 0; k < 50; ++k) {
    const std::uint64_t tiles = 1 + rng() % 400;
    const auto slots = static_cast<std::uint32_t>(1 + rng() % 40);
    TilePager pager(tiles, slots);
    std::vector<std::uint32_t> slot_of(tiles, kNoSlot);  // the device's table, as the moves update it
    std::vector<std::uint8_t> dirty(tiles, 0);
    TilePager::Moves moves;
    for (int round = 0; round < 60; ++round) {
      std::vector<std::uint64_t> group;
      const std::uint64_t count = 1 + rng() % slots;
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t tile = rng() % tiles;
        if (std::find(group.begin(), group.end(), tile) == group.end()) group.push_back(tile);
      }
      pager.admit(group.data(), group.size(), &moves);
      for (const auto& m : moves.out) {
        ASSERT_EQ(slot_of[m.tile], m.slot);
        ASSERT_TRUE(dirty[m.tile]) << "a clean tile copied back";
        dirty[m.tile] = 0;
      }
      for (const auto& m : moves.map) {
        if (m.slot == kNoSlot) {
          ASSERT_FALSE(dirty[m.tile]) << "a dirty tile evicted without its copy back";
        }
        slot_of[m.tile] = m.slot;
      }
      std::vector<std::uint32_t> used;
      for (std::uint64_t tile : group) {
        ASSERT_NE(slot_of[tile], kNoSlot);
        ASSERT_EQ(slot_of[tile], pager.slot_of(tile));
        used.push_back(slot_of[tile]);
      }
      std::sort(used.begin(), used.end());
      ASSERT_TRUE(std::adjacent_find(used.begin(), used.end()) == used.end()) << "two tiles of a group in one slot";
      for (std::uint64_t tile : group)
        if (rng() % 2) {
          pager.mark_dirty(tile);
          dirty[tile] = 1;
        }
    }
    std::vector<TilePager::Move> out;
    pager.take_dirty(&out);
    for (const auto& m : out) dirty[m.tile] = 0;
    EXPECT_TRUE(std::none_of(dirty.begin(), dirty.end(), [](std::uint8_t d) { return d != 0; }));
  }
}

// band_index is border_cell's inverse, and PagedCells reads what ResidentCells reads for every
// window cell and activation, whichever tiles are in slots (the solved tile always is).
TEST(PagedCells, ReadTheResidentCellsWhicheverTilesAreIn) {
  std::mt19937_64 rng(0xce115);
  for (int k = 0; k < 40; ++k) {
    ResidentSsspOptions o;
    o.width = 1 + rng() % 70;
    o.height = 1 + rng() % 70;
    o.g = static_cast<std::uint32_t>(2 + rng() % 12);
    o.connectivity = k % 3 == 0 ? Connectivity::Sixteen : k % 3 == 1 ? Connectivity::Eight : Connectivity::Four;
    o.params.model = WeightModel::AbsDiff;
    const ResidentLayout l(o);
    for (std::uint32_t b = 0; b < l.border_count(); ++b) {
      std::uint32_t lx, ly;
      l.border_cell(b, &lx, &ly);
      ASSERT_EQ(l.band_index(lx, ly), b) << "g " << o.g << " halo " << l.halo;
    }
    const std::uint64_t cells = l.tiles() * l.tile_cells();
    std::vector<double> values(cells);
    std::vector<PathLength> dist(cells);
    for (std::uint64_t i = 0; i < cells; ++i) {
      values[i] = rng() % 9 == 0 ? kNaN : static_cast<double>(rng() % 50);
      dist[i] = rng() % 3 == 0 ? kUnreached : rng() % 100000;
    }
    const ResidentCells resident{l, values.data(), dist.data()};
    // Random tiles in slots (slot i holds in_slot[i]), every band in the rings.
    std::vector<std::uint32_t> slot_of(l.tiles(), kNoSlot);
    std::vector<std::uint64_t> in_slot;
    for (std::uint64_t t = 0; t < l.tiles(); ++t)
      if (rng() % 3 == 0) {
        slot_of[t] = static_cast<std::uint32_t>(in_slot.size());
        in_slot.push_back(t);
      }
    const std::uint64_t tile = rng() % l.tiles();
    if (slot_of[tile] == kNoSlot) {
      slot_of[tile] = static_cast<std::uint32_t>(in_slot.size());
      in_slot.push_back(tile);
    }
    std::vector<double> slot_values(in_slot.size() * l.tile_cells()), ring_values(l.tiles() * l.border_count());
    std::vector<PathLength> slot_dist(slot_values.size()), ring_dist(ring_values.size());
    for (std::uint64_t s = 0; s < in_slot.size(); ++s)
      for (std::uint64_t c = 0; c < l.tile_cells(); ++c) {
        slot_values[s * l.tile_cells() + c] = values[in_slot[s] * l.tile_cells() + c];
        slot_dist[s * l.tile_cells() + c] = dist[in_slot[s] * l.tile_cells() + c];
      }
    for (std::uint64_t t = 0; t < l.tiles(); ++t)
      for (std::uint32_t b = 0; b < l.border_count(); ++b) {
        std::uint32_t lx, ly;
        l.border_cell(b, &lx, &ly);
        ring_values[t * l.border_count() + b] = values[t * l.tile_cells() + ly * l.g + lx];
        ring_dist[t * l.border_count() + b] = dist[t * l.tile_cells() + ly * l.g + lx];
      }
    const PagedCells paged{l, slot_of.data(), slot_values.data(), slot_dist.data(), ring_values.data(), ring_dist.data()};
    const std::uint32_t s = l.window_side();
    for (std::uint32_t i = 0; i < s * s; ++i) {
      double rv, pv;
      PathLength rd, pd;
      resident_window_cell(resident, tile, i, &rv, &rd);
      resident_window_cell(paged, tile, i, &pv, &pd);
      ASSERT_EQ(rd, pd) << "window cell " << i;
      ASSERT_TRUE(rv == pv || (rv != rv && pv != pv)) << "window cell " << i;
    }
    const ResidentEdges edges = resident_edges(o.params, o.connectivity, o.max_cost);
    const int directions = direction_count(o.connectivity);
    for (std::uint32_t b = 0; b < l.border_count(); ++b) {
      std::uint32_t lx, ly;
      l.border_cell(b, &lx, &ly);
      for (int start = 0; start < directions; ++start) {
        int rdir = -1, pdir = -1;
        PathLength rc = 0, pc = 0;
        bool overflow = false;
        const std::uint64_t rn = resident_improved_neighbour(resident, tile, lx, ly, start, &rdir, edges, &rc, &overflow);
        const std::uint64_t pn = resident_improved_neighbour(paged, tile, lx, ly, start, &pdir, edges, &pc, &overflow);
        ASSERT_EQ(rn, pn);
        if (rn != ~std::uint64_t{0}) {
          ASSERT_EQ(rdir, pdir);
          ASSERT_EQ(rc, pc);
        }
      }
    }
    // A store through PagedCells keeps the slot and the ring equal.
    for (std::uint32_t c = 0; c < l.tile_cells(); ++c) paged.store(tile, c, 7 + c);
    for (std::uint32_t b = 0; b < l.border_count(); ++b) {
      std::uint32_t lx, ly;
      l.border_cell(b, &lx, &ly);
      ASSERT_EQ(ring_dist[tile * l.border_count() + b], 7 + ly * l.g + lx);
    }
  }
}

}  // namespace
}  // namespace terrazo
