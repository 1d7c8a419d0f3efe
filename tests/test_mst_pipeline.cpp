// tests/test_mst_pipeline.cpp: run_mst (engine/commands/mst.h) against the in-memory Kruskal
// reference (tests/support/mst_reference.h), edge for edge.
//
//  - hundreds of small random rasters written as tile stores: sizes 1x1, 1xN, Nx1, odd; tiles 16/32
//    not dividing W or H; continuous, tied, flat and negative values; nodata holes; 4 and 8
//    connectivity; all three weight models; some with a tiny record buffer forcing external runs;
//  - every shipped DEM in datasets/real through the GDAL import, the edge raster read back;
//  - properties: edges = vertices - components, no cycle, cut and cycle property spot checks;
//  - bad inputs: nodata everywhere, one cell, overflow at a huge --scale, friction on negative costs;
//  - the level-synchronous merge: tests/test_mst_level_merge.cpp.
#include <gtest/gtest.h>
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
    const std::string where = describe(c, seed);
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
  const Raster r = uniform_raster(37, 21, kNaN);
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
  const Raster r = uniform_raster(1, 1, 42.5);
  const MstResult result = run_simple(r, dir, WeightModel::Max, 0.0);
  EXPECT_EQ(result.edges, 0u);
  EXPECT_EQ(result.vertices, 1u);
  EXPECT_EQ(result.components, 1u);
}

TEST(MstPipeline, OverflowAtHugeScaleIsAClearError) {
  testing::TempDir dir;
  Raster r = uniform_raster(20, 10, 1000.0);
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
  Raster r = uniform_raster(4, 4, 3.0);
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
