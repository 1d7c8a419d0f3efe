// tests/support/mst_pipeline_support.h: what the run_mst pipeline tests share (tests/test_mst_pipeline.cpp,
// tests/test_mst_level_merge.cpp): random rasters written as tile stores, the cases (sizes 1x1, 1xN,
// Nx1, odd; tiles 16/32; continuous, tied, flat and negative values; nodata holes; 4 and 8
// connectivity; the three weight models; tiny record buffers), the edge list and edge raster read back,
// and one run of run_mst on a case's store.
#pragma once
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

namespace terrazo::mst_testing {


constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Raster {
  std::uint64_t width = 0, height = 0;
  std::vector<double> values;  // NaN = nodata
  CellType type = CellType::Float64;
};

// A width x height Float64 raster of `value` in every cell.
inline Raster uniform_raster(std::uint64_t width, std::uint64_t height, double value) {
  Raster r;
  r.width = width;
  r.height = height;
  r.values.assign(width * height, value);
  return r;
}

inline RasterInfo info_of(const Raster& r) {
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

inline void write_store(const Raster& r, std::uint32_t tile, const std::string& path) {
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
inline std::vector<std::uint8_t> read_edge_list(const std::string& path, const Raster& r, std::uint64_t* weight_sum) {
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

inline std::vector<std::uint8_t> read_edge_raster(const std::string& path, std::uint64_t width, std::uint64_t height) {
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
inline std::string first_difference(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
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

inline Raster random_raster(std::mt19937_64& rng, std::uint64_t width, std::uint64_t height, int flavour, double holes) {
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

inline Case make_case(std::uint64_t seed) {
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

inline PipelineRun run_on_store(const Case& c, testing::TempDir& dir, std::uint64_t memory = 256ull << 20,
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

// "seed S: WxH tile T MODEL CONNECTIVITY": a case in a failure message.
inline std::string describe(const Case& c, std::uint64_t seed) {
  return "seed " + std::to_string(seed) + ": " + std::to_string(c.raster.width) + "x" +
         std::to_string(c.raster.height) + " tile " + std::to_string(c.tile) + " " + to_string(c.model) + " " +
         to_string(c.connectivity);
}

}  // namespace terrazo::mst_testing
