// tests/test_output_options.cpp: the output flags of every raster-writing command (engine/commands/output_options.h,
// io/gdal/geotiff_options.h): --co KEY=VALUE over terrazo's defaults and sssp's --ot, each changing the
// file as asked (read back with GDAL: cell type, IMAGE_STRUCTURE COMPRESSION and PREDICTOR, the
// TIFF tiles), Float32 costs within the documented rounding of the Float64 default, bad values
// refused with exit 2 and one line, and the --help text of each command (suite OutputOptions).
#include <gtest/gtest.h>

#include <gdal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "engine/commands/export_command.h"
#include "engine/commands/gen_command.h"
#include "engine/commands/mst_command.h"
#include "engine/commands/output_options.h"
#include "engine/commands/sssp.h"
#include "engine/commands/sssp_command.h"
#include "kernels/common/error.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "io/gdal/geotiff_options.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const std::string kDem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";

struct Structure {
  GDALDataType type = GDT_Unknown;
  std::string compression, predictor;
  int block_x = 0, block_y = 0;
};

// What GDAL reads back from a written GeoTIFF.
Structure structure_of(const std::string& path) {
  ensure_gdal();
  GDALDatasetH ds = GDALOpen(path.c_str(), GA_ReadOnly);
  if (!ds) throw Error("cannot open '" + path + "'");
  Structure s;
  GDALRasterBandH band = GDALGetRasterBand(ds, 1);
  s.type = GDALGetRasterDataType(band);
  GDALGetBlockSize(band, &s.block_x, &s.block_y);
  const char* compression = GDALGetMetadataItem(ds, "COMPRESSION", "IMAGE_STRUCTURE");
  const char* predictor = GDALGetMetadataItem(ds, "PREDICTOR", "IMAGE_STRUCTURE");
  s.compression = compression ? compression : "NONE";
  s.predictor = predictor ? predictor : "1";
  GDALClose(ds);
  return s;
}

std::string value_of(const std::vector<std::pair<std::string, std::string>>& options, const std::string& key) {
  for (const auto& kv : options)
    if (kv.first == key) return kv.second;
  return "";
}

std::string usage_error_of(void (*parse)(const std::vector<std::string>&), const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}

void parse_sssp(const std::vector<std::string>& args) { parse_sssp_options(args); }
void parse_mst(const std::vector<std::string>& args) { parse_mst_options(args); }
void parse_export(const std::vector<std::string>& args) { parse_export_options(args); }
void parse_gen(const std::vector<std::string>& args) { parse_gen_options(args); }

using testing::CliRun;
using testing::run_cli;

TEST(OutputOptions, DefaultsAndOverrides) {
  GeoTiffOptions options;
  auto d = geotiff_creation_options(CellType::Float64, 256, options, "c.tif");
  EXPECT_EQ(value_of(d, "TILED"), "YES");
  EXPECT_EQ(value_of(d, "BLOCKXSIZE"), "256");
  EXPECT_EQ(value_of(d, "COMPRESS"), default_geotiff_compress());
  if (default_geotiff_compress() == "ZSTD") {
    EXPECT_EQ(value_of(d, "ZSTD_LEVEL"), "1");
  }
  EXPECT_EQ(value_of(d, "PREDICTOR"), "3");
  EXPECT_EQ(value_of(d, "NUM_THREADS"), "ALL_CPUS");  // threads 0: all cores
  EXPECT_EQ(value_of(geotiff_creation_options(CellType::UInt8, 256, options, "b.tif"), "PREDICTOR"), "1");
  EXPECT_EQ(value_of(geotiff_creation_options(CellType::UInt32, 256, options, "a.tif"), "PREDICTOR"), "2");
  {  // An output's own default predictor (clump's labels: 1), under the user's --co.
    GeoTiffOptions labels = options;
    labels.predictor = 1;
    EXPECT_EQ(value_of(geotiff_creation_options(CellType::UInt32, 256, labels, "l.tif"), "PREDICTOR"), "1");
    labels.creation = {"PREDICTOR=2"};
    EXPECT_EQ(value_of(geotiff_creation_options(CellType::UInt32, 256, labels, "l.tif"), "PREDICTOR"), "2");
  }
  options.threads = 1;
  EXPECT_EQ(value_of(geotiff_creation_options(CellType::Float64, 256, options, "c.tif"), "NUM_THREADS"), "");
  options.threads = 3;
  EXPECT_EQ(value_of(geotiff_creation_options(CellType::Float64, 256, options, "c.tif"), "NUM_THREADS"), "3");

  // A later KEY wins, keys compare case-insensitively, --co NUM_THREADS beats --threads.
  options.creation = {"compress=LZW", "COMPRESS=DEFLATE", "zlevel=1", "NUM_THREADS=2"};
  d = geotiff_creation_options(CellType::Float64, 256, options, "c.tif");
  EXPECT_EQ(value_of(d, "COMPRESS"), "DEFLATE");
  EXPECT_EQ(value_of(d, "ZLEVEL"), "1");
  EXPECT_EQ(value_of(d, "PREDICTOR"), "3");
  EXPECT_EQ(value_of(d, "NUM_THREADS"), "2");
  // A codec without a predictor drops the default one, and the default's level.
  options.creation = {"COMPRESS=NONE"};
  d = geotiff_creation_options(CellType::Float64, 256, options, "c.tif");
  EXPECT_EQ(value_of(d, "PREDICTOR"), "");
  EXPECT_EQ(value_of(d, "ZSTD_LEVEL"), "");
  // The floating-point predictor on integer cells names the file.
  options.creation = {"PREDICTOR=3"};
  EXPECT_NO_THROW(geotiff_creation_options(CellType::Float32, 256, options, "c.tif"));
  try {
    geotiff_creation_options(CellType::UInt8, 256, options, "back.tif");
    ADD_FAILURE() << "PREDICTOR=3 accepted on Byte cells";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("back.tif"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Byte"), std::string::npos) << e.what();
  }
}

TEST(OutputOptions, BadValuesAreOneUsageErrorNamingTheFlag) {
  const std::vector<std::string> sources = {"--source", "1,1", "in.tif", "c.tif"};
  auto with = [&](std::vector<std::string> flags) {
    flags.insert(flags.end(), sources.begin(), sources.end());
    return flags;
  };
  struct Case {
    std::vector<std::string> flags;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{"--ot", "Int16"}, "invalid --ot 'Int16': expected Float32 or Float64"},
      {{"--co", "COMPRESS=BOGUS"}, "invalid --co 'COMPRESS=BOGUS': "},
      {{"--co", "NOEQUALS"}, "invalid --co 'NOEQUALS': expected KEY=VALUE"},
      {{"--co", "=DEFLATE"}, "invalid --co '=DEFLATE': expected KEY=VALUE"},
      {{"--co", "NOSUCHKEY=1"}, "invalid --co 'NOSUCHKEY=1': "},
      {{"--co", "ZLEVEL=fast"}, "invalid --co 'ZLEVEL=fast': "},
      {{"--co", "PREDICTOR=7"}, "invalid --co 'PREDICTOR=7': PREDICTOR is 1"},
      {{"--co", "BLOCKXSIZE=512"}, "invalid --co 'BLOCKXSIZE=512': the block layout is terrazo's"},
  };
  for (const Case& c : cases) {
    const std::string message = usage_error_of(parse_sssp, with(c.flags));
    EXPECT_EQ(message.rfind(c.needle, 0), 0u) << c.flags[1] << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // GDAL's own reason follows: the value or the key it refused.
  EXPECT_NE(usage_error_of(parse_sssp, with({"--co", "COMPRESS=BOGUS"})).find("BOGUS"), std::string::npos);
  EXPECT_NE(usage_error_of(parse_sssp, with({"--co", "NOSUCHKEY=1"})).find("NOSUCHKEY"), std::string::npos);
  // The same parser in every raster-writing command.
  EXPECT_EQ(usage_error_of(parse_mst, {"--co", "COMPRESS=BOGUS", "in.tif", "e.tif"}).rfind("invalid --co", 0), 0u);
  EXPECT_EQ(usage_error_of(parse_export, {"--co", "NOEQUALS", "in.tzs", "o.tif"}).rfind("invalid --co", 0), 0u);
  EXPECT_EQ(usage_error_of(parse_gen, {"--width", "9", "--height", "9", "--co", "X", "g.tif"}).rfind("invalid --co", 0),
            0u);
  EXPECT_NE(usage_error_of(parse_gen, {"--width", "9", "--height", "9", "--co", "COMPRESS=LZW", "g.tzs"})
                .find("tile store"),
            std::string::npos);
  EXPECT_NE(usage_error_of(parse_sssp, {"--ot", "Float32", "--json", "--source", "1,1", "in.tif", "-"}).find("--ot"),
            std::string::npos);

  // Good values parse: case as typed is kept, --ot is case-insensitive.
  const SsspCommandOptions parsed =
      parse_sssp_options(with({"--ot", "float32", "--co", "compress=lzw", "--co", "PREDICTOR=2", "--threads", "3"}));
  EXPECT_EQ(parsed.sssp.cost_type, CellType::Float32);
  EXPECT_EQ(parsed.sssp.geotiff.creation, (std::vector<std::string>{"compress=lzw", "PREDICTOR=2"}));
  EXPECT_EQ(parsed.sssp.geotiff.threads, 3u);
  EXPECT_EQ(parse_sssp_options(sources).sssp.cost_type, CellType::Float64);
}

// sssp's three outputs: the default file, and --ot / --co changing exactly what they say.
TEST(OutputOptions, SsspFlagsChangeTheFiles) {
  testing::TempDir dir;
  auto run = [&](const std::string& name, CellType cost_type, std::vector<std::string> creation) {
    SsspOptions options;
    RunSettings options_run;
    options.input = kDem;
    options.output = dir.file(name + "_cost.tif");
    options.backlink = dir.file(name + "_back.tif");
    options.allocation = dir.file(name + "_alloc.tif");
    options.sources = {parse_source_point("100,100"), parse_source_point("300,50")};
    options.tile = 64;
    options_run.device = DeviceRequest::Cpu;
    options.cost_type = cost_type;
    options.geotiff.creation = std::move(creation);
    MemoryBudget budget(256ull << 20);
    terrazo::testing::run_with(run_sssp, options, options_run, budget, Progress::silent());
  };
  run("default", CellType::Float64, {});
  run("f32", CellType::Float32, {});
  run("lzw", CellType::Float64, {"COMPRESS=LZW", "PREDICTOR=2"});
  run("none", CellType::Float64, {"COMPRESS=NONE"});

  const Structure cost = structure_of(dir.file("default_cost.tif"));
  EXPECT_EQ(cost.type, GDT_Float64);
  EXPECT_EQ(cost.compression, default_geotiff_compress());
  EXPECT_EQ(cost.predictor, "3");
  EXPECT_EQ(cost.block_x, 64);
  EXPECT_EQ(structure_of(dir.file("default_back.tif")).type, GDT_Byte);
  EXPECT_EQ(structure_of(dir.file("default_alloc.tif")).predictor, "2");
  EXPECT_EQ(structure_of(dir.file("f32_cost.tif")).type, GDT_Float32);
  EXPECT_EQ(structure_of(dir.file("f32_cost.tif")).compression, default_geotiff_compress());
  EXPECT_EQ(structure_of(dir.file("f32_back.tif")).type, GDT_Byte);
  for (const char* file : {"lzw_cost.tif", "lzw_back.tif", "lzw_alloc.tif"}) {
    const Structure s = structure_of(dir.file(file));
    EXPECT_EQ(s.compression, "LZW") << file;
    EXPECT_EQ(s.predictor, "2") << file;
  }
  EXPECT_EQ(structure_of(dir.file("none_cost.tif")).compression, "NONE");
  EXPECT_EQ(structure_of(dir.file("none_cost.tif")).predictor, "1");

  // Values: identical under every compression; Float32 is the Float64 value rounded to nearest,
  // |f32 - f64| <= 2^-24 |f64|, and nodata stays nodata (-1 is exact in Float32).
  RasterInfo info;
  const std::vector<double> reference = testing::read_raster_values(dir.file("default_cost.tif"), &info);
  EXPECT_EQ(info.nodata, -1.0);
  const std::vector<double> f32 = testing::read_raster_values(dir.file("f32_cost.tif"), &info);
  EXPECT_EQ(info.type, CellType::Float32);
  EXPECT_EQ(info.nodata, -1.0);
  ASSERT_EQ(f32.size(), reference.size());
  std::uint64_t valid = 0, inexact = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (std::isnan(reference[i])) {
      EXPECT_TRUE(std::isnan(f32[i])) << i;
      continue;
    }
    ++valid;
    ASSERT_EQ(f32[i], static_cast<double>(static_cast<float>(reference[i]))) << i;
    ASSERT_LE(std::fabs(f32[i] - reference[i]), std::ldexp(std::fabs(reference[i]), -24)) << i;
    inexact += f32[i] != reference[i];
  }
  EXPECT_GT(valid, 100000u);
  EXPECT_GT(inexact, 0u);  // the test would prove nothing on values Float32 holds exactly
  for (const char* name : {"lzw", "none"}) {
    const std::vector<double> other = testing::read_raster_values(dir.file(std::string(name) + "_cost.tif"));
    ASSERT_EQ(other.size(), reference.size());
    for (std::size_t i = 0; i < reference.size(); ++i)
      ASSERT_TRUE(other[i] == reference[i] || (std::isnan(other[i]) && std::isnan(reference[i]))) << name << " " << i;
    const std::vector<double> back = testing::read_raster_values(dir.file(std::string(name) + "_back.tif"));
    EXPECT_EQ(back.size(), reference.size());
  }
}

// The other commands through the program: mst's edge raster, export, gen to .tif.
TEST(OutputOptions, MstExportGenTakeCo) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc";
  CliRun r = run_cli("mst -q --co COMPRESS=LZW " + dem + " " + dir.file("edges.tif"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(structure_of(dir.file("edges.tif")).compression, "LZW");
  EXPECT_EQ(structure_of(dir.file("edges.tif")).type, GDT_Byte);

  r = run_cli("gen -q --width 300 --height 200 --tile 64 --co COMPRESS=NONE " + dir.file("g.tif"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(structure_of(dir.file("g.tif")).compression, "NONE");
  EXPECT_EQ(structure_of(dir.file("g.tif")).type, GDT_Float32);
  r = run_cli("gen -q --width 300 --height 200 --tile 64 --type Int16 " + dir.file("g16.tif"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(structure_of(dir.file("g16.tif")).compression, default_geotiff_compress());
  EXPECT_EQ(structure_of(dir.file("g16.tif")).predictor, "2");

  r = run_cli("export -q --co COMPRESS=DEFLATE --co PREDICTOR=2 --co ZLEVEL=1 " + dir.file("g.tif") + " " +
                  dir.file("x.tif"),
              dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const Structure x = structure_of(dir.file("x.tif"));
  EXPECT_EQ(x.compression, "DEFLATE");
  EXPECT_EQ(x.predictor, "2");
  EXPECT_EQ(testing::read_raster_values(dir.file("x.tif")), testing::read_raster_values(dir.file("g.tif")));

  // PREDICTOR=3 on integer cells: a usage error at run time, one line, nothing published.
  r = run_cli("export -q --co PREDICTOR=3 " + dir.file("g16.tif") + " " + dir.file("y.tif"), dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("Int16"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::ifstream(dir.file("y.tif")).good());
}

// Compression on all cores (the default NUM_THREADS=ALL_CPUS, and 3 threads) through a GDAL cache far
// smaller than one strip of blocks, under each codec: every block is still compressed and stored
// once (a block flushed half-filled would be re-read, compressed again and appended), so the file
// is byte-for-byte the size written on one thread with a big cache.
TEST(OutputOptions, EachBlockCompressedOnceOnEveryThreadCount) {
  testing::TempDir dir;
  RasterInfo georef;
  const std::uint64_t width = 8192, height = 64;
  std::vector<double> cells(width * height);
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<double>((i * 2654435761u) % 100000) * 0.25;
  for (const std::vector<std::string>& creation :
       {std::vector<std::string>{}, std::vector<std::string>{"COMPRESS=DEFLATE"}, std::vector<std::string>{"COMPRESS=LZW"},
        std::vector<std::string>{"COMPRESS=ZSTD", "ZSTD_LEVEL=1"}}) {
    std::uint64_t reference = 0;
    for (const auto& [threads, cache_bytes] :
         {std::pair<unsigned, std::uint64_t>{1, 64ull << 20}, {0, 64ull << 10}, {3, 64ull << 10}}) {
      MemoryBudget budget(128ull << 20);
      GdalCacheLimit cache(budget, cache_bytes);
      GeoTiffOptions options;
      options.creation = creation;
      options.threads = threads;
      const std::string path = dir.file("w" + std::to_string(threads) + ".tif");
      GeoTiffWriter writer(path, width, height, CellType::Float64, georef, true, -1.0, 16, options);
      for (std::uint64_t y0 = 0; y0 < height; y0 += 32)
        writer.write_window(0, y0, static_cast<std::uint32_t>(width), 32, cells.data() + y0 * width);
      writer.finish();
      if (threads == 1) {
        reference = writer.bytes_written();
        continue;
      }
      EXPECT_EQ(writer.bytes_written(), reference) << (creation.empty() ? "default" : creation[0]) << ", " << threads;
      std::vector<double> back = testing::read_raster_values(path);
      ASSERT_EQ(back.size(), cells.size());
      EXPECT_TRUE(back == cells);
    }
  }
}

TEST(OutputOptions, CliRefusesBadValuesWithExit2AndOneLine) {
  testing::TempDir dir;
  const std::string out = dir.file("c.tif");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sssp -q --source 1,1 --ot Int16 " + kDem + " " + out, "--ot 'Int16'"},
      {"sssp -q --source 1,1 --co COMPRESS=BOGUS " + kDem + " " + out, "--co 'COMPRESS=BOGUS'"},
      {"sssp -q --source 1,1 --co NOEQUALS " + kDem + " " + out, "--co 'NOEQUALS'"},
      {"mst -q --co COMPRESS=BOGUS " + kDem + " " + out, "--co 'COMPRESS=BOGUS'"},
      {"export -q --co NOEQUALS " + kDem + " " + out, "--co 'NOEQUALS'"},
      {"gen -q --width 10 --height 10 --co ZSTD_LEVEL=x " + out, "--co 'ZSTD_LEVEL=x'"},
  };
  for (const auto& [args, needle] : cases) {
    const CliRun r = run_cli(args, dir);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_FALSE(std::ifstream(out).good()) << args;
  }
}

TEST(OutputOptions, HelpNamesTheFlags) {
  testing::TempDir dir;
  for (const char* command : {"sssp", "mst", "export", "gen"}) {
    const CliRun r = run_cli(std::string(command) + " --help", dir);
    EXPECT_EQ(r.code, 0) << command;
    EXPECT_NE(r.out.find("--co KEY=VALUE"), std::string::npos) << command << "\n" << r.out;
  }
  const CliRun r = run_cli("sssp --help", dir);
  EXPECT_NE(r.out.find("--ot Float64|Float32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2^-24"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace terrazo
