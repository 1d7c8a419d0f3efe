// tests/support/od_matrix_support.h: what the index, od-matrix and network suites share
// (test_od_matrix.cpp, test_od_matrix_transient.cpp, test_gprime_rounds.cpp, test_od_matrix_cli.cpp,
// test_network.cpp): the Dijkstra oracle's matrix, an index build and an od-matrix query through the
// api, the hugo_site index, generated terrain, random sites on tile borders and corners, and the exact
// comparison of two matrices.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/generate_terrain.h"
#include "engine/commands/index.h"
#include "io/store/index_file.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo::testing {

inline SourcePoint pixel(std::uint64_t x, std::uint64_t y) {
  return parse_source_point(std::to_string(x) + "," + std::to_string(y), "--site");
}

// The oracle: costs from each site to every site by Dijkstra over the whole raster.
inline std::vector<PathLength> reference_matrix(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                                                const WeightParams& params, Connectivity connectivity, PathLength max_cost,
                                                const std::vector<std::uint64_t>& cells) {
  std::vector<PathLength> out;
  for (std::uint64_t s : cells) {
    SsspReferenceProblem ref = reference_problem(w, h, values.data(), params, connectivity);
    ref.max_cost = max_cost;
    set_reference_sources(ref, {{s, 0}});
    EXPECT_TRUE(sssp_reference(ref));
    for (std::uint64_t t : cells) out.push_back(ref.dist[t]);
  }
  return out;
}

// `terrazo index` with `o` on the CPU under 256 MiB.
inline IndexResult run_index_on_cpu(const IndexOptions& o) {
  RunSettings run;
  run.device = DeviceRequest::Cpu;
  MemoryBudget budget(256ull << 20);
  return terrazo::testing::run_with(run_index, o, run, budget, Progress::silent());
}

// The cost surface an index and a query read alike (IndexOptions, OdMatrixOptions): `model` and `c`
// over `input`, tiles of `tile`.
template <class Options>
Options surface_options(const std::string& input, WeightModel model, Connectivity c, std::uint32_t tile) {
  Options o;
  o.input = input;
  o.weight = model;
  o.connectivity = c;
  o.tile = tile;
  return o;
}

// `terrazo index` of `input` into `output` on the CPU under 256 MiB.
inline IndexResult build(const std::string& input, const std::string& output, WeightModel model, Connectivity c,
                         std::uint32_t tile, std::uint32_t leaf) {
  IndexOptions o = surface_options<IndexOptions>(input, model, c, tile);
  o.output = output;
  o.leaf = leaf;
  return run_index_on_cpu(o);
}

// The index of the shipped hugo_site.asc (friction, 8 neighbours, tiles of 16, leaves of 8) built
// into `path` and opened under `budget`: the small index the index-file suites read back.
inline std::unique_ptr<IndexFile> hugo_site_index(const std::string& path, MemoryBudget& budget) {
  build(std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc", path, WeightModel::Friction, Connectivity::Eight, 16, 8);
  return IndexFile::open(path, budget);
}

// The suites' od-matrix query: `model` and `c` over `input`, without an index, tiles of 16; callers
// add the sites.
inline OdMatrixOptions od_options(const std::string& input, WeightModel model, Connectivity c) {
  return surface_options<OdMatrixOptions>(input, model, c, 16);
}

// `terrazo od-matrix` with `o` on two threads of `device` under 256 MiB.
inline OdMatrixResult run_query(const OdMatrixOptions& o, DeviceRequest device = DeviceRequest::Auto) {
  RunSettings run;
  run.threads = 2;
  run.device = device;
  MemoryBudget budget(256ull << 20);
  return terrazo::testing::run_with(run_od_matrix, o, run, budget, Progress::silent());
}

// `terrazo od-matrix` of point sites, with the index `index` or without it (""), under 256 MiB.
inline OdMatrixResult query(const std::string& input, const std::string& index, const std::vector<SourcePoint>& sites,
                            WeightModel model, Connectivity c, double max_cost = -1, std::uint64_t cache_bytes = 0,
                            const std::string& exchange = "auto") {
  OdMatrixOptions o = od_options(input, model, c);
  o.index = index;
  o.sites = sites;
  o.max_cost = max_cost;
  o.cache_bytes = cache_bytes;
  o.exchange = exchange;
  return run_query(o);
}

// Random valid sites, with some on tile borders and corners (tile 16), two in one tile.
inline std::vector<std::uint64_t> pick_sites(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                                             std::mt19937_64& rng, int count) {
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

inline std::vector<SourcePoint> points_of(const std::vector<std::uint64_t>& cells, std::uint64_t w) {
  std::vector<SourcePoint> points;
  for (std::uint64_t c : cells) points.push_back(pixel(c % w, c / w));
  return points;
}

inline void expect_same(const std::vector<PathLength>& got, const std::vector<PathLength>& want, std::uint64_t k,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::uint64_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << what << ": from site " << i / k + 1 << " to site " << i % k + 1;
}

// `terrazo gen` terrain with 2% nodata holes as a store of tiles of 64 in `dir`, and its cells.
struct GeneratedTerrain {
  std::string path;
  RasterInfo info;
  std::vector<double> values;
};

inline GeneratedTerrain generated_terrain(const TempDir& dir, std::uint64_t width, std::uint64_t height, std::uint64_t seed) {
  GenerateOptions g;
  RunSettings g_run;
  g.terrain.width = width;
  g.terrain.height = height;
  g.terrain.seed = seed;
  g.terrain.nodata_holes = 0.02;
  g.output = dir.file("gen.tzs");
  g.tile = 64;
  MemoryBudget budget(256ull << 20);
  terrazo::testing::run_with(run_generate, g, g_run, budget, Progress::silent());
  GeneratedTerrain t;
  t.path = g.output;
  t.values = read_raster_values(g.output, &t.info);
  return t;
}

// The names the suites call unqualified: `using namespace testing::od_matrix_suite;` in each.
namespace od_matrix_suite {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using testing::build;
using testing::expect_same;
using testing::GeneratedTerrain;
using testing::generated_terrain;
using testing::od_options;
using testing::pick_sites;
using testing::pixel;
using testing::points_of;
using testing::query;
using testing::reference_matrix;
using testing::run_index_on_cpu;
using testing::run_query;
}  // namespace od_matrix_suite

}  // namespace terrazo::testing
