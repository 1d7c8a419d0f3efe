// tests/test_mst_pipeline.cpp: run_mst (engine/commands/mst.h) against the in-memory Kruskal
// reference (tests/support/mst_reference.h), edge for edge.
//
//  - hundreds of small random rasters written as tile stores: sizes 1x1, 1xN, Nx1, odd; tiles 16/32
//    not dividing W or H; continuous, tied, flat and negative values; nodata holes; 4 and 8
//    connectivity; all three weight models; some with a tiny record buffer forcing external runs;
//  - every shipped DEM in datasets/real through the GDAL import, the edge raster read back;
//  - properties: edges = vertices - components, no cycle, cut and cycle property spot checks;
//  - bad inputs: nodata everywhere, one cell, overflow at a huge --scale, friction on negative costs;
//  - the level-synchronous merge (--merge cpu-levels, engine/mst/phase2_merge_levels.h) on the same kinds
//    of rasters plus tile-aligned nodata (absent tiles) and flat rasters, under tiny budgets and
//    batch slots that force batches of one graph and graphs solved alone: the reference's edges,
//    and the post-order merge's edge raster and totals, exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <sys/wait.h>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "io/store/external_sorter.h"
#include "engine/commands/mst.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/tile_geometry.h"
#include "tests/support/mst_reference.h"
#include "tests/support/sssp_reference.h"  // read_raster_values
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Raster {
  std::uint64_t width = 0, height = 0;
  std::vector<double> values;  // NaN = nodata
  CellType type = CellType::Float64;
};

RasterInfo info_of(const Raster& r) {
  RasterInfo info;
  info.width = r.width;
  info.height = r.height;
  info.type = r.type;
  info.has_nodata = true;
  info.nodata = -99999.0;
  info.has_stats = true;
  info.min = std::numeric_limits<double>::infinity();
  info.max = -std::numeric_limits<double>::infinity();
  for (double v : r.values) {
    if (v != v) continue;
    info.min = std::min(info.min, v);
    info.max = std::max(info.max, v);
    ++info.valid_cells;
  }
  if (info.valid_cells == 0) info.min = info.max = 0.0;
  return info;
}

void write_store(const Raster& r, std::uint32_t tile, const std::string& path) {
  const RasterInfo info = info_of(r);
  TileStoreWriter writer(path, info, tile);
  const TileGrid& grid = writer.grid();
  std::vector<double> cells(static_cast<std::size_t>(tile) * tile);
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty) {
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
      for (std::uint32_t ly = 0; ly < tile; ++ly)
        for (std::uint32_t lx = 0; lx < tile; ++lx) {
          const std::uint64_t x = std::uint64_t{tx} * tile + lx, y = std::uint64_t{ty} * tile + ly;
          cells[ly * tile + lx] = x < r.width && y < r.height ? r.values[y * r.width + x] : kNaN;
        }
      writer.write_tile(tx, ty, cells.data());
    }
  }
  writer.set_stats(info.min, info.max, info.valid_cells);
  writer.finish();
}

// The edge list as an edge raster (255 where the input is nodata).
std::vector<std::uint8_t> read_edge_list(const std::string& path, const Raster& r, std::uint64_t* weight_sum) {
  std::vector<std::uint8_t> bits(r.values.size(), 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (r.values[i] != r.values[i]) bits[i] = 255;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  unsigned char record[20];
  *weight_sum = 0;
  while (in.read(reinterpret_cast<char*>(record), 20)) {
    std::uint64_t a, b;
    std::uint32_t w;
    std::memcpy(&a, record, 8);
    std::memcpy(&b, record + 8, 8);
    std::memcpy(&w, record + 16, 4);
    EXPECT_LT(a, b);
    const std::int64_t dx = static_cast<std::int64_t>(b % r.width) - static_cast<std::int64_t>(a % r.width);
    const std::int64_t dy = static_cast<std::int64_t>(b / r.width) - static_cast<std::int64_t>(a / r.width);
    int dir = -1;
    for (int d = 0; d < 4; ++d)
      if (kDirDx[d] == dx && kDirDy[d] == dy) dir = d;
    EXPECT_GE(dir, 0) << a << " " << b;
    if (dir < 0) continue;
    EXPECT_FALSE(bits[a] & (1u << dir)) << "edge listed twice";
    bits[a] |= static_cast<std::uint8_t>(1u << dir);
    *weight_sum += w;
  }
  return bits;
}

std::vector<std::uint8_t> read_edge_raster(const std::string& path, std::uint64_t width, std::uint64_t height) {
  auto reader = RasterReader::open(path);
  EXPECT_EQ(reader->info().width, width);
  EXPECT_EQ(reader->info().height, height);
  EXPECT_EQ(reader->info().type, CellType::UInt8);
  std::vector<double> cells(width * height);
  reader->read_window(0, 0, static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), cells.data());
  std::vector<std::uint8_t> bits(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) bits[i] = cells[i] != cells[i] ? 255 : static_cast<std::uint8_t>(cells[i]);
  return bits;
}

// First cell where two edge rasters differ, described; "" when identical.
std::string first_difference(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                             std::uint64_t width) {
  if (got.size() != want.size()) return "sizes differ";
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      return "cell (" + std::to_string(i % width) + ", " + std::to_string(i / width) + "): got " +
             std::to_string(got[i]) + ", reference " + std::to_string(want[i]);
    }
  }
  return "";
}

Raster random_raster(std::mt19937_64& rng, std::uint64_t width, std::uint64_t height, int flavour, double holes) {
  Raster r;
  r.width = width;
  r.height = height;
  r.values.resize(width * height);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double constant = std::floor(u(rng) * 50.0);
  // Blob holes: a few discs of nodata, so components really split.
  std::vector<std::tuple<double, double, double>> discs;
  if (holes > 0) {
    for (int i = 0; i < 1 + static_cast<int>(rng() % 6); ++i)
      discs.emplace_back(u(rng) * width, u(rng) * height, 1.0 + u(rng) * std::max<double>(2.0, std::min(width, height) / 4.0));
  }
  for (std::uint64_t y = 0; y < height; ++y) {
    for (std::uint64_t x = 0; x < width; ++x) {
      double v;
      switch (flavour % 5) {
        case 0: v = u(rng) * 1000.0; break;
        case 1: v = std::floor(u(rng) * 3.0); break;
        case 2: v = constant; break;
        case 3: v = std::floor(u(rng) * 200.0) - 120.0; break;
        default: v = std::sin(x * 0.3) * 40.0 + std::cos(y * 0.2) * 30.0 + 100.0; break;
      }
      if (holes > 0 && u(rng) < holes * 0.3) v = kNaN;
      for (auto [cx, cy, radius] : discs)
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < radius * radius) v = kNaN;
      r.values[y * width + x] = v;
    }
  }
  return r;
}

struct Case {
  std::uint64_t seed = 0;
  Raster raster;
  std::uint32_t tile;
  WeightModel model;
  Connectivity connectivity;
  bool tiny_records;
};

Case make_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c;
  c.seed = seed;
  std::uint64_t w, h;
  switch (seed % 6) {
    case 0: w = 1; h = 1 + rng() % 90; break;       // 1 x N
    case 1: w = 1 + rng() % 90; h = 1; break;       // N x 1
    case 2: w = 1 + rng() % 3; h = 1 + rng() % 3; break;  // tiny, 1x1 included
    default: w = 2 + rng() % 75; h = 2 + rng() % 75; break;  // odd sizes, several tiles
  }
  if (seed % 50 == 7) {  // a few larger ones with many merge levels
    w = 150 + rng() % 60;
    h = 130 + rng() % 60;
  }
  const double holes = rng() % 3 == 0 ? 0.0 : (rng() % 2 ? 0.2 : 0.6);
  c.raster = random_raster(rng, w, h, static_cast<int>(rng() % 5), holes);
  c.tile = rng() % 2 ? 16 : 32;
  c.model = static_cast<WeightModel>(rng() % 3);
  if (c.model == WeightModel::Friction)
    for (double& v : c.raster.values)
      if (v == v) v = std::fabs(v);
  c.connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
  c.tiny_records = rng() % 4 == 0;
  return c;
}

struct PipelineRun {
  MstResult result;
  std::vector<std::uint8_t> bits;  // from the edge list
  std::uint64_t list_weight = 0;
};

PipelineRun run_on_store(const Case& c, testing::TempDir& dir, std::uint64_t memory = 256ull << 20,
                         MstMergeMode merge = MstMergeMode::Auto, std::uint64_t merge_batch_edges = 0) {
  const std::string store = dir.file("in.tzs");
  if (!std::filesystem::exists(store)) write_store(c.raster, c.tile, store);
  MstOptions options;
  RunSettings options_run;
  options.merge_mode = merge;
  options.merge_batch_edges = merge_batch_edges;
  options.input = store;
  options.edge_list = dir.file("edges.bin");
  options.weight = c.model;
  options.connectivity = c.connectivity;
  options_run.device = DeviceRequest::Cpu;
  options_run.threads = 1 + static_cast<unsigned>(c.seed % 4);  // 1..4: the merge's split level varies with it
  options_run.tmpdir = dir.path();
  if (c.tiny_records) options.record_buffer_bytes = 1;  // raised to the sorter's minimum
  MemoryBudget budget(memory);
  PipelineRun run;
  run.result = terrazo::testing::run_with(run_mst, options, options_run, budget, Progress::silent());
  run.bits = read_edge_list(options.edge_list, c.raster, &run.list_weight);
  return run;
}

TEST(MstPipeline, RandomRastersMatchReference) {
  int spilled = 0, multi_level = 0;
  for (std::uint64_t seed = 1; seed <= 240; ++seed) {
    const Case c = make_case(seed);
    testing::TempDir dir;
    const PipelineRun run = run_on_store(c, dir);
    const RasterInfo info = info_of(c.raster);
    const WeightParams params = mst_weight_params(c.model, 0.0, info, c.connectivity);
    const auto ref = testing::reference_mst(c.raster.values, c.raster.width, c.raster.height, params, c.connectivity);
    ASSERT_FALSE(ref.overflow);
    const std::string where = "seed " + std::to_string(seed) + ": " + std::to_string(c.raster.width) + "x" +
                              std::to_string(c.raster.height) + " tile " + std::to_string(c.tile) + " " +
                              to_string(c.model) + " " + to_string(c.connectivity);
    ASSERT_EQ(first_difference(run.bits, ref.bits, c.raster.width), "") << where;
    EXPECT_EQ(run.result.edges, ref.edges) << where;
    EXPECT_EQ(run.result.vertices, ref.vertices) << where;
    EXPECT_EQ(run.result.components, ref.components) << where;
    EXPECT_EQ(run.result.total_weight, ref.total_weight) << where;
    EXPECT_EQ(run.list_weight, ref.total_weight) << where;
    if (c.tiny_records && run.result.expansion_records > ExternalSorter::kMinimumBufferBytes / sizeof(SortRecord)) {
      EXPECT_GT(run.result.expansion_record_runs, 0u) << where;
    }
    if (run.result.expansion_record_runs > 0) ++spilled;
    if (run.result.merge_levels >= 3) ++multi_level;
  }
  // The cases must really exercise the external records and deep merges.
  EXPECT_GE(spilled, 10);
  EXPECT_GE(multi_level, 3);
}

// ---- the level-synchronous merge ----------------------------------------------------------------

// Whole tiles of nodata (absent tiles in the store): about a third of the tiles, chosen by `rng`.
void blank_tiles(std::mt19937_64& rng, std::uint32_t tile, Raster* r) {
  const std::uint64_t tiles_x = (r->width + tile - 1) / tile, tiles_y = (r->height + tile - 1) / tile;
  for (std::uint64_t ty = 0; ty < tiles_y; ++ty)
    for (std::uint64_t tx = 0; tx < tiles_x; ++tx) {
      if (rng() % 3 != 0) continue;
      for (std::uint64_t y = ty * tile; y < std::min<std::uint64_t>(r->height, (ty + 1) * tile); ++y)
        for (std::uint64_t x = tx * tile; x < std::min<std::uint64_t>(r->width, (tx + 1) * tile); ++x)
          r->values[y * r->width + x] = kNaN;
    }
}

// The level merge's cases: make_case's (1xN, Nx1, tiny, odd, continuous/tied/flat/negative values,
// holes, tiles 16/32, 4/8, all models), with every fourth case given tile-aligned nodata, every
// fifth a large flat raster (massive ties, deep merges), and one in ten all nodata.
Case make_level_case(std::uint64_t seed) {
  Case c = make_case(seed);
  std::mt19937_64 rng(seed * 7919 + 3);
  if (seed % 5 == 3) {
    c.raster = random_raster(rng, 90 + rng() % 80, 70 + rng() % 80, 2, rng() % 2 ? 0.0 : 0.2);
    c.tile = 16;
  }
  if (seed % 4 == 1) blank_tiles(rng, c.tile, &c.raster);
  if (seed % 10 == 6) std::fill(c.raster.values.begin(), c.raster.values.end(), kNaN);
  if (c.model == WeightModel::Friction)
    for (double& v : c.raster.values)
      if (v == v) v = std::fabs(v);
  return c;
}

TEST(MstPipeline, LevelMergeMatchesReferenceAndPostOrder) {
  std::uint64_t oversized = 0, batches = 0, graphs = 0, deep = 0, tiny_budget = 0, tiny_budget_oversized = 0,
                tiny_budget_batches_of_one = 0, absent_tile_cases = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const Case c = make_level_case(seed);
    testing::TempDir dir;
    // Budgets and slots: the default; a tiny budget (slot sized from what is left); slots of 1 edge
    // (every batch one graph, every larger graph alone); slots of 16 and 300 edges.
    std::uint64_t memory = 256ull << 20, slot = 0;
    switch (seed % 5) {
      case 0: memory = 5ull << 19; break;  // 2.5 MiB: two file buffers, the sorter, ~100-edge slots
      case 1: slot = 1; break;
      case 2: slot = 16; break;
      case 3: slot = 300; break;
      default: break;
    }
    const PipelineRun levels = run_on_store(c, dir, memory, MstMergeMode::CpuLevels, slot);
    const PipelineRun post = run_on_store(c, dir, 256ull << 20, MstMergeMode::CpuPostOrder);
    const RasterInfo info = info_of(c.raster);
    const WeightParams params = mst_weight_params(c.model, 0.0, info, c.connectivity);
    const auto ref = testing::reference_mst(c.raster.values, c.raster.width, c.raster.height, params, c.connectivity);
    ASSERT_FALSE(ref.overflow);
    const std::string where = "seed " + std::to_string(seed) + ": " + std::to_string(c.raster.width) + "x" +
                              std::to_string(c.raster.height) + " tile " + std::to_string(c.tile) + " " +
                              to_string(c.model) + " " + to_string(c.connectivity) + " memory " +
                              std::to_string(memory) + " slot " + std::to_string(slot);
    ASSERT_EQ(first_difference(levels.bits, ref.bits, c.raster.width), "") << where;
    ASSERT_EQ(levels.bits, post.bits) << where;
    EXPECT_EQ(levels.result.merge_mode, MstMergeMode::CpuLevels) << where;
    EXPECT_EQ(post.result.merge_mode, MstMergeMode::CpuPostOrder) << where;
    EXPECT_EQ(levels.result.edges, ref.edges) << where;
    EXPECT_EQ(levels.result.vertices, ref.vertices) << where;
    EXPECT_EQ(levels.result.components, ref.components) << where;
    EXPECT_EQ(levels.result.total_weight, ref.total_weight) << where;
    EXPECT_EQ(levels.list_weight, ref.total_weight) << where;
    // The same decisions: the same records, so the same totals and shape.
    EXPECT_EQ(levels.result.total_weight, post.result.total_weight) << where;
    EXPECT_EQ(levels.result.edges, post.result.edges) << where;
    EXPECT_EQ(levels.result.expansion_records, post.result.expansion_records) << where;
    EXPECT_EQ(levels.result.summary_edges, post.result.summary_edges) << where;
    EXPECT_EQ(levels.result.merge_levels, post.result.merge_levels) << where;
    EXPECT_LE(levels.result.merge_graphs, (std::uint64_t{1} << (2 * levels.result.merge_levels)) * 4 / 3 + 1) << where;
    EXPECT_EQ(levels.result.gpu_merge_kernel_seconds, 0.0) << where;
    if (slot == 1) {
      // Every graph sent to a solver has an edge, so a slot of one edge holds one graph: one-edge
      // graphs are batches of one, every other graph is solved alone.
      EXPECT_EQ(levels.result.merge_batches + levels.result.merge_oversized_graphs, levels.result.merge_graphs)
          << where;
    }
    // Batches holding exactly one graph, at least: each batch holds one graph or more, so x
    // batches of one among b batches of g graphs need x + 2 (b - x) <= g.
    const std::uint64_t batched_graphs = levels.result.merge_graphs - levels.result.merge_oversized_graphs;
    const std::uint64_t batches_of_one =
        2 * levels.result.merge_batches > batched_graphs ? 2 * levels.result.merge_batches - batched_graphs : 0;
    if (memory < (8ull << 20) && levels.result.merge_levels > 0) {
      // The slot is sized from the little that is left: a few hundred edges.
      EXPECT_LT(levels.result.merge_batch_edges, 2000u) << where;
      tiny_budget_oversized += levels.result.merge_oversized_graphs;
      tiny_budget_batches_of_one += batches_of_one;
      ++tiny_budget;
    }
    oversized += levels.result.merge_oversized_graphs;
    batches += levels.result.merge_batches;
    graphs += levels.result.merge_graphs;
    if (levels.result.merge_levels >= 3) ++deep;
    if (seed % 4 == 1 && c.raster.width > static_cast<std::uint64_t>(c.tile)) ++absent_tile_cases;
  }
  // The cases must exercise batching, solving alone and deep merges.
  EXPECT_GE(oversized, 50u);
  EXPECT_GT(graphs, batches + oversized);  // some batches hold many graphs
  EXPECT_GE(deep, 20u);
  EXPECT_GE(tiny_budget, 30u);
  EXPECT_GE(tiny_budget_oversized, 20u);
  EXPECT_GE(tiny_budget_batches_of_one, 20u);
  EXPECT_GE(absent_tile_cases, 20u);
}

// A raster with most tiles nodata (absent), one all nodata, 1x1, 1xN and Nx1 ones: the level merge
// under a 3 MiB budget (about the least the whole pipeline runs in at t = 16), against the reference.
TEST(MstPipeline, LevelMergeOnSparseAndDegenerateRasters) {
  std::mt19937_64 rng(17);
  std::vector<Raster> rasters;
  {
    Raster r = random_raster(rng, 250, 190, 0, 0.0);
    blank_tiles(rng, 16, &r);
    blank_tiles(rng, 16, &r);
    rasters.push_back(r);
  }
  {
    Raster r;
    r.width = 70;
    r.height = 50;
    r.values.assign(r.width * r.height, kNaN);
    rasters.push_back(r);
  }
  rasters.push_back(random_raster(rng, 1, 1, 0, 0.0));
  rasters.push_back(random_raster(rng, 1, 200, 1, 0.2));
  rasters.push_back(random_raster(rng, 200, 1, 2, 0.0));
  for (const Raster& r : rasters) {
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
      Case c;
      c.raster = r;
      c.tile = 16;
      c.model = WeightModel::Max;
      c.connectivity = connectivity;
      c.tiny_records = false;
      testing::TempDir dir;
      const PipelineRun levels = run_on_store(c, dir, 3ull << 20, MstMergeMode::CpuLevels);
      const WeightParams params = mst_weight_params(c.model, 0.0, info_of(r), connectivity);
      const auto ref = testing::reference_mst(r.values, r.width, r.height, params, connectivity);
      const std::string where =
          std::to_string(r.width) + "x" + std::to_string(r.height) + " " + to_string(connectivity);
      EXPECT_EQ(first_difference(levels.bits, ref.bits, r.width), "") << where;
      EXPECT_EQ(levels.result.total_weight, ref.total_weight) << where;
      EXPECT_EQ(levels.result.components, ref.components) << where;
    }
  }
}

// Progress of the level merge: "mst: merge" from 0 to the number of merge steps, one update per
// step, in order; and the merge modes the pipeline reports and refuses.
TEST(MstPipeline, LevelMergeProgressAndModes) {
  std::mt19937_64 rng(23);
  Case c;
  c.raster = random_raster(rng, 150, 110, 0, 0.2);
  c.tile = 16;  // 10 x 7 tiles: levels of 5x4, 3x2, 2x1, 1x1 clusters = 20 + 6 + 2 + 1 = 29 merges
  c.model = WeightModel::AbsDiff;
  c.connectivity = Connectivity::Eight;
  testing::TempDir dir;
  write_store(c.raster, c.tile, dir.file("in.tzs"));
  std::vector<std::uint64_t> done;
  std::uint64_t total = 0;
  Progress progress([&](const ProgressEvent& e) {
    if (e.phase == "mst: merge") {
      done.push_back(e.done);
      total = e.total;
    }
    return true;
  });
  MstOptions options;
  RunSettings options_run;
  options.input = dir.file("in.tzs");
  options.edge_list = dir.file("edges.bin");
  options.weight = c.model;
  options_run.device = DeviceRequest::Cpu;
  options_run.tmpdir = dir.path();
  options.merge_mode = MstMergeMode::CpuLevels;
  options.merge_batch_edges = 100;
  MemoryBudget budget(64ull << 20);
  const MstResult result = terrazo::testing::run_with(run_mst, options, options_run, budget, progress);
  EXPECT_EQ(result.merge_mode, MstMergeMode::CpuLevels);
  EXPECT_EQ(total, 29u);
  ASSERT_EQ(done.size(), 31u);  // 0, one per merge step, and the closing update
  for (std::size_t i = 0; i + 1 < done.size(); ++i) EXPECT_EQ(done[i], i);
  EXPECT_EQ(done.back(), 29u);

  // Auto on the CPU is the post-order merge.
  options.merge_mode = MstMergeMode::Auto;
  MemoryBudget budget2(64ull << 20);
  EXPECT_EQ(terrazo::testing::run_with(run_mst, options, options_run, budget2, Progress::silent()).merge_mode, MstMergeMode::CpuPostOrder);

  // The --merge values.
  for (MstMergeMode mode :
       {MstMergeMode::Auto, MstMergeMode::CpuPostOrder, MstMergeMode::CpuLevels, MstMergeMode::CudaLevels})
    EXPECT_EQ(parse_merge_mode(to_string(mode)), mode);
  try {
    parse_merge_mode("gpu");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--merge"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'gpu'"), std::string::npos) << e.what();
  }

  // --merge cuda: an error naming it without a GPU; with one, the same tree as the reference.
  options.merge_mode = MstMergeMode::CudaLevels;
  MemoryBudget budget3(64ull << 20);
  if (!cuda_device().available) {
    try {
      terrazo::testing::run_with(run_mst, options, options_run, budget3, Progress::silent());
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--merge cuda"), std::string::npos) << e.what();
    }
  } else {
    const MstResult gpu = terrazo::testing::run_with(run_mst, options, options_run, budget3, Progress::silent());
    EXPECT_EQ(gpu.merge_mode, MstMergeMode::CudaLevels);
    EXPECT_EQ(gpu.total_weight, result.total_weight);
    EXPECT_EQ(gpu.edges, result.edges);
    EXPECT_EQ(gpu.expansion_records, result.expansion_records);
  }
}

// Union-find over cell ids, for the property checks.
struct Sets {
  explicit Sets(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), std::size_t{0}); }
  std::size_t find(std::size_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  bool join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent[a] = b;
    return true;
  }
  std::vector<std::size_t> parent;
};

using EdgeOrder = std::tuple<Weight, std::uint64_t, std::uint64_t>;  // the total order of docs/mst.md

TEST(MstPipeline, ForestPropertiesAndCutAndCycleSpotChecks) {
  std::mt19937_64 rng(99);
  Case c;
  c.seed = 99;
  c.raster = random_raster(rng, 123, 97, 1, 0.3);  // heavy ties and holes
  c.tile = 16;
  c.model = WeightModel::Max;
  c.connectivity = Connectivity::Eight;
  c.tiny_records = true;
  testing::TempDir dir;
  const PipelineRun run = run_on_store(c, dir);
  const Raster& r = c.raster;
  const WeightParams params = mst_weight_params(c.model, 0.0, info_of(r), c.connectivity);
  const std::uint64_t n = r.width * r.height;

  // Grid edges and tree edges.
  struct GridEdge {
    std::uint64_t a, b;
    int dir;
    EdgeOrder key;
    bool tree;
  };
  std::vector<GridEdge> grid_edges;
  std::vector<std::vector<std::pair<std::uint64_t, EdgeOrder>>> tree(n);
  Sets grid_sets(n), tree_sets(n);
  std::uint64_t tree_edges = 0, vertices = 0;
  for (std::uint64_t y = 0; y < r.height; ++y)
    for (std::uint64_t x = 0; x < r.width; ++x) {
      const std::uint64_t a = y * r.width + x;
      if (r.values[a] == r.values[a]) ++vertices;
      for (int dir = 0; dir < 4; ++dir) {
        if (!testing::reference_edge_exists(r.values, r.width, r.height, x, y, dir, c.connectivity)) continue;
        const std::uint64_t b = (y + kDirDy[dir]) * r.width + x + kDirDx[dir];
        bool overflow = false;
        const Weight w = edge_weight(params, r.values[a], r.values[b], is_diagonal(dir), &overflow);
        const bool in_tree = run.bits[a] != 255 && (run.bits[a] & (1u << dir));
        grid_edges.push_back(GridEdge{a, b, dir, EdgeOrder{w, a, b}, in_tree});
        grid_sets.join(a, b);
        if (in_tree) {
          ASSERT_TRUE(tree_sets.join(a, b)) << "the output has a cycle through " << a << "-" << b;
          tree[a].push_back({b, EdgeOrder{w, a, b}});
          tree[b].push_back({a, EdgeOrder{w, a, b}});
          ++tree_edges;
        }
      }
    }
  EXPECT_EQ(tree_edges, run.result.edges);
  EXPECT_EQ(vertices, run.result.vertices);
  EXPECT_EQ(run.result.edges, run.result.vertices - run.result.components);
  // Spanning: the forest connects exactly what the grid graph connects.
  for (const GridEdge& e : grid_edges) ASSERT_EQ(tree_sets.find(e.a), tree_sets.find(e.b));
  std::uint64_t components = 0;
  for (std::uint64_t v = 0; v < n; ++v)
    if (r.values[v] == r.values[v] && grid_sets.find(v) == v) ++components;
  EXPECT_EQ(components, run.result.components);

  // Cycle property: every non-tree edge is the maximum of the tree path between its ends.
  auto tree_path_max = [&](std::uint64_t from, std::uint64_t to) {
    std::vector<std::int64_t> previous(n, -1);
    std::vector<EdgeOrder> via(n);
    std::vector<std::uint64_t> queue = {from};
    previous[from] = static_cast<std::int64_t>(from);
    for (std::size_t i = 0; i < queue.size() && previous[to] < 0; ++i)
      for (auto [u, key] : tree[queue[i]])
        if (previous[u] < 0) {
          previous[u] = static_cast<std::int64_t>(queue[i]);
          via[u] = key;
          queue.push_back(u);
        }
    EdgeOrder best{0, 0, 0};
    for (std::uint64_t v = to; v != from; v = static_cast<std::uint64_t>(previous[v])) best = std::max(best, via[v]);
    return best;
  };
  int checked = 0;
  for (std::size_t i = 0; i < grid_edges.size() && checked < 60; i += 1 + rng() % 97) {
    const GridEdge& e = grid_edges[i];
    if (e.tree) continue;
    EXPECT_LT(tree_path_max(e.a, e.b), e.key) << "non-tree edge " << e.a << "-" << e.b << " is not a path maximum";
    ++checked;
  }
  EXPECT_GE(checked, 30);

  // Cut property: a tree edge is the minimum of the cut its removal makes.
  checked = 0;
  for (std::size_t i = 0; i < grid_edges.size() && checked < 25; i += 1 + rng() % 301) {
    const GridEdge& e = grid_edges[i];
    if (!e.tree) continue;
    std::vector<char> side(n, 0);
    std::vector<std::uint64_t> queue = {e.a};
    side[e.a] = 1;
    for (std::size_t q = 0; q < queue.size(); ++q)
      for (auto [u, key] : tree[queue[q]]) {
        if (side[u] || key == e.key) continue;
        side[u] = 1;
        queue.push_back(u);
      }
    ASSERT_FALSE(side[e.b]);
    for (const GridEdge& f : grid_edges) {
      if (side[f.a] != side[f.b]) {
        EXPECT_LE(e.key, f.key) << "tree edge " << e.a << "-" << e.b << " is not the cut minimum";
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

MstResult run_simple(const Raster& raster, testing::TempDir& dir, WeightModel model, double scale,
                     std::vector<std::uint8_t>* bits = nullptr) {
  write_store(raster, 16, dir.file("in.tzs"));
  MstOptions options;
  RunSettings options_run;
  options.input = dir.file("in.tzs");
  options.edge_list = dir.file("edges.bin");
  options.weight = model;
  options.scale = scale;
  options_run.device = DeviceRequest::Cpu;
  options_run.tmpdir = dir.path();
  MemoryBudget budget(64ull << 20);
  MstResult result = terrazo::testing::run_with(run_mst, options, options_run, budget, Progress::silent());
  if (bits) {
    std::uint64_t sum = 0;
    *bits = read_edge_list(options.edge_list, raster, &sum);
  }
  return result;
}

TEST(MstPipeline, NodataEverywhereGivesAnEmptyForest) {
  testing::TempDir dir;
  Raster r;
  r.width = 37;
  r.height = 21;
  r.values.assign(r.width * r.height, kNaN);
  std::vector<std::uint8_t> bits;
  const MstResult result = run_simple(r, dir, WeightModel::Max, 0.0, &bits);
  EXPECT_EQ(result.edges, 0u);
  EXPECT_EQ(result.vertices, 0u);
  EXPECT_EQ(result.components, 0u);
  EXPECT_EQ(result.total_weight, 0u);
  EXPECT_EQ(std::filesystem::file_size(dir.file("edges.bin")), 0u);
}

TEST(MstPipeline, OneCell) {
  testing::TempDir dir;
  Raster r;
  r.width = r.height = 1;
  r.values = {42.5};
  const MstResult result = run_simple(r, dir, WeightModel::Max, 0.0);
  EXPECT_EQ(result.edges, 0u);
  EXPECT_EQ(result.vertices, 1u);
  EXPECT_EQ(result.components, 1u);
}

TEST(MstPipeline, OverflowAtHugeScaleIsAClearError) {
  testing::TempDir dir;
  Raster r;
  r.width = 20;
  r.height = 10;
  r.values.assign(200, 1000.0);
  r.values[17] = 2000.0;
  try {
    run_simple(r, dir, WeightModel::Max, 1e9);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--scale"), std::string::npos) << e.what();
  }
  // The default scale for this float raster fits: largest power of 10 with 2000 x scale <= 2^31.
  const MstResult ok = run_simple(r, dir, WeightModel::Max, 0.0);
  EXPECT_EQ(ok.params.scale, 1e6);
  EXPECT_EQ(ok.edges, 199u);
}

TEST(MstPipeline, FrictionOnNegativeCostsIsAClearError) {
  testing::TempDir dir;
  Raster r;
  r.width = 4;
  r.height = 4;
  r.values.assign(16, 3.0);
  r.values[5] = -1.0;
  EXPECT_THROW(run_simple(r, dir, WeightModel::Friction, 0.0), Error);
}

TEST(MstPipeline, NegativeValuesUseAnOffsetAndTotalsAddItBack) {
  testing::TempDir dir;
  Raster r;
  r.width = 3;
  r.height = 1;
  r.type = CellType::Int32;
  r.values = {-5.0, -2.0, 4.0};
  // max model, offset -5: weights max(h) + 5 = 3 (cells 0-1) and 9 (cells 1-2); input units: -2 + 4 = 2.
  const MstResult result = run_simple(r, dir, WeightModel::Max, 0.0);
  EXPECT_EQ(result.params.offset, -5.0);
  EXPECT_EQ(result.params.scale, 1.0);
  EXPECT_EQ(result.total_weight, 12u);
  EXPECT_DOUBLE_EQ(result.total_weight_input_units, 2.0);
}

TEST(MstPipeline, BudgetTooSmallIsAClearError) {
  testing::TempDir dir;
  std::mt19937_64 rng(5);
  const Raster r = random_raster(rng, 40, 40, 0, 0.0);
  write_store(r, 32, dir.file("in.tzs"));
  MstOptions options;
  RunSettings options_run;
  options.input = dir.file("in.tzs");
  options.edge_list = dir.file("edges.bin");
  options_run.device = DeviceRequest::Cpu;
  options_run.tmpdir = dir.path();
  MemoryBudget budget(64ull << 10);
  EXPECT_THROW(terrazo::testing::run_with(run_mst, options, options_run, budget, Progress::silent()), Error);
}

// Every shipped DEM: the GDAL import, the edge raster written and read back, against the reference.
TEST(MstPipeline, RealDemsMatchReference) {
  std::vector<std::string> inputs;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TERRAZO_DATASETS) + "/real")) {
    const std::string path = entry.path().string();
    const std::string ext = entry.path().extension().string();
    if (ext == ".hdr" || ext == ".aux" || ext == ".xml" || ext == ".prj") continue;
    inputs.push_back(path);
  }
  std::sort(inputs.begin(), inputs.end());
  ASSERT_GE(inputs.size(), 9u);
  int file = 0, runs = 0;
  for (const std::string& input : inputs) {
    SCOPED_TRACE(input);
    auto reader = RasterReader::open(input);
    Raster r;
    r.width = reader->info().width;
    r.height = reader->info().height;
    r.type = reader->info().type;
    r.values.resize(r.width * r.height);
    reader->read_window(0, 0, static_cast<std::uint32_t>(r.width), static_cast<std::uint32_t>(r.height), r.values.data());
    reader.reset();
    ++file;
    // Every file with the defaults (max, 8-connected, post-order merge), and once more with absdiff
    // or friction (alternating; friction only on non-negative costs), 4 or 8 connectivity
    // (alternating) and the level merge.
    for (int variant = 0; variant < 2; ++variant) {
      WeightModel model = WeightModel::Max;
      Connectivity connectivity = Connectivity::Eight;
      if (variant == 1) {
        model = file % 2 == 0 ? WeightModel::AbsDiff : WeightModel::Friction;
        if (model == WeightModel::Friction && info_of(r).min < 0) model = WeightModel::AbsDiff;
        connectivity = (file / 2) % 2 == 0 ? Connectivity::Four : Connectivity::Eight;
      }
      ++runs;
      testing::TempDir dir;
      MstOptions options;
      RunSettings options_run;
      options.input = input;
      options.output = dir.file("edges.tif");
      options.weight = model;
      options.connectivity = connectivity;
      options.tile = runs % 3 == 0 ? 128 : 64;
      options_run.device = DeviceRequest::Cpu;
      options_run.threads = 2;
      options_run.tmpdir = dir.path();
      options.merge_mode = variant == 1 ? MstMergeMode::CpuLevels : MstMergeMode::Auto;  // the level merge too
      MemoryBudget budget(512ull << 20);
      const MstResult result = terrazo::testing::run_with(run_mst, options, options_run, budget, Progress::silent());
      RasterInfo info = info_of(r);
      info.type = r.type;
      const WeightParams params = mst_weight_params(model, 0.0, info, connectivity);
      EXPECT_EQ(result.params.scale, params.scale);
      EXPECT_EQ(result.params.offset, params.offset);
      const auto ref = testing::reference_mst(r.values, r.width, r.height, params, connectivity);
      const auto bits = read_edge_raster(options.output, r.width, r.height);
      EXPECT_EQ(first_difference(bits, ref.bits, r.width), "") << to_string(model) << " " << to_string(connectivity);
      EXPECT_EQ(result.edges, ref.edges);
      EXPECT_EQ(result.vertices, ref.vertices);
      EXPECT_EQ(result.components, ref.components);
      EXPECT_EQ(result.total_weight, ref.total_weight);
      std::printf("%s: %s, %s-connected, %llu edges, %llu components\n", input.c_str(), to_string(model),
                  to_string(connectivity), static_cast<unsigned long long>(result.edges),
                  static_cast<unsigned long long>(result.components));
    }
  }
}

// The packed reference used on large stores agrees with the plain one.
TEST(MstReference, PackedTotalsEqualPlainReference) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const Case c = make_case(seed);
    const WeightParams params = mst_weight_params(c.model, 0.0, info_of(c.raster), c.connectivity);
    const auto plain = testing::reference_mst(c.raster.values, c.raster.width, c.raster.height, params, c.connectivity);
    const auto packed =
        testing::reference_mst_totals(c.raster.values, c.raster.width, c.raster.height, params, c.connectivity);
    ASSERT_EQ(packed.total_weight, plain.total_weight) << seed;
    ASSERT_EQ(packed.edges, plain.edges) << seed;
    ASSERT_EQ(packed.components, plain.components) << seed;
  }
}

// A store much larger than the budget against the packed in-memory reference: identical totals.
// By default (CI) a generated 2048 x 2048 terrain (tile 128, 2 % nodata holes: 32 MiB of doubles)
// under --memory 16M; TERRAZO_MST_LARGE_STORE names a larger store to check instead (e.g. the
// 8192 x 8192 top-left crop of the benchmark's 4 G-cell terrain, `terrazo gen --width 8192 --height
// 8192 --seed 7 --nodata-holes 0.02 crop.tzs`: minutes, ~3 GiB), under --memory 1G.
TEST(MstPipelineLarge, StoreMatchesPackedReference) {
  const char* given = std::getenv("TERRAZO_MST_LARGE_STORE");
  testing::TempDir dir;
  std::string path = given && *given ? given : "";
  if (path.empty()) {
    path = dir.file("large.tzs");
    const std::string gen = std::string(TERRAZO_BINARY) +
                            " gen -q --width 2048 --height 2048 --seed 7 --nodata-holes 0.02 --tile 128 " + path;
    ASSERT_EQ(std::system(gen.c_str()), 0) << gen;
  }
  MstOptions options;
  RunSettings options_run;
  options.input = path;
  options_run.tmpdir = dir.path();
  options_run.device = DeviceRequest::Cpu;
  MemoryBudget budget(given && *given ? 1ull << 30 : 16ull << 20);
  const MstResult result = terrazo::testing::run_with(run_mst, options, options_run, budget, Progress::silent());
  auto store = TileStore::open(path);
  const TileGrid grid = store->grid();  // a copy: the store is closed before the reference runs
  std::vector<double> values(grid.width * grid.height), tile(static_cast<std::size_t>(grid.tile) * grid.tile);
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
      store->read_tile(tx, ty, tile.data());
      for (std::uint32_t ly = 0; ly < grid.tile; ++ly)
        for (std::uint32_t lx = 0; lx < grid.tile; ++lx) {
          const std::uint64_t x = std::uint64_t{tx} * grid.tile + lx, y = std::uint64_t{ty} * grid.tile + ly;
          if (x < grid.width && y < grid.height) values[y * grid.width + x] = tile[ly * grid.tile + lx];
        }
    }
  const WeightParams params = mst_weight_params(WeightModel::Max, 0.0, store->info(), Connectivity::Eight);
  store.reset();
  const auto ref = testing::reference_mst_totals(values, grid.width, grid.height, params, Connectivity::Eight);
  EXPECT_EQ(result.total_weight, ref.total_weight);
  EXPECT_EQ(result.edges, ref.edges);
  EXPECT_EQ(result.vertices, ref.vertices);
  EXPECT_EQ(result.components, ref.components);
  std::printf("large store %s: %llu x %llu, total_weight %llu (reference %llu), edges %llu, components %llu\n", path.c_str(),
              static_cast<unsigned long long>(grid.width), static_cast<unsigned long long>(grid.height),
              static_cast<unsigned long long>(result.total_weight), static_cast<unsigned long long>(ref.total_weight),
              static_cast<unsigned long long>(result.edges), static_cast<unsigned long long>(result.components));
}

}  // namespace
}  // namespace terrazo
