// tests/test_mst_level_merge.cpp: the level-synchronous merge of run_mst (--merge cpu-levels,
// engine/mst/phase2_merge_levels.h) against the in-memory Kruskal reference (tests/support/mst_reference.h)
// on the cases of tests/support/mst_pipeline_support.h plus tile-aligned nodata (absent tiles) and flat
// rasters, under tiny budgets and batch slots that force batches of one graph and graphs solved alone:
// the reference's edges, and the post-order merge's edge raster and totals, exactly; its progress and
// the merge modes the pipeline reports and refuses.
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
#include "tests/support/mst_pipeline_support.h"

namespace terrazo {
namespace {

using namespace mst_testing;

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
    const std::string where = describe(c, seed) + " memory " +
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

}  // namespace
}  // namespace terrazo
