// tests/test_generate_terrain.cpp: the synthetic terrain generator (engine/commands/generate_terrain.h):
// determinism, independence from windows, tiles and raster size, cell types, holes, pits,
// validation, and the streamed outputs (tile store, GeoTIFF) read back cell by cell.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/commands/generate_terrain.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"
#include "tests/support/test_support.h"

using terrazo::CellType;
using terrazo::TerrainGenerator;
using terrazo::TerrainOptions;
using terrazo::testing::read_store_cells;
using terrazo::testing::same_cells;

namespace {

TerrainOptions options_of(std::uint64_t width, std::uint64_t height, std::uint64_t seed = 7) {
  TerrainOptions options;
  options.width = width;
  options.height = height;
  options.seed = seed;
  return options;
}

std::vector<double> window(const TerrainGenerator& generator, std::uint64_t x0, std::uint64_t y0, std::uint32_t w,
                           std::uint32_t h) {
  std::vector<double> cells(static_cast<std::size_t>(w) * h);
  generator.window(x0, y0, w, h, cells.data());
  return cells;
}

double nan_share(const std::vector<double>& cells) {
  return static_cast<double>(std::count_if(cells.begin(), cells.end(), [](double v) { return std::isnan(v); })) /
         static_cast<double>(cells.size());
}

// Cells strictly lower than all 8 neighbours (interior cells only).
std::size_t local_minima(const std::vector<double>& cells, std::uint32_t w, std::uint32_t h) {
  std::size_t count = 0;
  for (std::uint32_t y = 1; y + 1 < h; ++y) {
    for (std::uint32_t x = 1; x + 1 < w; ++x) {
      const double v = cells[static_cast<std::size_t>(y) * w + x];
      bool lowest = true;
      for (int dy = -1; dy <= 1 && lowest; ++dy)
        for (int dx = -1; dx <= 1 && lowest; ++dx)
          if ((dx || dy) && !(cells[static_cast<std::size_t>(y + dy) * w + x + dx] > v)) lowest = false;
      count += lowest;
    }
  }
  return count;
}

}  // namespace

TEST(GenerateTerrain, SameOptionsSameCells) {
  TerrainGenerator a(options_of(300, 200));
  TerrainGenerator b(options_of(300, 200));
  EXPECT_TRUE(same_cells(window(a, 0, 0, 300, 200), window(b, 0, 0, 300, 200)));
}

TEST(GenerateTerrain, SeedsDiffer) {
  TerrainGenerator a(options_of(64, 64, 1));
  TerrainGenerator b(options_of(64, 64, 2));
  const auto ca = window(a, 0, 0, 64, 64), cb = window(b, 0, 0, 64, 64);
  std::size_t equal = 0;
  for (std::size_t i = 0; i < ca.size(); ++i) equal += ca[i] == cb[i];
  EXPECT_LT(equal, ca.size() / 10);
}

TEST(GenerateTerrain, WindowsAgreeWithTheWhole) {
  TerrainOptions options = options_of(300, 200);
  options.nodata_holes = 0.2;
  TerrainGenerator generator(options);
  const auto whole = window(generator, 0, 0, 300, 200);
  // Odd-sized pieces at odd offsets, across lattice and pit-cell boundaries.
  for (std::uint64_t y0 = 0; y0 < 200; y0 += 37) {
    for (std::uint64_t x0 = 0; x0 < 300; x0 += 53) {
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(53, 300 - x0));
      const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(37, 200 - y0));
      const auto piece = window(generator, x0, y0, w, h);
      std::vector<double> expected;
      for (std::uint32_t r = 0; r < h; ++r)
        for (std::uint32_t c = 0; c < w; ++c) expected.push_back(whole[(y0 + r) * 300 + x0 + c]);
      ASSERT_TRUE(same_cells(piece, expected)) << "window at " << x0 << "," << y0;
    }
  }
}

TEST(GenerateTerrain, SmallRasterIsCropOfLargeOne) {
  TerrainOptions small = options_of(50, 30), large = options_of(5000, 3000);
  small.nodata_holes = large.nodata_holes = 0.1;
  TerrainGenerator a(small), b(large);
  EXPECT_TRUE(same_cells(window(a, 0, 0, 50, 30), window(b, 0, 0, 50, 30)));
}

TEST(GenerateTerrain, ValuesStayInReliefAndVary) {
  TerrainOptions options = options_of(512, 512);
  options.relief = 2000;
  options.base = -300;
  TerrainGenerator generator(options);
  const auto cells = window(generator, 0, 0, 512, 512);
  const auto [lo, hi] = std::minmax_element(cells.begin(), cells.end());
  EXPECT_GE(*lo, -300.0);
  EXPECT_LE(*hi, 1700.0);
  EXPECT_GT(*hi - *lo, 200.0) << "terrain should not be flat";
  EXPECT_EQ(nan_share(cells), 0.0);
}

TEST(GenerateTerrain, CellTypesAreRoundedAndInRange) {
  struct Case {
    CellType type;
    double lo, hi;
  };
  for (const Case& c : {Case{CellType::UInt8, 0, 254}, Case{CellType::Int16, -32767, 32767},
                        Case{CellType::UInt16, 0, 65534}, Case{CellType::Int32, -2147483647.0, 2147483647.0},
                        Case{CellType::UInt32, 0, 4294967294.0}}) {
    TerrainOptions options = options_of(128, 128);
    options.type = c.type;
    options.base = c.type == CellType::Int16 || c.type == CellType::Int32 ? -100.0 : 0.0;
    TerrainGenerator generator(options);
    EXPECT_EQ(generator.info().type, c.type);
    EXPECT_TRUE(generator.info().has_nodata);
    EXPECT_EQ(generator.info().nodata, terrazo::default_nodata(c.type));
    for (double v : window(generator, 0, 0, 128, 128)) {
      ASSERT_EQ(v, std::nearbyint(v)) << terrazo::to_string(c.type);
      ASSERT_GE(v, c.lo);
      ASSERT_LE(v, c.hi);
    }
  }
  TerrainOptions float32 = options_of(64, 64);
  TerrainGenerator generator(float32);
  EXPECT_EQ(generator.info().nodata, -9999.0);
  for (double v : window(generator, 0, 0, 64, 64)) ASSERT_EQ(v, static_cast<double>(static_cast<float>(v)));
}

TEST(GenerateTerrain, ByteDefaultReliefFitsTheType) {
  TerrainOptions options = options_of(256, 256);
  options.type = CellType::UInt8;
  TerrainGenerator generator(options);
  const auto cells = window(generator, 0, 0, 256, 256);
  EXPECT_GT(*std::max_element(cells.begin(), cells.end()), 60.0);
}

TEST(GenerateTerrain, HolesCoverTheFractionInBlobs) {
  for (double fraction : {0.05, 0.2, 0.5}) {
    TerrainOptions options = options_of(1024, 1024, 3);
    options.nodata_holes = fraction;
    TerrainGenerator generator(options);
    const auto cells = window(generator, 0, 0, 1024, 1024);
    const double share = nan_share(cells);
    EXPECT_NEAR(share, fraction, fraction * 0.5 + 0.01) << fraction;
    // Blobs, not salt and pepper: most 4-neighbours of a hole cell are holes too.
    std::size_t hole_pairs = 0, pairs = 0;
    for (std::size_t y = 0; y + 1 < 1024; ++y) {
      for (std::size_t x = 0; x + 1 < 1024; ++x) {
        if (!std::isnan(cells[y * 1024 + x])) continue;
        pairs += 2;
        hole_pairs += std::isnan(cells[y * 1024 + x + 1]) + std::isnan(cells[(y + 1) * 1024 + x]);
      }
    }
    EXPECT_GT(static_cast<double>(hole_pairs) / static_cast<double>(pairs), 0.85) << fraction;
  }
}

TEST(GenerateTerrain, PitsAddDepressionsAndRiversCarve) {
  TerrainOptions plain = options_of(512, 512, 11);
  plain.pits = false;
  plain.rivers = false;
  TerrainOptions with_pits = plain;
  with_pits.pits = true;
  TerrainOptions with_rivers = plain;
  with_rivers.rivers = true;
  const auto base = window(TerrainGenerator(plain), 0, 0, 512, 512);
  const auto pits = window(TerrainGenerator(with_pits), 0, 0, 512, 512);
  const auto rivers = window(TerrainGenerator(with_rivers), 0, 0, 512, 512);
  // Pits only lower the terrain, by up to 4 % of the relief (40 m of the default 1000).
  std::size_t deep = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    ASSERT_LE(pits[i], base[i]);
    deep += base[i] - pits[i] > 5.0;
  }
  EXPECT_GT(deep, 0u);
  EXPECT_GE(local_minima(pits, 512, 512), 1u);
  std::size_t lower = 0, higher = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    lower += rivers[i] < base[i];
    higher += rivers[i] > base[i];
  }
  EXPECT_GT(lower, base.size() / 50) << "valleys should be carved somewhere";
  EXPECT_EQ(higher, 0u) << "carving only lowers the terrain";
}

TEST(GenerateTerrain, Georeferencing) {
  TerrainGenerator georeferenced(options_of(10, 10));
  EXPECT_TRUE(georeferenced.info().has_geotransform);
  EXPECT_EQ(georeferenced.info().geotransform[1], 30.0);
  EXPECT_EQ(georeferenced.info().geotransform[5], -30.0);
  EXPECT_NE(georeferenced.info().crs_wkt.find("3857"), std::string::npos);
  TerrainOptions none = options_of(10, 10);
  none.crs = "none";
  TerrainGenerator plain(none);
  EXPECT_FALSE(plain.info().has_geotransform);
  EXPECT_TRUE(plain.info().crs_wkt.empty());
}

TEST(GenerateTerrain, ValidationNamesTheOption) {
  auto message = [](TerrainOptions options) -> std::string {
    try {
      TerrainGenerator generator(options);
    } catch (const terrazo::UsageError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(options_of(0, 10)).find("--width"), std::string::npos);
  TerrainOptions holes = options_of(10, 10);
  holes.nodata_holes = 1.0;
  EXPECT_NE(message(holes).find("--nodata-holes"), std::string::npos);
  TerrainOptions crs = options_of(10, 10);
  crs.crs = "EPSG:nonsense";
  EXPECT_NE(message(crs).find("--crs"), std::string::npos);
  TerrainOptions cell = options_of(10, 10);
  cell.cell_size = -1;
  EXPECT_NE(message(cell).find("--cell-size"), std::string::npos);
}

// ---- streamed outputs ---------------------------------------------------------------------------

namespace {

terrazo::GenerateResult generate(const std::string& path, TerrainOptions terrain, std::uint32_t tile, unsigned threads) {
  terrazo::GenerateOptions options;
  terrazo::RunSettings options_run;
  options.terrain = terrain;
  options.output = path;
  options.tile = tile;
  options_run.threads = threads;
  terrazo::MemoryBudget budget(256ull << 20);
  return terrazo::testing::run_with(terrazo::run_generate, options, options_run, budget, terrazo::Progress::silent());
}

}  // namespace

TEST(GenerateTerrain, TileStoreHoldsTheTerrainForAnyTileSize) {
  terrazo::testing::TempDir dir;
  TerrainOptions terrain = options_of(157, 93, 5);
  terrain.nodata_holes = 0.1;
  terrain.type = CellType::Int16;
  const auto expected = window(TerrainGenerator(terrain), 0, 0, 157, 93);
  for (std::uint32_t tile : {16u, 64u, 256u}) {
    for (unsigned threads : {1u, 3u}) {
      const std::string path = dir.file("t" + std::to_string(tile) + "_" + std::to_string(threads) + ".tzs");
      const auto result = generate(path, terrain, tile, threads);
      EXPECT_TRUE(terrazo::testing::partial_files_of(path).empty());
      ASSERT_TRUE(same_cells(read_store_cells(path), expected)) << "tile " << tile << ", threads " << threads;
      auto store = terrazo::TileStore::open(path);
      EXPECT_EQ(store->info().width, 157u);
      EXPECT_EQ(store->info().height, 93u);
      EXPECT_EQ(store->info().type, CellType::Int16);
      EXPECT_TRUE(store->info().has_stats);
      EXPECT_EQ(store->info().valid_cells, result.info.valid_cells);
      EXPECT_EQ(store->info().min, result.info.min);
      EXPECT_EQ(store->info().max, result.info.max);
      EXPECT_EQ(result.info.valid_cells,
                static_cast<std::uint64_t>(std::count_if(expected.begin(), expected.end(), [](double v) { return !std::isnan(v); })));
    }
  }
}

TEST(GenerateTerrain, GeoTiffHoldsTheTerrain) {
  terrazo::testing::TempDir dir;
  TerrainOptions terrain = options_of(70, 45, 9);
  terrain.nodata_holes = 0.15;
  const std::string path = dir.file("gen.tif");
  generate(path, terrain, 32, 2);
  auto reader = terrazo::RasterReader::open(path);
  const auto& info = reader->info();
  EXPECT_EQ(info.width, 70u);
  EXPECT_EQ(info.height, 45u);
  EXPECT_EQ(info.type, CellType::Float32);
  EXPECT_TRUE(info.has_nodata);
  EXPECT_EQ(info.nodata, -9999.0);
  EXPECT_TRUE(info.has_geotransform);
  EXPECT_EQ(info.geotransform[0], 500000.0);
  EXPECT_NE(info.crs_wkt.find("3857"), std::string::npos);
  std::vector<double> cells(70 * 45);
  reader->read_window(0, 0, 70, 45, cells.data());
  EXPECT_TRUE(same_cells(cells, window(TerrainGenerator(terrain), 0, 0, 70, 45)));
}

TEST(GenerateTerrain, OneCellAndOneRow) {
  terrazo::testing::TempDir dir;
  for (auto [w, h] : {std::pair<std::uint64_t, std::uint64_t>{1, 1}, {1, 300}, {300, 1}}) {
    const std::string path = dir.file("line.tzs");
    const auto terrain = options_of(w, h);
    generate(path, terrain, 16, 2);
    EXPECT_TRUE(same_cells(read_store_cells(path), window(TerrainGenerator(terrain), 0, 0, static_cast<std::uint32_t>(w),
                                                    static_cast<std::uint32_t>(h))));
  }
}

TEST(GenerateTerrain, BadOutputsLeaveNothing) {
  terrazo::testing::TempDir dir;
  EXPECT_THROW(generate(dir.file("out.png"), options_of(10, 10), 16, 1), terrazo::UsageError);
  EXPECT_THROW(generate(dir.file("no/such/dir/out.tzs"), options_of(10, 10), 16, 1), terrazo::Error);
  EXPECT_TRUE(terrazo::testing::entries_of(dir).empty());
  // Cancelled half-way: no output under either name.
  terrazo::Progress cancel_at_half([](const terrazo::ProgressEvent& e) { return e.done * 2 < e.total || e.total == 0; });
  terrazo::GenerateOptions options;
  terrazo::RunSettings options_run;
  options.terrain = options_of(200, 200);
  options.output = dir.file("cancelled.tzs");
  options.tile = 16;
  terrazo::MemoryBudget budget(64ull << 20);
  EXPECT_THROW(terrazo::testing::run_with(terrazo::run_generate, options, options_run, budget, cancel_at_half), terrazo::Cancelled);
  EXPECT_TRUE(terrazo::testing::entries_of(dir).empty());
}
