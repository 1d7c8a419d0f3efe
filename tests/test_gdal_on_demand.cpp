// tests/test_gdal_on_demand.cpp: what lets a run leave GDAL unloaded (docs/architecture.md "GDAL
// loaded on demand"), each against GDAL itself:
//  - SrtmHgtReader: io/gdal/srtm_hgt_reader.h gives GDAL's SRTMHGT driver's size, type, nodata,
//    geotransform (bit for bit), CRS and cells, on the shipped tile and on generated ones in every
//    hemisphere, and leaves other names, sizes and tiles with a side file to GDAL;
//  - GeoTiffHeader: GeoTiffWriter's file with the header written by libtiff (io/gdal/geotiff_header.h)
//    is the same bytes as with GDAL's header, for every cell type, codec, georeferencing and nodata
//    value it takes; what it declines it leaves to GDAL without writing anything;
//  - PlainGeoTiffReader: io/gdal/plain_geotiff_reader.h gives GDAL's info and cells for terrazo's outputs
//    of every cell type, codec and georeferencing and for `gen`'s rasters, leaves to GDAL what only
//    GDAL reads right (strips, bands, overviews, scale, rotation, other CRSs, side files), and
//    refuses a truncated file;
//  - GdalOnDemand: the terrazo program runs `sssp` and `mst` on an SRTM tile and `sssp` on its own
//    output without loading libgdal (the dynamic loader's own log, LD_DEBUG=libs), and loads it for
//    a GeoTIFF in another CRS.
#include <gtest/gtest.h>

#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#include <tiffio.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/gdal/gdal_cell_types.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "io/gdal/geotiff_header.h"
#include "io/gdal/geotiff_options.h"
#include "io/gdal/plain_geotiff_reader.h"
#include "io/gdal/srtm_hgt_reader.h"
#include "io/gdal/tiff_block_writer.h"
#include "io/store/cell_values.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using testing::TempDir;

const std::string kShippedTile = std::string(TERRAZO_DATASETS) + "/real/N44W072.hgt";

// What GDAL reads from `path`: info as GdalRasterReader fills it, every cell as the file holds it.
struct GdalRaster {
  RasterInfo info;
  std::string driver;  // GDAL's short name
  std::vector<std::uint8_t> cells;
};

GdalRaster gdal_raster(const std::string& path) {
  ensure_gdal();
  GdalRaster r;
  GDALDatasetH ds = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
  if (!ds) {
    ADD_FAILURE() << "GDAL cannot open " << path;
    return r;
  }
  GDALRasterBandH band = GDALGetRasterBand(ds, 1);
  r.driver = GDALGetDriverShortName(GDALGetDatasetDriver(ds));
  EXPECT_TRUE(cell_type_of(GDALGetRasterDataType(band), &r.info.type));
  r.info.width = static_cast<std::uint64_t>(GDALGetRasterXSize(ds));
  r.info.height = static_cast<std::uint64_t>(GDALGetRasterYSize(ds));
  int has_nodata = 0;
  const double nodata = GDALGetRasterNoDataValue(band, &has_nodata);
  r.info.has_nodata = has_nodata != 0;
  r.info.nodata = r.info.has_nodata ? nodata : 0.0;
  double gt[6];
  r.info.has_geotransform = GDALGetGeoTransform(ds, gt) == CE_None;
  if (r.info.has_geotransform) std::copy(gt, gt + 6, r.info.geotransform.begin());
  r.info.crs_wkt = GDALGetProjectionRef(ds);
  r.cells.resize(r.info.cells() * cell_type_size(r.info.type));
  EXPECT_EQ(GDALRasterIO(band, GF_Read, 0, 0, static_cast<int>(r.info.width), static_cast<int>(r.info.height),
                         r.cells.data(), static_cast<int>(r.info.width), static_cast<int>(r.info.height),
                         gdal_type_of(r.info.type), 0, 0),
            CE_None);
  GDALClose(ds);
  return r;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// `reader` (one of the readers without GDAL, opened on `path`) against GDAL's view of `path`, whose
// driver must be `format`: info, every cell as the file holds it, `windows` random windows as doubles.
void expect_reader_equals_gdal(std::unique_ptr<RasterReader> reader, const std::string& path, const std::string& format,
                               const std::string& what, int windows, std::mt19937_64& rng) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(reader) << "not taken by the " << format << " reader";
  const GdalRaster gdal = gdal_raster(path);
  const RasterInfo& info = reader->info();
  EXPECT_EQ(gdal.driver, format);
  EXPECT_EQ(reader->format(), format);
  EXPECT_EQ(info.width, gdal.info.width);
  EXPECT_EQ(info.height, gdal.info.height);
  EXPECT_EQ(info.type, gdal.info.type);
  EXPECT_EQ(info.has_nodata, gdal.info.has_nodata);
  EXPECT_TRUE(same_bits(info.nodata, gdal.info.nodata)) << info.nodata << " vs GDAL's " << gdal.info.nodata;
  EXPECT_EQ(info.has_geotransform, gdal.info.has_geotransform);
  for (int i = 0; i < 6 && info.has_geotransform; ++i)
    EXPECT_TRUE(same_bits(info.geotransform[i], gdal.info.geotransform[i]))
        << "geotransform[" << i << "] " << info.geotransform[i] << " vs GDAL's " << gdal.info.geotransform[i];
  EXPECT_EQ(info.crs_wkt, gdal.info.crs_wkt);

  const std::uint64_t size = cell_type_size(info.type);
  std::vector<std::uint8_t> cells(info.cells() * size);
  ASSERT_TRUE(reader->read_window_cells(0, 0, static_cast<std::uint32_t>(info.width),
                                        static_cast<std::uint32_t>(info.height), cells.data(), info.width));
  EXPECT_TRUE(cells == gdal.cells) << "the cells differ from GDAL's";
  EXPECT_EQ(reader->bytes_read(), info.cells() * size);

  const NodataRule rule(gdal.info);
  std::vector<double> all(info.cells());
  cells_to_doubles(gdal.cells.data(), info.cells(), rule, all.data());
  for (int k = 0; k < windows; ++k) {
    const std::uint64_t x0 = rng() % info.width, y0 = rng() % info.height;
    const auto w = static_cast<std::uint32_t>(1 + rng() % (info.width - x0));
    const auto h = static_cast<std::uint32_t>(1 + rng() % (info.height - y0));
    std::vector<double> window(static_cast<std::size_t>(w) * h);
    reader->read_window(x0, y0, w, h, window.data());
    std::uint64_t differ = 0;
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) {
        const double want = all[(y0 + y) * info.width + x0 + x], got = window[static_cast<std::size_t>(y) * w + x];
        differ += !(same_bits(want, got) || (std::isnan(want) && std::isnan(got)));
      }
    EXPECT_EQ(differ, 0u) << "window " << w << "x" << h << " at (" << x0 << ", " << y0 << ")";
  }
}

// open_srtm_hgt(path) against GDAL's SRTMHGT driver.
void expect_srtm_reader_equals_gdal(const std::string& path, std::mt19937_64& rng) {
  expect_reader_equals_gdal(open_srtm_hgt(path), path, "SRTMHGT", path, 20, rng);
}

// A tile of `side` x `side` random big-endian Int16 cells, some -32768 (nodata) and the extremes.
void write_tile(const std::string& path, std::uint64_t side, std::mt19937_64& rng) {
  std::string bytes(side * side * 2, '\0');
  std::uniform_int_distribution<int> value(-32768, 32767);
  for (std::uint64_t i = 0; i < side * side; ++i) {
    int v = value(rng);
    if (i % 97 == 0) v = -32768;
    if (i % 101 == 0) v = 32767;
    const auto u = static_cast<std::uint16_t>(static_cast<std::int16_t>(v));
    bytes[2 * i] = static_cast<char>(u >> 8);
    bytes[2 * i + 1] = static_cast<char>(u & 0xff);
  }
  testing::spit(path, bytes);
}

TEST(SrtmHgtReader, ShippedTileEqualsGdal) {
  std::mt19937_64 rng(1);
  expect_srtm_reader_equals_gdal(kShippedTile, rng);
  // RasterReader::open takes the tile through it, and the CRS comes with it.
  bool crs_left_out = true;
  MemoryBudget budget(1ull << 30);
  auto reader = RasterReader::open_without_crs(kShippedTile, 0, RasterReader::kChooseBand, &budget, &crs_left_out);
  EXPECT_FALSE(crs_left_out);
  EXPECT_EQ(reader->info().crs_wkt, kSrtmWgs84Wkt);
  EXPECT_EQ(RasterReader::open_cells(kShippedTile, 1)->info().crs_wkt, kSrtmWgs84Wkt);
}

TEST(SrtmHgtReader, GeneratedTilesInEveryHemisphereEqualGdal) {
  TempDir dir;
  std::mt19937_64 rng(7);
  for (const char* name : {"N00E000.hgt", "S45W123.hgt", "s01e179.hgt", "N89W180.hgt", "S90E017.HGT"}) {
    const std::string path = dir.path() + "/" + name;
    write_tile(path, 1201, rng);
    expect_srtm_reader_equals_gdal(path, rng);
  }
  const std::string one_arc_second = dir.path() + "/N27E086.hgt";
  write_tile(one_arc_second, 3601, rng);
  expect_srtm_reader_equals_gdal(one_arc_second, rng);
}

TEST(SrtmHgtReader, OtherNamesSizesAndSideFilesGoToGdal) {
  TempDir dir;
  std::mt19937_64 rng(3);
  const std::string good = dir.path() + "/N10E020.hgt";
  write_tile(good, 1201, rng);
  EXPECT_TRUE(open_srtm_hgt(good));
  for (const char* name : {"N10E020.SRTMGL1.hgt", "X10E020.hgt", "N10E02.hgt", "N1AE020.hgt", "N10E020.hgt.bak"}) {
    const std::string other = dir.path() + "/" + name;
    testing::spit(other, testing::slurp(good));
    EXPECT_FALSE(open_srtm_hgt(other)) << name;
  }
  const std::string short_tile = dir.path() + "/N11E020.hgt";
  testing::spit(short_tile, testing::slurp(good).substr(0, 1201 * 1200 * 2));
  EXPECT_FALSE(open_srtm_hgt(short_tile));
  EXPECT_FALSE(open_srtm_hgt(dir.path() + "/N12E020.hgt"));  // no such file: GDAL says why
  testing::spit(good + ".aux.xml", "<PAMDataset></PAMDataset>\n");
  EXPECT_FALSE(open_srtm_hgt(good));
}

// ---- GeoTiffHeader ------------------------------------------------------------------------------

RasterInfo srtm_georef() {
  RasterInfo g;
  g.has_geotransform = true;
  g.geotransform = {-72.00041666666667, 0.0008333333333333334, 0.0, 45.000416666666666, 0.0, -0.0008333333333333334};
  g.crs_wkt = kSrtmWgs84Wkt;
  return g;
}

RasterInfo projected_georef() { return testing::georef("", 500000.0, 4100000.0, 30.0, -30.0); }

// A raster of `type` written through GeoTiffWriter, its header by libtiff or by GDAL.
std::string write_raster(const std::string& path, CellType type, std::uint64_t width, std::uint64_t height,
                         const RasterInfo& georef, bool has_nodata, double nodata, const std::vector<std::string>& co,
                         bool gdal_header, std::uint64_t seed) {
  GeoTiffOptions options;
  options.creation = co;
  options.threads = 2;
  options.gdal_header = gdal_header;
  std::mt19937_64 rng(seed);
  std::vector<double> cells(width * height);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (double& c : cells) {
    c = std::floor(unit(rng) * 200);
    if (!cell_type_is_integer(type)) c += unit(rng);
    if (has_nodata && unit(rng) < 0.1) c = std::numeric_limits<double>::quiet_NaN();
  }
  GeoTiffWriter writer(path, width, height, type, georef, has_nodata, nodata, 64, options);
  writer.write_window(0, 0, static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), cells.data());
  writer.finish();
  return testing::slurp(path);
}

// Whether GeoTiffWriter's header for these would be libtiff's: write_geotiff_header on the format
// and options the writer derives (block_writer_format).
bool header_written_here(const std::string& path, CellType type, std::uint64_t width, std::uint64_t height,
                         const RasterInfo& georef, bool has_nodata, double nodata, const std::vector<std::string>& co) {
  GeoTiffOptions options;
  options.creation = co;
  options.threads = 2;
  const auto creation = geotiff_creation_options(type, 64, options, path);
  TiffBlockFormat format;
  if (!block_writer_format(type, 64, creation, &format)) return false;
  const bool written = write_geotiff_header(path, width, height, format, georef, has_nodata, nodata, creation);
  std::remove(path.c_str());
  return written;
}

TEST(GeoTiffHeader, SameBytesAsGdalsHeader) {
  TempDir dir;
  const CellType types[] = {CellType::UInt8,  CellType::Int16,   CellType::UInt16, CellType::Int32,
                            CellType::UInt32, CellType::Float32, CellType::Float64};
  const std::vector<std::vector<std::string>> codecs = {
      {}, {"COMPRESS=DEFLATE"}, {"COMPRESS=LZW"}, {"COMPRESS=NONE"}, {"COMPRESS=ZSTD", "PREDICTOR=1"}};
  const RasterInfo georefs[] = {srtm_georef(), projected_georef(), RasterInfo{}};
  std::uint64_t cases = 0;
  for (const CellType type : types) {
    const bool is_float = !cell_type_is_integer(type);
    const std::vector<std::pair<bool, double>> nodatas = {
        {false, 0.0}, {true, type == CellType::UInt8 ? 255.0 : 7.0}, {true, is_float ? 0.1 : 0.0},
        {is_float, std::numeric_limits<double>::quiet_NaN()}};
    for (std::size_t c = 0; c < codecs.size(); ++c)
      for (std::size_t g = 0; g < 3; ++g)
        for (const auto& [has_nodata, nodata] : nodatas) {
          if (!has_nodata && nodata != 0.0) continue;
          const std::string what = std::string(to_string(type)) + " codec " + std::to_string(c) + " georef " +
                                    std::to_string(g) + " nodata " + (has_nodata ? std::to_string(nodata) : "none");
          const auto width = 70 + cases % 90, height = 40 + cases % 70;
          const std::string here = write_raster(dir.path() + "/libtiff.tif", type, width, height, georefs[g],
                                                has_nodata, nodata, codecs[c], false, cases);
          const std::string gdal = write_raster(dir.path() + "/gdal.tif", type, width, height, georefs[g],
                                                has_nodata, nodata, codecs[c], true, cases);
          EXPECT_TRUE(header_written_here(dir.path() + "/probe.tif", type, width, height, georefs[g], has_nodata,
                                          nodata, codecs[c]))
              << what << ": libtiff did not write the header, so both files are GDAL's";
          EXPECT_FALSE(here.empty()) << what;
          EXPECT_TRUE(here == gdal) << what << ": " << here.size() << " bytes vs GDAL's " << gdal.size();
          ++cases;
        }
  }
  EXPECT_GE(cases, 300u);
}

TEST(GeoTiffHeader, TakesTheRastersOfSmallRunsAndDeclinesTheRestWritingNothing) {
  TempDir dir;
  const std::string path = dir.path() + "/h.tif";
  TiffBlockFormat f;
  f.block = 256;
  f.bits_per_sample = 64;
  f.sample_format = 3;
  f.compression = COMPRESSION_ZSTD;
  f.predictor = 3;
  const auto options = geotiff_creation_options(CellType::Float64, 256, GeoTiffOptions{}, path);
  EXPECT_TRUE(write_geotiff_header(path, 1201, 1201, f, srtm_georef(), true, -1.0, options));
  EXPECT_TRUE(testing::slurp(path).size() > 0);
  std::remove(path.c_str());

  auto declined = [&](const RasterInfo& georef, std::uint64_t width, std::uint64_t height,
                      const std::vector<std::pair<std::string, std::string>>& co, const char* what) {
    EXPECT_FALSE(write_geotiff_header(path, width, height, f, georef, true, -1.0, co)) << what;
    EXPECT_TRUE(testing::slurp(path).empty()) << what << ": something was written";
  };
  RasterInfo mercator = projected_georef();
  mercator.crs_wkt =
      "PROJCS[\"WGS 84 / Pseudo-Mercator\",GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,"
      "298.257223563]],PRIMEM[\"Greenwich\",0],UNIT[\"degree\",0.0174532925199433]],PROJECTION[\"Mercator_1SP\"],"
      "UNIT[\"metre\",1],AUTHORITY[\"EPSG\",\"3857\"]]";
  declined(mercator, 100, 100, options, "a CRS outside the table");
  RasterInfo rotated = projected_georef();
  rotated.geotransform[2] = 0.5;
  declined(rotated, 100, 100, options, "a rotated geotransform");
  RasterInfo south_up = projected_georef();
  south_up.geotransform[5] = 30.0;
  declined(south_up, 100, 100, options, "a south-up geotransform");
  declined(projected_georef(), 20000, 20000, options, "3.2 GB of blocks (BigTIFF is GDAL's call)");
  auto with = [&](const char* key, const char* value) {
    auto co = options;
    co.emplace_back(key, value);
    return co;
  };
  declined(projected_georef(), 100, 100, with("BIGTIFF", "YES"), "BIGTIFF=YES");
  declined(projected_georef(), 100, 100, with("PHOTOMETRIC", "MINISWHITE"), "another creation option");
  declined(projected_georef(), 100, 100, with("BLOCKXSIZE", "512"), "another block size");
}

TEST(GeoTiffHeader, NodataTextAsGdalFormatsIt) {
  EXPECT_EQ(gdal_nodata_text(-1.0), "-1");
  EXPECT_EQ(gdal_nodata_text(0.1), "0.100000000000000006");
  EXPECT_EQ(gdal_nodata_text(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(gdal_nodata_text(-32768), "-32768");
  EXPECT_EQ(gdal_nodata_text(4294967295.0), "4294967295");
}

TEST(GeoTiffHeader, DefaultCompressMatchesGdal) {
  ensure_gdal();
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  ASSERT_TRUE(driver);
  const char* list = GDALGetMetadataItem(driver, GDAL_DMD_CREATIONOPTIONLIST, nullptr);
  ASSERT_TRUE(list);
  EXPECT_EQ(default_geotiff_compress(), std::strstr(list, "<Value>ZSTD</Value>") ? "ZSTD" : "DEFLATE");
}

// ---- PlainGeoTiffReader --------------------------------------------------------------------------

RasterInfo mercator_georef() {
  RasterInfo g = projected_georef();
  g.crs_wkt = geotiff_crs_table()[1].wkt;
  return g;
}

TEST(PlainGeoTiffReader, TerrazoOutputsOfEveryTypeCodecAndGeoreferencingEqualGdal) {
  TempDir dir;
  std::mt19937_64 rng(5);
  const CellType types[] = {CellType::UInt8,  CellType::Int16,   CellType::UInt16, CellType::Int32,
                            CellType::UInt32, CellType::Float32, CellType::Float64};
  const std::vector<std::vector<std::string>> codecs = {{}, {"COMPRESS=DEFLATE"}, {"COMPRESS=LZW"}, {"COMPRESS=NONE"}};
  const RasterInfo georefs[] = {srtm_georef(), mercator_georef(), projected_georef(), RasterInfo{}};
  int n = 0;
  for (const CellType type : types)
    for (std::size_t c = 0; c < codecs.size(); ++c)
      for (std::size_t g = 0; g < 4; ++g) {
        const bool is_float = !cell_type_is_integer(type);
        const bool has_nodata = n % 3 != 0;
        const double nodata = is_float && n % 3 == 2 ? std::numeric_limits<double>::quiet_NaN()
                              : type == CellType::UInt8 ? 255.0 : 7.0;
        const std::string path = dir.path() + "/r" + std::to_string(n) + ".tif";
        // Half the files with GDAL's header, half with libtiff's: both are the reader's.
        write_raster(path, type, 50 + rng() % 150, 30 + rng() % 150, georefs[g], has_nodata, nodata, codecs[c],
                     n % 2 == 0, static_cast<std::uint64_t>(n));
        expect_reader_equals_gdal(open_plain_geotiff(path), path, "GTiff",
                                  std::string(to_string(type)) + " codec " + std::to_string(c) + " georef " +
                                      std::to_string(g),
                                  12, rng);
        ++n;
      }
}

TEST(PlainGeoTiffReader, GenRastersEqualGdal) {
  TempDir dir;
  std::mt19937_64 rng(9);
  for (const char* type : {"Byte", "Int16", "Float32", "Float64"}) {
    const std::string path = dir.path() + "/gen-" + type + ".tif";
    auto gen = testing::run_terrazo({"gen", "-q", "--width", "700", "--height", "333", "--type", type, "--seed", "4",
                                     "--nodata-holes", "0.05", "--tile", "128", path});
    ASSERT_EQ(gen.code, 0) << gen.err;
    expect_reader_equals_gdal(open_plain_geotiff(path), path, "GTiff", std::string("gen --type ") + type, 12, rng);
  }
}

TEST(PlainGeoTiffReader, TableCrsRoundTripsThroughGdal) {
  TempDir dir;
  for (const GeoTiffCrs& crs : geotiff_crs_table()) {
    SCOPED_TRACE(crs.ascii);
    RasterInfo g = projected_georef();
    g.crs_wkt = crs.wkt;
    const std::string path = dir.path() + "/crs.tif";
    write_raster(path, CellType::Float32, 40, 30, g, false, 0.0, {}, true, 1);  // GDAL's header
    EXPECT_EQ(gdal_raster(path).info.crs_wkt, crs.wkt) << "GDAL reads another WKT back";
    register_geotiff_tags();
    TIFF* tif = TIFFOpen(path.c_str(), "r");
    ASSERT_TRUE(tif);
    std::uint16_t count = 0;
    std::uint16_t* keys = nullptr;
    double* doubles = nullptr;
    char* ascii = nullptr;
    ASSERT_TRUE(TIFFGetField(tif, kGeoKeyDirectory, &count, &keys));
    EXPECT_EQ(std::vector<std::uint16_t>(keys, keys + count), crs.keys);
    const bool has_doubles = TIFFGetField(tif, kGeoDoubleParams, &count, &doubles);
    EXPECT_EQ(has_doubles ? std::vector<double>(doubles, doubles + count) : std::vector<double>(), crs.doubles);
    ASSERT_TRUE(TIFFGetField(tif, kGeoAsciiParams, &ascii));
    EXPECT_EQ(std::string(ascii), crs.ascii);
    TIFFClose(tif);
    std::remove(path.c_str());
  }
}

// A GeoTIFF made by GDAL with creation options and a step of its own before closing.
std::string gdal_made(const std::string& path, GDALDataType type, int bands, const std::vector<std::string>& co,
                      const std::function<void(GDALDatasetH)>& step) {
  ensure_gdal();
  CPLStringList options;
  for (const auto& kv : co) options.AddString(kv.c_str());
  GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), path.c_str(), 300, 200, bands, type, options.List());
  double gt[6] = {500000.0, 30.0, 0.0, 4100000.0, 0.0, -30.0};
  GDALSetGeoTransform(ds, gt);
  std::vector<float> cells(300 * 200, 5.0f);
  for (int b = 1; b <= bands; ++b)
    EXPECT_EQ(GDALRasterIO(GDALGetRasterBand(ds, b), GF_Write, 0, 0, 300, 200, cells.data(), 300, 200, GDT_Float32,
                           0, 0),
              CE_None);
  if (step) step(ds);
  GDALClose(ds);
  return path;
}

TEST(PlainGeoTiffReader, LeavesToGdalWhatOnlyGdalReadsRight) {
  TempDir dir;
  const std::vector<std::string> tiled = {"TILED=YES", "BLOCKXSIZE=64", "BLOCKYSIZE=64"};
  const std::string plain = gdal_made(dir.path() + "/plain.tif", GDT_Float32, 1, tiled, nullptr);
  EXPECT_TRUE(open_plain_geotiff(plain)) << "the control case is not taken: the checks below are blind";
  struct Case {
    const char* what;
    std::string path;
  };
  std::vector<Case> cases = {
      {"stripped", gdal_made(dir.path() + "/strips.tif", GDT_Float32, 1, {}, nullptr)},
      {"three bands", gdal_made(dir.path() + "/rgb.tif", GDT_Byte, 3, tiled, nullptr)},
      {"Int8", gdal_made(dir.path() + "/int8.tif", GDT_Byte, 1,
                         {"TILED=YES", "BLOCKXSIZE=64", "BLOCKYSIZE=64", "PIXELTYPE=SIGNEDBYTE"}, nullptr)},
      {"scale and offset (GDAL_METADATA)", gdal_made(dir.path() + "/scaled.tif", GDT_Float32, 1, tiled,
                                                     [](GDALDatasetH ds) {
                                                       GDALSetRasterScale(GDALGetRasterBand(ds, 1), 2.0);
                                                     })},
      {"a rotated geotransform", gdal_made(dir.path() + "/rotated.tif", GDT_Float32, 1, tiled,
                                           [](GDALDatasetH ds) {
                                             double gt[6] = {500000.0, 30.0, 1.0, 4100000.0, 1.0, -30.0};
                                             GDALSetGeoTransform(ds, gt);
                                           })},
      {"another CRS", gdal_made(dir.path() + "/utm.tif", GDT_Float32, 1, tiled,
                                [](GDALDatasetH ds) {
                                  OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
                                  OSRImportFromEPSG(srs, 32633);
                                  GDALSetSpatialRef(ds, srs);
                                  OSRDestroySpatialReference(srs);
                                })},
      {"internal overviews", gdal_made(dir.path() + "/ovr.tif", GDT_Float32, 1, tiled,
                                       [](GDALDatasetH ds) {
                                         int level = 2;
                                         EXPECT_EQ(GDALBuildOverviews(ds, "NEAREST", 1, &level, 0, nullptr, nullptr, nullptr), CE_None);
                                       })},
  };
  // A sparse file: one block of it written.
  {
    const std::string sparse = dir.path() + "/sparse.tif";
    CPLStringList options;
    for (const char* kv : {"TILED=YES", "BLOCKXSIZE=64", "BLOCKYSIZE=64", "SPARSE_OK=TRUE"}) options.AddString(kv);
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), sparse.c_str(), 300, 200, 1, GDT_Float32, options.List());
    std::vector<float> block(64 * 64, 1.0f);
    EXPECT_EQ(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, 64, 64, block.data(), 64, 64, GDT_Float32, 0, 0),
              CE_None);
    GDALClose(ds);
    cases.push_back({"a sparse block", sparse});
  }
  for (const char* side : {".aux.xml", ".msk", ".tfw"}) {
    const std::string stem = dir.path() + "/side" + side;
    std::string path = gdal_made(stem + ".tif", GDT_Float32, 1, tiled, nullptr);
    const std::string side_file = std::string(side) == ".tfw" ? stem + ".tfw" : path + side;
    testing::spit(side_file, std::string(side) == ".tfw" ? "30\n0\n0\n-30\n500015\n4099985\n" : "x");
    cases.push_back({side, path});
  }
  for (const Case& c : cases) {
    EXPECT_FALSE(open_plain_geotiff(c.path)) << c.what << " was taken by the plain reader";
    if (std::string(c.what) == "Int8") {
      EXPECT_THROW(RasterReader::open(c.path, 1), Error) << "GDAL's reader in terrazo refuses Int8 cells";
    } else {
      EXPECT_NO_THROW(RasterReader::open(c.path, 1)) << c.what << ": GDAL's reader does not open it";
    }
  }
}

TEST(PlainGeoTiffReader, ATruncatedFileIsAnErrorNotCells) {
  TempDir dir;
  const std::string path = dir.path() + "/whole.tif";
  write_raster(path, CellType::Float64, 300, 300, projected_georef(), true, -1.0, {}, false, 3);
  const std::string bytes = testing::slurp(path);
  const std::string cut = dir.path() + "/cut.tif";
  testing::spit(cut, bytes.substr(0, bytes.size() - 5000));
  auto reader = open_plain_geotiff(cut);
  if (!reader) GTEST_SKIP() << "libtiff refused the truncated file at open: GDAL's reader reports it";
  std::vector<double> cells(300 * 300);
  EXPECT_THROW(reader->read_window(0, 0, 300, 300, cells.data()), Error);
}

// ---- GdalOnDemand: the program ------------------------------------------------------------------

// The run of `args`, with the dynamic loader reporting every library it loads (LD_DEBUG=libs).
testing::CliRun run_logging_libraries(const std::vector<std::string>& args) {
  ::setenv("LD_DEBUG", "libs", 1);
  auto run = testing::run_terrazo(args);
  ::unsetenv("LD_DEBUG");
  return run;
}

TEST(GdalOnDemand, SrtmTileRunsLeaveGdalUnloadedAndAGeoTiffInputLoadsIt) {
  if (!TERRAZO_LAZY_GDAL_ACTIVE) GTEST_SKIP() << "this build links GDAL at start-up (TERRAZO_LAZY_GDAL off)";
  TempDir dir;
  const std::string tile = dir.path() + "/N44W072.hgt";
  testing::spit(tile, testing::slurp(kShippedTile));
  const std::string cost = dir.path() + "/cost.tif", edges = dir.path() + "/edges.tif";
  auto sssp = run_logging_libraries({"sssp", "-q", "--source", "600,600", tile, cost});
  ASSERT_EQ(sssp.code, 0) << sssp.err.substr(sssp.err.size() > 2000 ? sssp.err.size() - 2000 : 0);
  EXPECT_TRUE(testing::contains(sssp.err, "libtiff")) << "the loader's log is not there";
  EXPECT_FALSE(testing::contains(sssp.err, "libgdal")) << "sssp on an SRTM tile loaded GDAL";
  EXPECT_FALSE(testing::contains(sssp.err, "libproj")) << "sssp on an SRTM tile loaded PROJ";
  auto mst = run_logging_libraries({"mst", "-q", tile, edges});
  ASSERT_EQ(mst.code, 0);
  EXPECT_FALSE(testing::contains(mst.err, "libgdal")) << "mst on an SRTM tile loaded GDAL";

  // GDAL reads the tile's georeferencing back from the cost raster.
  const GdalRaster cost_view = gdal_raster(cost);
  EXPECT_EQ(cost_view.info.crs_wkt, kSrtmWgs84Wkt);
  EXPECT_TRUE(same_bits(cost_view.info.geotransform[0], srtm_georef().geotransform[0]));

  // terrazo's own GeoTIFF output as INPUT is read without GDAL too (io/gdal/plain_geotiff_reader.h)...
  auto again = run_logging_libraries({"sssp", "-q", "--source", "600,600", cost, dir.path() + "/again.tif"});
  ASSERT_EQ(again.code, 0);
  EXPECT_FALSE(testing::contains(again.err, "libgdal")) << "sssp on terrazo's own GeoTIFF loaded GDAL";
  // ... and a GeoTIFF in a CRS outside the table loads GDAL.
  const std::string utm = dir.path() + "/utm.tif";
  ASSERT_EQ(testing::run_terrazo({"gen", "-q", "--width", "300", "--height", "200", "--crs", "EPSG:32633", utm}).code, 0);
  auto geotiff = run_logging_libraries({"sssp", "-q", "--source", "10,10", utm, dir.path() + "/utm-cost.tif"});
  ASSERT_EQ(geotiff.code, 0);
  EXPECT_TRUE(testing::contains(geotiff.err, "libgdal")) << "a UTM GeoTIFF did not load GDAL: the check is blind";
}

}  // namespace
}  // namespace terrazo
