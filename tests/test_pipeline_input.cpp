// tests/test_pipeline_input.cpp: the one input opener of sssp, mst and clump (engine/raster_inputs/pipeline_input.h).
// Every way of reading INPUT (a tile store imported in the run directory, tiles in memory, a tiled
// GeoTIFF in place) gives the same cells bit for bit, the same tiles present and the same
// statistics, and so the same sssp and mst outputs; at several tile sizes, with nodata and an
// all-nodata tile; auto keeps the budget (a raster whose tiles take more than a quarter of it is
// not held in memory). Small rasters: the whole file runs in well under a second.
#include <cpl_conv.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/clump.h"
#include "engine/commands/mst.h"
#include "engine/commands/mst_command.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/commands/sssp.h"
#include "engine/commands/sssp_command.h"
#include "kernels/common/error.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "io/store/cell_values.h"
#include "support/test_support.h"

namespace terrazo {
namespace {

using testing::TempDir;


// A 70 x 45 (or `width` x `height`) GeoTIFF of `type` with nodata -9999 (`nodata`): random values
// 1..500 (integers for the integer types, 1..250 for Byte), a few nodata cells, and the block of
// cells [32, 48) x [16, 32) all nodata (an absent tile at t = 16). `block` 0: striped; else tiled in
// block x block.
std::string write_dem(const TempDir& dir, const std::string& name, GDALDataType type, int block, std::uint32_t seed,
                      int width = 70, int height = 45, double nodata = -9999) {
  const int kWidth = width, kHeight = height;
  ensure_gdal();
  const std::string path = dir.file(name);
  std::vector<std::string> options_text;
  if (block) {
    options_text = {"TILED=YES", "BLOCKXSIZE=" + std::to_string(block), "BLOCKYSIZE=" + std::to_string(block)};
  }
  std::vector<char*> options;
  for (std::string& o : options_text) options.push_back(o.data());
  options.push_back(nullptr);
  GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), path.c_str(), kWidth, kHeight, 1, type, options.data());
  EXPECT_TRUE(ds);
  const double gt[6] = {500000, 30, 0, 4100000, 0, -30};
  GDALSetGeoTransform(ds, const_cast<double*>(gt));
  {  // UTM 33N: every way must carry the CRS (read on a thread of its own with several threads)
    OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
    EXPECT_EQ(OSRImportFromEPSG(srs, 32633), OGRERR_NONE);
    char* wkt = nullptr;
    OSRExportToWkt(srs, &wkt);
    GDALSetProjection(ds, wkt);
    CPLFree(wkt);
    OSRDestroySpatialReference(srs);
  }
  GDALRasterBandH band = GDALGetRasterBand(ds, 1);
  GDALSetRasterNoDataValue(band, nodata);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(1, type == GDT_Byte ? 250 : 500);
  const bool integer = type != GDT_Float32 && type != GDT_Float64;
  std::vector<double> cells(static_cast<std::size_t>(kWidth) * kHeight);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      double v = integer ? std::floor(value(rng)) : value(rng);
      if (rng() % 23 == 0) v = nodata;
      if (x >= 32 && x < 48 && y >= 16 && y < 32) v = nodata;
      cells[static_cast<std::size_t>(y) * kWidth + x] = v;
    }
  EXPECT_EQ(GDALRasterIO(band, GF_Write, 0, 0, kWidth, kHeight, cells.data(), kWidth, kHeight, GDT_Float64, 0, 0), CE_None);
  GDALClose(ds);
  return path;
}

std::vector<double> read_all(const std::string& path) {
  auto reader = RasterReader::open(path);
  const RasterInfo& info = reader->info();
  std::vector<double> v(info.width * info.height);
  reader->read_window(0, 0, static_cast<std::uint32_t>(info.width), static_cast<std::uint32_t>(info.height), v.data());
  return v;
}

// Bit for bit (NaN payloads included).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::unique_ptr<PipelineInput> open(const std::string& path, std::uint32_t tile, InputMode mode, RunDirectory& run,
                                    MemoryBudget& budget, bool statistics = true) {
  PipelineInputOptions o;
  o.path = path;
  o.tile = tile;
  o.mode = mode;
  o.statistics = statistics;
  o.threads = 2;
  return open_pipeline_input(o, run, budget, Progress::silent());
}

TEST(PipelineInput, EveryWayReadsTheSameCellsTilesAndStatistics) {
  TempDir dir;
  const std::string f32 = write_dem(dir, "f32.tif", GDT_Float32, 16, 1);
  const std::string i16 = write_dem(dir, "i16.tif", GDT_Int16, 16, 2);
  // Integer rasters go into the memory tiles as the file holds them (put_tile_cells): Byte with
  // nodata 255, UInt32 with nodata 0, UInt16 with a nodata value it cannot hold (so no cell is
  // nodata and no tile absent: the -9999 cells are written as 0).
  const std::string u8 = write_dem(dir, "u8.tif", GDT_Byte, 16, 3, 70, 45, 255);
  const std::string u32 = write_dem(dir, "u32.tif", GDT_UInt32, 16, 4, 70, 45, 0);
  const std::string u16 = write_dem(dir, "u16.tif", GDT_UInt16, 16, 5);
  for (const std::string& path : {f32, i16, u8, u32, u16}) {
    for (std::uint32_t tile : {16u, 32u, 64u}) {
      MemoryBudget budget(64ull << 20);
      auto imported = open(path, tile, InputMode::Import, dir, budget);
      auto memory = open(path, tile, InputMode::Memory, dir, budget);
      auto direct = open(path, tile, InputMode::Direct, dir, budget);
      auto automatic = open(path, tile, InputMode::Auto, dir, budget);
      EXPECT_EQ(imported->how(), "imported");
      EXPECT_EQ(memory->how(), "memory");
      EXPECT_EQ(direct->how(), "direct");
      EXPECT_EQ(automatic->how(), "memory");  // 70 x 45 cells fit a quarter of 64 MiB
      for (const PipelineInput* in : {memory.get(), direct.get()}) {
        const std::string what = path + " tile " + std::to_string(tile) + " " + in->how();
        EXPECT_TRUE(in->info().has_stats) << what;
        EXPECT_EQ(in->info().min, imported->info().min) << what;
        EXPECT_EQ(in->info().max, imported->info().max) << what;
        EXPECT_EQ(in->info().valid_cells, imported->info().valid_cells) << what;
        EXPECT_EQ(in->info().type, imported->info().type) << what;
        EXPECT_NE(imported->info().crs_wkt.find("UTM zone 33N"), std::string::npos) << what;
        EXPECT_EQ(in->info().crs_wkt, imported->info().crs_wkt) << what;
        const TileGrid& g = in->grid();
        ASSERT_EQ(g.tiles_x(), imported->grid().tiles_x());
        ASSERT_EQ(g.tiles_y(), imported->grid().tiles_y());
        std::vector<double> a(static_cast<std::size_t>(tile) * tile), b(a.size());
        std::uint64_t absent = 0;
        for (std::uint32_t ty = 0; ty < g.tiles_y(); ++ty)
          for (std::uint32_t tx = 0; tx < g.tiles_x(); ++tx) {
            EXPECT_EQ(in->cells().tile_present(tx, ty), imported->cells().tile_present(tx, ty)) << what << " " << tx << "," << ty;
            absent += !imported->cells().tile_present(tx, ty);
            in->cells().read_tile(tx, ty, a.data());
            imported->cells().read_tile(tx, ty, b.data());
            EXPECT_TRUE(same_bits(a, b)) << what << " tile " << tx << "," << ty;
          }
        if (tile == 16) {
          EXPECT_EQ(absent, path == u16 ? 0u : 1u) << what;  // the all-nodata block
        }
      }
      // Nothing was written for the ways that read in place.
      EXPECT_EQ(memory->bytes_written(), 0u);
      EXPECT_EQ(direct->bytes_written(), 0u);
      EXPECT_GT(imported->bytes_written(), 0u);
    }
  }
}

TEST(PipelineInput, AutoKeepsTheBudgetAndRefusalsAreClear) {
  TempDir dir;
  const std::string tiled = write_dem(dir, "tiled.tif", GDT_Float32, 16, 3, 600, 400);
  const std::string striped = write_dem(dir, "striped.tif", GDT_Float32, 0, 3, 600, 400);
  // 600 x 400 Float32 cells in tiles of 64: 10 x 7 tiles, 1.1 MiB. A budget whose quarter is less:
  // a tiled GeoTIFF is read in place (its GDAL cache, 256 KiB, fits the quarter), any other raster
  // imported; the run keeps the budget (every byte is reserved: an overrun throws).
  {
    MemoryBudget budget(3ull << 20);
    auto in = open(tiled, 64, InputMode::Auto, dir, budget);
    EXPECT_EQ(in->how(), "direct");
    EXPECT_LE(budget.peak_reserved(), budget.total());
  }
  {
    MemoryBudget budget(3ull << 20);
    EXPECT_EQ(open(striped, 64, InputMode::Auto, dir, budget)->how(), "imported");
  }
  {
    MemoryBudget budget(1ull << 20);
    EXPECT_THROW(open(striped, 256, InputMode::Memory, dir, budget), BudgetError);  // 1.5 MiB of tiles
  }
  MemoryBudget budget(64ull << 20);
  try {
    open(striped, 16, InputMode::Direct, dir, budget);
    ADD_FAILURE() << "a striped GeoTIFF is not read in place";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--input-mode direct: INPUT '" + striped + "' is not a one-band GeoTIFF"),
              std::string::npos) << e.what();
  }
  try {
    open(tiled, 64, InputMode::Direct, dir, budget);  // 64 is a multiple of the 16-cell blocks: fine
    open(tiled, 16, InputMode::Direct, dir, budget);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  // A store is read as it is, whatever the mode.
  auto imported = open(striped, 32, InputMode::Import, dir, budget);
  EXPECT_THROW(parse_input_mode("disk"), UsageError);
  EXPECT_THROW(parse_sssp_options({"--input-mode", "fast", "--source", "1,1", striped, "-", "--json"}), UsageError);
  EXPECT_THROW(parse_mst_options({"--input-mode", "", striped, "-", "--json"}), UsageError);
  EXPECT_EQ(parse_sssp_options({"--input-mode", "import", "--source", "1,1", striped, "-", "--json"}).sssp.input_mode,
            InputMode::Import);
}

// Two CPU threads, scratch under `dir`: the settings of the runs that read INPUT each way.
RunSettings cpu_settings(const TempDir& dir) {
  RunSettings settings;
  settings.threads = 2;
  settings.device = DeviceRequest::Cpu;
  settings.tmpdir = dir.path();
  return settings;
}

// sssp and mst give the same outputs (cost raster, backlinks, edge raster, totals) whichever way
// INPUT is read, at two tile sizes.
TEST(PipelineInput, SsspAndMstOutputsDoNotDependOnTheWay) {
  TempDir dir;
  const std::string dem = write_dem(dir, "dem.tif", GDT_Float32, 16, 4);
  for (std::uint32_t tile : {16u, 32u}) {
    std::vector<double> cost0, back0, edges0;
    SsspResult s0;
    MstResult m0;
    int k = 0;
    for (InputMode mode : {InputMode::Import, InputMode::Memory, InputMode::Direct}) {
      const std::string what = std::string(to_string(mode)) + " tile " + std::to_string(tile);
      SsspOptions so;
      const RunSettings so_run = cpu_settings(dir);
      so.input = dem;
      so.input_mode = mode;
      so.output = dir.file("cost" + std::to_string(k) + ".tif");
      so.backlink = dir.file("back" + std::to_string(k) + ".tif");
      so.sources.push_back(parse_source_point("5,7"));
      so.sources.push_back(parse_source_point("60,40"));
      so.tile = tile;
      MemoryBudget budget(64ull << 20);
      const SsspResult s = terrazo::testing::run_with(run_sssp, so, so_run, budget, Progress::silent());
      EXPECT_EQ(s.input_read, mode == InputMode::Import ? "imported" : to_string(mode)) << what;
      MstOptions mo;
      const RunSettings mo_run = cpu_settings(dir);
      mo.input = dem;
      mo.input_mode = mode;
      mo.output = dir.file("edges" + std::to_string(k) + ".tif");
      mo.tile = tile;
      MemoryBudget mst_budget(64ull << 20);
      const MstResult m = terrazo::testing::run_with(run_mst, mo, mo_run, mst_budget, Progress::silent());
      const std::vector<double> cost = read_all(so.output), back = read_all(so.backlink), edges = read_all(mo.output);
      if (k == 0) {
        cost0 = cost, back0 = back, edges0 = edges, s0 = s, m0 = m;
        EXPECT_GT(s.reached_cells, 1000u);
        EXPECT_GT(m.edges, 1000u);
      } else {
        EXPECT_TRUE(same_bits(cost, cost0)) << what;
        EXPECT_TRUE(same_bits(back, back0)) << what;
        EXPECT_TRUE(same_bits(edges, edges0)) << what;
        EXPECT_EQ(s.reached_cells, s0.reached_cells) << what;
        EXPECT_EQ(s.max_distance_fixed, s0.max_distance_fixed) << what;
        EXPECT_EQ(s.params.scale, s0.params.scale) << what;
        EXPECT_EQ(s.tiles_solved, s0.tiles_solved) << what;
        EXPECT_EQ(m.total_weight, m0.total_weight) << what;
        EXPECT_EQ(m.edges, m0.edges) << what;
        EXPECT_EQ(m.components, m0.components) << what;
      }
      ++k;
    }
  }
}

// clump reads in memory, in place or through an import, with the same labels.
TEST(PipelineInput, ClumpLabelsDoNotDependOnTheWay) {
  TempDir dir;
  const std::string dem = write_dem(dir, "dem.tif", GDT_Int16, 16, 5);
  std::vector<double> labels0;
  int k = 0;
  for (InputMode mode : {InputMode::Import, InputMode::Memory, InputMode::Direct}) {
    ClumpOptions o;
    const RunSettings o_run = cpu_settings(dir);
    o.input = dem;
    o.input_mode = mode;
    o.by = ClumpBy::Valid;
    o.by_given = true;
    o.output = dir.file("labels" + std::to_string(k) + ".tif");
    o.tile = 16;
    MemoryBudget budget(64ull << 20);
    const ClumpResult r = terrazo::testing::run_with(run_clump, o, o_run, budget, Progress::silent());
    EXPECT_EQ(r.input_read_in_place, mode != InputMode::Import);
    const std::vector<double> labels = read_all(o.output);
    if (k++ == 0) labels0 = labels;
    else EXPECT_TRUE(same_bits(labels, labels0)) << to_string(mode);
  }
}

// Byte cells to doubles and their statistics (io/store/cell_values.h; a lookup table and a histogram
// for Byte) against the rule applied cell by cell: with and without a nodata value, a nodata value
// the type cannot hold, in place (the cells in the last bytes of the doubles), and rows with a stride.
TEST(CellValues, ByteCellsReadAsTheRuleSays) {
  std::mt19937 rng(7);
  const std::size_t n = 3000;
  std::vector<std::uint8_t> cells(n);
  for (auto& c : cells) c = static_cast<std::uint8_t>(rng() % 6 == 0 ? 200 : rng() % 256);
  for (const NodataRule rule : {NodataRule(CellType::UInt8, true, 200), NodataRule(CellType::UInt8, false, 0),
                                NodataRule(CellType::UInt8, true, -9999), NodataRule(CellType::UInt8, true, 0)}) {
    std::vector<double> expected(n);
    CellStats want;
    const std::uint64_t rows = 30, cols = 70, stride = 100;  // 30 rows of 70 of the cells, 100 apart
    for (std::size_t i = 0; i < n; ++i) {
      const double v = cells[i];
      expected[i] = rule.is_nodata(v) ? std::nan("") : v;
      if (i % stride < cols && i / stride < rows && !rule.is_nodata(v)) want.add(v);
    }
    std::vector<double> got(n);
    cells_to_doubles(cells.data(), n, rule, got.data());
    std::vector<double> in_place(n);
    std::memcpy(reinterpret_cast<std::uint8_t*>(in_place.data()) + 7 * n, cells.data(), n);
    cells_to_doubles(reinterpret_cast<std::uint8_t*>(in_place.data()) + 7 * n, n, rule, in_place.data());
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(got[i] == expected[i] || (std::isnan(got[i]) && std::isnan(expected[i]))) << i;
      ASSERT_TRUE(in_place[i] == expected[i] || (std::isnan(in_place[i]) && std::isnan(expected[i]))) << i;
    }
    const CellStats stats = scan_cells(cells.data(), rows, cols, stride, rule);
    EXPECT_EQ(stats.valid, want.valid);
    EXPECT_EQ(stats.min, want.min);
    EXPECT_EQ(stats.max, want.max);
  }
}

}  // namespace
}  // namespace terrazo
