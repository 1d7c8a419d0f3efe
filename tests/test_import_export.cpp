// Tests of engine/raster_inputs/raster_io.h over io/gdal/gdal_raster.h and io/gdal/ascii_grid.h: import -> export
// round trips on every raster in datasets/real (values, nodata, geotransform, CRS identical to
// what GDAL reads from the original), run_info statistics computed from the data (not from
// metadata), the .asc.gz stream reader, budgets, cancellation and atomic publication.
#include <gdal.h>
#include <gtest/gtest.h>
#include <ogr_srs_api.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/raster_inputs/raster_io.h"
#include "io/store/run_directory.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"
#include "tests/support/test_support.h"

using namespace terrazo;
using terrazo::testing::TempDir;
using terrazo::testing::partial_files_of;

namespace {

const std::string kReal = std::string(TERRAZO_DATASETS) + "/real";

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every raster of datasets/real (ENVI .bil through its .bil, not its .hdr).
std::vector<std::string> real_rasters() {
  std::vector<std::string> names;
  DIR* dir = opendir(kReal.c_str());
  if (!dir) return names;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (ends_with(name, ".tif") || ends_with(name, ".hgt") || ends_with(name, ".bil") || ends_with(name, ".asc") ||
        ends_with(name, ".asc.gz"))
      names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

// What GDAL itself reads from a file (the reference), independent of terrazo's readers.
struct GdalRaster {
  std::uint64_t width = 0, height = 0;
  GDALDataType type = GDT_Unknown;
  bool has_nodata = false;
  double nodata = 0.0;
  bool has_geotransform = false;
  double geotransform[6] = {0, 1, 0, 0, 0, 1};
  std::string wkt;
  std::vector<double> cells;  // raw values as doubles
  std::vector<bool> valid;    // GDAL's nodata semantics: NaN or equal to the nodata value as the type holds it
  std::string compression;
  int block_x = 0, block_y = 0;
};

GdalRaster read_with_gdal(const std::string& path) {
  GDALAllRegister();
  GdalRaster r;
  GDALDatasetH ds = GDALOpen(path.c_str(), GA_ReadOnly);
  if (!ds) {
    ADD_FAILURE() << "GDAL cannot open " << path;
    return r;
  }
  GDALRasterBandH band = GDALGetRasterBand(ds, 1);
  r.width = static_cast<std::uint64_t>(GDALGetRasterXSize(ds));
  r.height = static_cast<std::uint64_t>(GDALGetRasterYSize(ds));
  r.type = GDALGetRasterDataType(band);
  int has = 0;
  r.nodata = GDALGetRasterNoDataValue(band, &has);
  r.has_nodata = has != 0;
  r.has_geotransform = GDALGetGeoTransform(ds, r.geotransform) == CE_None;
  r.wkt = GDALGetProjectionRef(ds);
  const char* compression = GDALGetMetadataItem(ds, "COMPRESSION", "IMAGE_STRUCTURE");
  r.compression = compression ? compression : "";
  GDALGetBlockSize(band, &r.block_x, &r.block_y);
  r.cells.resize(r.width * r.height);
  EXPECT_EQ(GDALRasterIO(band, GF_Read, 0, 0, static_cast<int>(r.width), static_cast<int>(r.height), r.cells.data(),
                         static_cast<int>(r.width), static_cast<int>(r.height), GDT_Float64, 0, 0),
            CE_None);
  const double match = r.type == GDT_Float32 ? static_cast<double>(static_cast<float>(r.nodata)) : r.nodata;
  r.valid.resize(r.cells.size());
  for (std::size_t i = 0; i < r.cells.size(); ++i)
    r.valid[i] = !std::isnan(r.cells[i]) && !(r.has_nodata && r.cells[i] == match);
  GDALClose(ds);
  return r;
}

bool same_crs(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return a.empty() && b.empty();
  OGRSpatialReferenceH sa = OSRNewSpatialReference(a.c_str()), sb = OSRNewSpatialReference(b.c_str());
  const bool same = sa && sb && OSRIsSame(sa, sb);
  OSRDestroySpatialReference(sa);
  OSRDestroySpatialReference(sb);
  return same;
}

// Expects `got` to hold the same raster as `want`: size, type, nodata, georeferencing, cells.
void expect_same_raster(const GdalRaster& want, const GdalRaster& got, const std::string& what) {
  ASSERT_EQ(got.width, want.width) << what;
  ASSERT_EQ(got.height, want.height) << what;
  EXPECT_EQ(got.type, want.type) << what;
  EXPECT_EQ(got.has_nodata, want.has_nodata) << what;
  if (want.has_nodata) {
    if (std::isnan(want.nodata)) EXPECT_TRUE(std::isnan(got.nodata)) << what;
    else EXPECT_EQ(got.nodata, want.nodata) << what;
  }
  EXPECT_EQ(got.has_geotransform, want.has_geotransform) << what;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got.geotransform[i], want.geotransform[i]) << what << " geotransform " << i;
  EXPECT_TRUE(same_crs(want.wkt, got.wkt)) << what << "\nwant: " << want.wkt << "\ngot:  " << got.wkt;
  std::uint64_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < want.cells.size(); ++i) {
    const bool bad = want.valid[i] != got.valid[i] || (want.valid[i] && want.cells[i] != got.cells[i]);
    if (bad && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0u) << what << ": first wrong cell " << first % want.width << "," << first / want.width;
}

struct DataStats {
  std::uint64_t valid = 0;
  double min = INFINITY, max = -INFINITY;
};

DataStats stats_of(const GdalRaster& r) {
  DataStats s;
  for (std::size_t i = 0; i < r.cells.size(); ++i)
    if (r.valid[i]) {
      ++s.valid;
      s.min = std::min(s.min, r.cells[i]);
      s.max = std::max(s.max, r.cells[i]);
    }
  return s;
}

// The GDAL path of a dataset: .asc.gz through GDAL's own gzip reader, for the reference only.
std::string gdal_path(const std::string& name) {
  return ends_with(name, ".gz") ? "/vsigzip/" + kReal + "/" + name : kReal + "/" + name;
}

}  // namespace

// `input` imported into the store `output` with tiles of `tile`.
ImportOptions import_options(const std::string& input, const std::string& output, std::uint32_t tile) {
  ImportOptions options;
  options.input = input;
  options.output = output;
  options.tile = tile;
  return options;
}

// `input` exported to the GeoTIFF `output` (blocks of `block`; 0: the default).
ExportOptions export_options(const std::string& input, const std::string& output, std::uint32_t block = 0) {
  ExportOptions options;
  options.input = input;
  options.output = output;
  options.block = block;
  return options;
}

// ---- the round trip on every real raster -----------------------------------------------------

class RealRasterRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RealRasterRoundTrip, ImportExportKeepsEverything) {
  const std::string name = GetParam();
  TempDir dir;
  const GdalRaster original = read_with_gdal(gdal_path(name));
  MemoryBudget budget(64ull << 20);

  const ImportOptions import = import_options(kReal + "/" + name, dir.file("dem.tzs"), 128);
  const ImportResult imported = run_import(import, budget, Progress::silent());
  EXPECT_EQ(budget.reserved(), 0u) << "reservations must be returned";
  EXPECT_TRUE(partial_files_of(import.output).empty());
  EXPECT_EQ(imported.info.width, original.width);
  EXPECT_GT(imported.bytes_read, 0u);
  EXPECT_GT(imported.bytes_written, 0u);
  EXPECT_LE(imported.buffer_bytes, budget.total());

  const DataStats data = stats_of(original);
  {
    auto store = TileStore::open(import.output);
    const RasterInfo& info = store->info();
    EXPECT_EQ(info.crs_wkt, original.wkt) << "the store keeps GDAL's CRS text exactly";
    EXPECT_TRUE(info.has_stats);
    EXPECT_EQ(info.valid_cells, data.valid);
    EXPECT_EQ(info.min, data.min);
    EXPECT_EQ(info.max, data.max);
    EXPECT_EQ(imported.present_tiles, store->present_tiles());
  }

  const ExportOptions exp = export_options(import.output, dir.file("dem.tif"));
  const ExportResult exported = run_export(exp, budget, Progress::silent());
  EXPECT_TRUE(partial_files_of(exp.output).empty());
  EXPECT_GT(exported.bytes_written, 0u);
  const GdalRaster back = read_with_gdal(exp.output);
  expect_same_raster(original, back, name + " after import and export");
  EXPECT_EQ(back.compression, default_geotiff_compress());
  EXPECT_EQ(back.block_x, 128);
  EXPECT_EQ(back.block_y, 128);

  // info, on the original, the store and the export: statistics from the data.
  for (const std::string& path : {import.input, import.output, exp.output}) {
    const RasterSummary summary = run_info(path, budget, Progress::silent());
    EXPECT_EQ(summary.info.width, original.width) << path;
    EXPECT_EQ(summary.info.valid_cells, data.valid) << path;
    EXPECT_EQ(summary.nodata_cells, original.width * original.height - data.valid) << path;
    EXPECT_EQ(summary.info.min, data.min) << path;
    EXPECT_EQ(summary.info.max, data.max) << path;
    EXPECT_EQ(summary.is_tile_store, path == import.output) << path;
    EXPECT_EQ(summary.crs_name.empty(), original.wkt.empty()) << path;
    const std::string json = to_json(summary);
    EXPECT_NE(json.find("\"valid_cells\":" + std::to_string(data.valid)), std::string::npos) << json;
  }
}

INSTANTIATE_TEST_SUITE_P(DatasetsReal, RealRasterRoundTrip, ::testing::ValuesIn(real_rasters()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(RealRasters, AllShippedFormatsAreCovered) {
  const auto names = real_rasters();
  EXPECT_GE(names.size(), 10u);
  for (const char* needed : {"N44W072.hgt", "Mega_divide.bil", "nz_elev.tif", "hugo_site.asc.gz"})
    EXPECT_NE(std::find(names.begin(), names.end(), needed), names.end()) << needed;
}

// ---- statistics are computed, not trusted --------------------------------------------------------

TEST(Info, NzElevStatisticsComeFromTheData) {
  // nz_elev.tif carries STATISTICS_* metadata that is wrong (mean -9999, a rounded maximum).
  const std::string path = kReal + "/nz_elev.tif";
  const GdalRaster original = read_with_gdal(path);
  const DataStats data = stats_of(original);
  GDALDatasetH ds = GDALOpen(path.c_str(), GA_ReadOnly);
  ASSERT_NE(ds, nullptr);
  const char* stored_max = GDALGetMetadataItem(GDALGetRasterBand(ds, 1), "STATISTICS_MAXIMUM", nullptr);
  ASSERT_NE(stored_max, nullptr);
  const double metadata_max = std::atof(stored_max);
  GDALClose(ds);
  ASSERT_NE(metadata_max, data.max) << "the dataset no longer has wrong metadata; pick another";

  MemoryBudget budget(32ull << 20);
  const RasterSummary summary = run_info(path, budget, Progress::silent());
  EXPECT_EQ(summary.info.max, data.max);
  EXPECT_EQ(summary.info.min, data.min);
  EXPECT_NEAR(summary.nodata_share, 0.834, 0.001);
  EXPECT_EQ(summary.format, "GTiff");
  EXPECT_TRUE(std::isnan(summary.info.nodata));
}

TEST(Info, NamesTheCrs) {
  MemoryBudget budget(32ull << 20);
  const RasterSummary utm = run_info(kReal + "/srtm_bigtujunga30m_utm11.tif", budget, Progress::silent());
  EXPECT_EQ(utm.crs_name, "WGS 84 / UTM zone 11N");
  EXPECT_EQ(utm.crs_authority, "EPSG:32611");
  const RasterSummary none = run_info(kReal + "/hugo_site.asc", budget, Progress::silent());
  EXPECT_EQ(none.crs_name, "");
  EXPECT_EQ(none.format, "AAIGrid");
}

// ---- the gzip ASCII reader -------------------------------------------------------------------

// Both forms go through terrazo's strict reader (io/gdal/ascii_grid.h); GDAL's AAIGrid driver on the
// plain file is the reference here.
TEST(GzipAsciiGrid, MatchesGdalOnThePlainFile) {
  auto gz = RasterReader::open(kReal + "/hugo_site.asc.gz");
  auto plain = RasterReader::open(kReal + "/hugo_site.asc");
  EXPECT_EQ(gz->format(), "AAIGrid+gzip");
  EXPECT_EQ(plain->format(), "AAIGrid");
  const RasterInfo& a = gz->info();
  const RasterInfo& b = plain->info();
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.has_nodata, b.has_nodata);
  EXPECT_EQ(a.nodata, b.nodata);
  EXPECT_EQ(a.geotransform, b.geotransform);
  EXPECT_FALSE(a.has_stats);
  std::vector<double> x(a.width * a.height), y(a.width * a.height);
  // In strips, top to bottom, and two column halves of each strip (the importer's access pattern).
  const auto half = static_cast<std::uint32_t>(a.width / 2);
  for (std::uint64_t y0 = 0; y0 < a.height; y0 += 16) {
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(16, a.height - y0));
    std::vector<double> left(half * h), right((a.width - half) * h);
    gz->read_window(0, y0, half, h, left.data());
    gz->read_window(half, y0, static_cast<std::uint32_t>(a.width - half), h, right.data());
    for (std::uint32_t r = 0; r < h; ++r) {
      std::copy(left.begin() + r * half, left.begin() + (r + 1) * half, x.begin() + (y0 + r) * a.width);
      std::copy(right.begin() + r * (a.width - half), right.begin() + (r + 1) * (a.width - half),
                x.begin() + (y0 + r) * a.width + half);
    }
  }
  plain->read_window(0, 0, static_cast<std::uint32_t>(b.width), static_cast<std::uint32_t>(b.height), y.data());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::isnan(x[i]), std::isnan(y[i])) << i;
    if (!std::isnan(x[i])) {
      ASSERT_EQ(x[i], y[i]) << i;
    }
  }
  const GdalRaster gdal = read_with_gdal(kReal + "/hugo_site.asc");
  ASSERT_EQ(gdal.cells.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(gdal.valid[i], !std::isnan(x[i])) << i;
    if (gdal.valid[i]) {
      ASSERT_EQ(gdal.cells[i], x[i]) << i;
    }
  }
  EXPECT_GT(gz->resident_bytes(16), a.width * 16 * sizeof(double) - 1);
  // Going back up parses the file again from the top: the same cells.
  std::vector<double> again(a.width);
  gz->read_window(0, 0, static_cast<std::uint32_t>(a.width), 1, again.data());
  for (std::size_t i = 0; i < again.size(); ++i) {
    ASSERT_EQ(std::isnan(again[i]), std::isnan(x[i])) << i;
    if (!std::isnan(x[i])) {
      ASSERT_EQ(again[i], x[i]) << i;
    }
  }
}

namespace {

std::string gzip_text(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string plain = dir.file(name);
  {
    std::ofstream out(plain);
    out << text;
  }
  const std::string command = "gzip -f '" + plain + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return plain + ".gz";
}

}  // namespace

TEST(GzipAsciiGrid, TypesCentersAndBadFiles) {
  TempDir dir;
  const std::string floats = gzip_text(dir, "f.asc",
                                       "NCOLS 3\nNROWS 2\nXLLCENTER 10.5\nYLLCENTER 20.5\nCELLSIZE 1\n"
                                       "NODATA_VALUE -1\n1.5 2 -1\n4 5 6\n");
  auto reader = RasterReader::open(floats);
  EXPECT_EQ(reader->info().type, CellType::Float32);
  EXPECT_EQ(reader->info().geotransform, (std::array<double, 6>{10.0, 1.0, 0.0, 22.0, 0.0, -1.0}));
  std::vector<double> cells(6);
  reader->read_window(0, 0, 3, 2, cells.data());
  EXPECT_EQ(cells[0], 1.5);
  EXPECT_TRUE(std::isnan(cells[2]));
  EXPECT_EQ(cells[5], 6.0);

  const std::string big = gzip_text(dir, "b.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n3000000000 1\n");
  EXPECT_EQ(RasterReader::open(big)->info().type, CellType::Float64) << "integers beyond Int32 must not wrap";

  const std::string short_file =
      gzip_text(dir, "s.asc", "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5\n");
  EXPECT_THROW(RasterReader::open(short_file), Error);
  const std::string no_size = gzip_text(dir, "n.asc", "ncols 3\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
  EXPECT_THROW(RasterReader::open(no_size), Error);
  const std::string junk = gzip_text(dir, "j.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 x\n");
  EXPECT_THROW(RasterReader::open(junk), Error);  // every token is checked at open

  // A truncated gzip stream.
  std::ifstream in(kReal + "/hugo_site.asc.gz", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = dir.file("cut.asc.gz");
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  EXPECT_THROW(RasterReader::open(cut), Error);
}

// ---- readers, budgets, cancellation, publication ---------------------------------------------

TEST(RasterReader, MissingAndForeignFilesAreOneLineErrors) {
  TempDir dir;
  std::ofstream(dir.file("garbage.tzs")) << "garbage\n";
  try {
    RasterReader::open(dir.file("garbage.tzs"));
    ADD_FAILURE() << "garbage opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not recognized"), std::string::npos) << "GDAL's reason is kept: " << e.what();
  }
  for (const std::string& path : {dir.file("missing.tif"), std::string(TERRAZO_DATASETS) + "/real/Mega_divide.hdr",
                                  dir.file("garbage.tzs")}) {
    try {
      RasterReader::open(path);
      ADD_FAILURE() << path << " opened";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(Import, RetilesAStoreAndOpensAsTileStore) {
  TempDir dir;
  MemoryBudget budget(32ull << 20);
  const ImportOptions first = import_options(kReal + "/pysheds_dem.tif", dir.file("a.tzs"), 64);
  run_import(first, budget, Progress::silent());
  const ImportOptions second = import_options(first.output, dir.file("b.tzs"), 16);
  run_import(second, budget, Progress::silent());
  const ExportOptions exp = export_options(second.output, dir.file("b.tif"));
  run_export(exp, budget, Progress::silent());
  expect_same_raster(read_with_gdal(first.input), read_with_gdal(exp.output), "retiled");

  RunDirectory run(dir.path());
  auto same = open_as_tile_store(first.output, run, 0, budget, Progress::silent());
  EXPECT_EQ(same->tile(), 64u);
  auto imported = open_as_tile_store(first.input, run, 32, budget, Progress::silent());
  EXPECT_EQ(imported->tile(), 32u);
  EXPECT_EQ(imported->info().width, 367u);
  auto retiled = open_as_tile_store(first.output, run, 128, budget, Progress::silent());
  EXPECT_EQ(retiled->tile(), 128u);
  // What stays reserved is the three open stores' tile indexes, given back as they close.
  EXPECT_GT(budget.reserved(), 0u);
  same.reset();
  imported.reset();
  retiled.reset();
  EXPECT_EQ(budget.reserved(), 0u);
}

TEST(Export, AnyRasterStraightToGeoTiff) {
  TempDir dir;
  MemoryBudget budget(32ull << 20);
  const ExportOptions exp = export_options(kReal + "/Mega_divide.bil", dir.file("mega.tif"), 512);
  run_export(exp, budget, Progress::silent());
  const GdalRaster back = read_with_gdal(exp.output);
  expect_same_raster(read_with_gdal(exp.input), back, "ENVI to GeoTIFF");
  EXPECT_EQ(back.block_x, 512);
}

TEST(Import, TooSmallBudgetIsAClearErrorUpFront) {
  TempDir dir;
  MemoryBudget budget(64ull << 10);
  const ImportOptions options = import_options(kReal + "/rhine_elv0.tif", dir.file("r.tzs"), 0);
  try {
    run_import(options, budget, Progress::silent());
    ADD_FAILURE() << "import ran in 64 KiB";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget too small"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(file_exists(options.output));
  EXPECT_TRUE(partial_files_of(options.output).empty());
  EXPECT_EQ(budget.reserved(), 0u);
}

// A progress that records every event in `events` and cancels the run at the first event whose done
// reaches `cancel_at` (never, by default).
Progress recording(std::vector<ProgressEvent>& events,
                   std::uint64_t cancel_at = std::numeric_limits<std::uint64_t>::max()) {
  return Progress([&events, cancel_at](const ProgressEvent& event) {
    events.push_back(event);
    return event.done < cancel_at;
  });
}

TEST(Import, CancelledRunPublishesNothing) {
  TempDir dir;
  MemoryBudget budget(32ull << 20);
  std::vector<ProgressEvent> events;
  Progress progress = recording(events, 2);
  const ImportOptions options = import_options(kReal + "/N44W072.hgt", dir.file("n.tzs"), 64);
  EXPECT_THROW(run_import(options, budget, progress), Cancelled);
  EXPECT_FALSE(file_exists(options.output));
  EXPECT_TRUE(partial_files_of(options.output).empty());
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.front().done, 0u);
  EXPECT_EQ(events.front().total, (1201u + 63) / 64);
  EXPECT_EQ(events.front().phase, "import");
}

TEST(Import, ProgressRunsFromZeroToOne) {
  TempDir dir;
  MemoryBudget budget(32ull << 20);
  std::vector<ProgressEvent> events;
  Progress progress = recording(events);
  const ImportOptions options = import_options(kReal + "/west_bijou_gully.asc", dir.file("w.tzs"), 16);
  run_import(options, budget, progress);
  ASSERT_EQ(events.size(), 1u + (89 + 15) / 16);
  EXPECT_EQ(events.front().done, 0u);
  EXPECT_EQ(events.back().done, events.back().total);
  EXPECT_EQ(events.back().cells, 43u * 89u);
}

TEST(Import, RefusesBadArguments) {
  TempDir dir;
  MemoryBudget budget(32ull << 20);
  ImportOptions options = import_options(kReal + "/pysheds_dem.tif", dir.file("p.tzs"), 100);
  EXPECT_THROW(run_import(options, budget, Progress::silent()), UsageError);
  options.tile = 64;
  options.output = options.input;
  EXPECT_THROW(run_import(options, budget, Progress::silent()), UsageError);
}

TEST(GeoTiffWriter, UnfinishedWriterLeavesNothingAndRangesAreChecked) {
  TempDir dir;
  RasterInfo georef;
  const std::string path = dir.file("o.tif");
  {
    // Cells are converted on the encoder threads: a value the type cannot hold is an Error of a
    // later write_window or of finish(), and nothing is published.
    GeoTiffWriter writer(path, 40, 30, CellType::Int16, georef, true, -9999.0, 16);
    std::vector<double> cells(40 * 30, 7.0);
    writer.write_window(0, 0, 40, 16, cells.data());
    cells[5] = 40000.0;
    EXPECT_THROW(
        {
          writer.write_window(0, 16, 40, 14, cells.data());
          writer.finish();
        },
        Error);
    EXPECT_EQ(partial_files_of(path).size(), 1u);
  }
  EXPECT_TRUE(partial_files_of(path).empty());
  EXPECT_FALSE(file_exists(path));
  std::vector<double> nan(256, std::numeric_limits<double>::quiet_NaN());
  {
    GeoTiffWriter bytes(dir.file("b.tif"), 16, 16, CellType::UInt8, georef, false, 0.0, 16);
    EXPECT_THROW(
        {
          bytes.write_window(0, 0, 16, 16, nan.data());
          bytes.finish();
        },
        Error);
  }
  GeoTiffWriter outside(dir.file("c.tif"), 16, 16, CellType::UInt8, georef, false, 0.0, 16);
  EXPECT_THROW(outside.write_window(8, 8, 16, 16, nan.data()), Error);
  EXPECT_FALSE(file_exists(dir.file("b.tif")));
}

TEST(GeoTiffWriter, SmallCacheWritesEachBlockOnce) {
  // Wide windows through a GDAL cache far smaller than one strip of blocks: every block must still
  // be compressed and stored once, so the file is byte-for-byte the size written with a big cache.
  TempDir dir;
  RasterInfo georef;
  const std::uint64_t width = 8192, height = 64;
  std::vector<double> cells(width * height);
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<double>((i * 2654435761u) % 100000) * 0.25;
  std::uint64_t sizes[2] = {0, 0};
  const std::uint64_t caches[2] = {64ull << 10, 64ull << 20};
  for (int k = 0; k < 2; ++k) {
    MemoryBudget budget(128ull << 20);
    GdalCacheLimit cache(budget, caches[k]);
    const std::string path = dir.file("w" + std::to_string(k) + ".tif");
    GeoTiffWriter writer(path, width, height, CellType::Float32, georef, true, -9999.0, 16);
    for (std::uint64_t y0 = 0; y0 < height; y0 += 32)
      writer.write_window(0, y0, static_cast<std::uint32_t>(width), 32, cells.data() + y0 * width);
    writer.finish();
    sizes[k] = writer.bytes_written();
  }
  EXPECT_GT(sizes[1], 0u);
  EXPECT_EQ(sizes[0], sizes[1]);
}
