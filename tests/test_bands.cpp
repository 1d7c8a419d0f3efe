// tests/test_bands.cpp: rasters of several bands (docs/reliability.md "Bands"): without --band (or
// --barrier-band for the barrier raster) a run is a usage error on one line before any output, and
// the chosen band is the one read, by every command that takes a raster.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <gdal.h>

#include "engine/raster_inputs/raster_io.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/gdal/gdal_session.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using namespace terrazo::testing;

// Reproducer: a multi-band input silently used band 1 (issue 15, item 12: "refuse ambiguity"). Now a
// raster of several bands needs --band N (import, export, info, mst, sssp, clump); without it, or
// with a band it does not have, the run is a usage error on one line before any output.
TEST(Bands, SeveralBandsNeedBandAndTheChosenBandIsRead) {
  TempDir dir;
  const std::string tif = dir.file("rgb.tif");
  {
    ensure_gdal();
    GDALDriverH driver = GDALGetDriverByName("GTiff");
    // Tiled in blocks of 16: clump may read such a GeoTIFF in place (engine/raster_inputs/geotiff_tile_input.h).
    const char* tiled[] = {"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", nullptr};
    GDALDatasetH ds = GDALCreate(driver, tif.c_str(), 40, 30, 3, GDT_Float32, const_cast<char**>(tiled));
    ASSERT_TRUE(ds);
    for (int b = 1; b <= 3; ++b) {
      std::vector<float> cells(40 * 30);
      for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<float>(b * 100 + i % 7);
      ASSERT_EQ(GDALRasterIO(GDALGetRasterBand(ds, b), GF_Write, 0, 0, 40, 30, cells.data(), 40, 30, GDT_Float32, 0, 0),
                CE_None);
    }
    GDALClose(ds);
  }
  auto one_line = [](const std::string& text) {
    return !text.empty() && text.find('\n') == text.size() - 1;
  };
  // Without --band: refused, naming the count and the flag, nothing written.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"import", "-q", tif, dir.file("a.tzs")},
        {"info", "-q", tif},
        {"export", "-q", tif, dir.file("a.tif")},
        {"mst", "-q", tif, dir.file("m.tif")},
        {"sssp", "-q", "--source", "1,1", tif, dir.file("c.tif")},
        {"clump", "-q", "--by", "value", tif, dir.file("l.tif")}}) {
    const CliRun r = run_terrazo(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "'" + tif + "' has 3 bands (1 to 3); choose one with --band N")) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
  }
  EXPECT_EQ(entries_of(dir).size(), 1u);  // rgb.tif alone
  // A band it does not have, or not a band number.
  for (const std::string band : {"4", "0", "x", "-1", "1.5"}) {
    const CliRun r = run_terrazo({"import", "-q", "--band", band, tif, dir.file("a.tzs")});
    EXPECT_EQ(r.code, 2) << band << ": " << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, band == "4" ? "band 4 of '" + tif + "' does not exist: it has 3 bands" : "invalid --band '" + band + "'"))
        << r.err;
  }
  // --band N reads band N: values N*100 + 0..6.
  for (int b = 1; b <= 3; ++b) {
    const std::string store = dir.file("b" + std::to_string(b) + ".tzs");
    ASSERT_EQ(run_terrazo({"import", "-q", "--band", std::to_string(b), tif, store}).code, 0);
    const std::vector<double> cells = read_raster_values(store);
    ASSERT_EQ(cells.size(), 1200u);
    for (std::size_t i = 0; i < cells.size(); ++i) ASSERT_EQ(cells[i], b * 100 + static_cast<double>(i % 7)) << i;
    MemoryBudget budget(64ull << 20);
    const RasterSummary summary = run_info(tif, budget, Progress::silent(), static_cast<std::uint32_t>(b));
    EXPECT_EQ(summary.band, static_cast<std::uint32_t>(b));
    EXPECT_EQ(summary.bands, 3u);
    EXPECT_EQ(summary.info.min, b * 100);
    EXPECT_EQ(summary.info.max, b * 100 + 6);
  }
  // The pipelines read the chosen band: the same outputs as from the band's own store.
  for (const std::string command : {"mst", "sssp", "clump", "export"}) {
    std::vector<std::string> extra;
    if (command == "sssp") extra = {"--source", "1,1"};
    if (command == "clump") extra = {"--by", "value"};
    auto run = [&](const std::string& input, const std::string& output, bool band) {
      std::vector<std::string> args{command, "-q"};
      args.insert(args.end(), extra.begin(), extra.end());
      if (band) args.insert(args.end(), {"--band", "2"});
      args.insert(args.end(), {input, output});
      return run_terrazo(args);
    };
    const CliRun from_band = run(tif, dir.file(command + "-band.tif"), true);
    ASSERT_EQ(from_band.code, 0) << command << ": " << from_band.err;
    ASSERT_EQ(run(dir.file("b2.tzs"), dir.file(command + "-store.tif"), false).code, 0) << command;
    EXPECT_EQ(read_raster_values(dir.file(command + "-band.tif")), read_raster_values(dir.file(command + "-store.tif")))
        << command;
  }
  // --band 1 of a tiled GeoTIFF of several bands (clump's in-place path takes one-band GeoTIFFs only).
  ASSERT_EQ(run_terrazo({"clump", "-q", "--by", "value", "--tile", "16", "--band", "1", tif, dir.file("l1.tif")}).code, 0);
  ASSERT_EQ(run_terrazo({"clump", "-q", "--by", "value", "--tile", "16", dir.file("b1.tzs"), dir.file("l1s.tif")}).code, 0);
  EXPECT_EQ(read_raster_values(dir.file("l1.tif")), read_raster_values(dir.file("l1s.tif")));
  // A tile store has one band: --band 1 is fine, --band 2 is not.
  EXPECT_EQ(run_terrazo({"info", "-q", "--band", "1", dir.file("b1.tzs")}).code, 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"info", "-q", "--band", "2", dir.file("b1.tzs")},
        {"mst", "-q", "--band", "2", dir.file("b1.tzs"), dir.file("m2.tif")},
        {"sssp", "-q", "--band", "2", "--source", "1,1", dir.file("b1.tzs"), dir.file("c2.tif")}}) {
    const CliRun r = run_terrazo(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "band 2 of '" + dir.file("b1.tzs") + "' does not exist: it has 1 band")) << r.err;
  }
  // `import --json` states the band read and the count.
  const std::string out = dir.file("out.txt");
  const std::string import = std::string(TERRAZO_BINARY) + " import -q --json --band 3 " + tif + " " +
                             dir.file("j.tzs") + " > " + out;
  ASSERT_EQ(std::system(import.c_str()), 0);
  EXPECT_TRUE(contains(slurp(out), "\"band\":3,\"bands\":3")) << slurp(out);
}

// --band chooses INPUT's band, --barrier-band the --barrier-raster's: a barrier raster of several
// bands without --barrier-band is refused on one line, exit 2, before any work (an --band does not
// choose it), and the chosen band is the barrier: the same costs as from that band alone.
TEST(Bands, BarrierRasterOfSeveralBandsNeedsBarrierBand) {
  TempDir dir;
  const std::uint32_t w = 40, h = 30;
  ensure_gdal();
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  auto write_tif = [&](const std::string& path, const std::vector<std::vector<float>>& bands) {
    GDALDatasetH ds = GDALCreate(driver, path.c_str(), w, h, static_cast<int>(bands.size()), GDT_Float32, nullptr);
    ASSERT_TRUE(ds);
    for (std::size_t b = 0; b < bands.size(); ++b)
      ASSERT_EQ(GDALRasterIO(GDALGetRasterBand(ds, static_cast<int>(b + 1)), GF_Write, 0, 0, w, h,
                             const_cast<float*>(bands[b].data()), w, h, GDT_Float32, 0, 0),
                CE_None);
    GDALClose(ds);
  };
  // Friction 1 + (x + y) % 3; band 1 of the barrier is open everywhere, band 2 a wall at x = 20
  // with a gap at y = 25, band 3 a wall at y = 10 (closed everywhere but x = 35).
  std::vector<float> dem(w * h), open(w * h, 0.0f), wall_x(w * h, 0.0f), wall_y(w * h, 0.0f);
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) {
      dem[y * w + x] = static_cast<float>(1 + (x + y) % 3);
      if (x == 20 && y != 25) wall_x[y * w + x] = 1.0f;
      if (y == 10 && x != 35) wall_y[y * w + x] = 7.0f;
    }
  const std::string input = dir.file("dem.tif"), barriers = dir.file("barriers.tif"), band2 = dir.file("wall_x.tif");
  write_tif(input, {dem});
  write_tif(barriers, {open, wall_x, wall_y});
  write_tif(band2, {wall_x});
  auto one_line = [](const std::string& text) { return !text.empty() && text.find('\n') == text.size() - 1; };
  auto sssp = [&](const std::vector<std::string>& flags, const std::string& output) {
    std::vector<std::string> args{"sssp", "-q", "--source", "2,2"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {input, output});
    return run_terrazo(args);
  };
  // Refused without --barrier-band, also when --band (INPUT's) is given; a band it lacks, not a
  // band number, or no --barrier-raster to choose from: one line, exit 2, nothing written.
  const std::string three = "'" + barriers + "' has 3 bands (1 to 3); choose one with --barrier-band N";
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--barrier-raster", barriers}, three},
      {{"--band", "1", "--barrier-raster", barriers}, three},
      {{"--barrier-raster", barriers, "--barrier-band", "4"}, "band 4 of '" + barriers + "' does not exist: it has 3 bands"},
      {{"--barrier-raster", barriers, "--barrier-band", "0"}, "invalid --barrier-band '0'"},
      {{"--barrier-band", "2"}, "no --barrier-raster is given"},
      {{"--barrier-raster", band2, "--barrier-band", "2"}, "band 2 of '" + band2 + "' does not exist: it has 1 band"}};
  for (const auto& [flags, message] : refused) {
    const CliRun r = sssp(flags, dir.file("refused.tif"));
    EXPECT_EQ(r.code, 2) << message << ": " << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
  }
  EXPECT_EQ(entries_of(dir).size(), 3u);  // the three inputs alone
  // --barrier-band 2 is the wall of band 2: the same costs as the one-band raster of it, other costs
  // than band 1 (open); the JSON states the band read and the cells it closed.
  const std::string out = dir.file("out.txt");
  const std::string command = std::string(TERRAZO_BINARY) + " sssp -q --json --source 2,2 --barrier-raster " +
                              barriers + " --barrier-band 2 " + input + " " + dir.file("c2.tif") + " > " + out;
  ASSERT_EQ(std::system(command.c_str()), 0);
  ASSERT_EQ(sssp({"--barrier-raster", band2}, dir.file("c2_alone.tif")).code, 0);
  ASSERT_EQ(sssp({"--barrier-raster", barriers, "--barrier-band", "1"}, dir.file("c1.tif")).code, 0);
  const std::vector<double> c2 = read_raster_values(dir.file("c2.tif")),
                            alone = read_raster_values(dir.file("c2_alone.tif")),
                            c1 = read_raster_values(dir.file("c1.tif"));
  ASSERT_EQ(c2.size(), alone.size());
  ASSERT_EQ(c2.size(), c1.size());
  std::size_t closed = 0, differ_from_open = 0;
  for (std::size_t i = 0; i < c2.size(); ++i) {
    ASSERT_TRUE(c2[i] == alone[i] || (std::isnan(c2[i]) && std::isnan(alone[i]))) << i;
    closed += std::isnan(c2[i]);
    ASSERT_FALSE(std::isnan(c1[i])) << i;  // band 1 closes nothing
    differ_from_open += c1[i] != c2[i];
  }
  EXPECT_EQ(closed, 29u);                       // the wall, each cell not entered
  EXPECT_GT(differ_from_open, 200u);            // the far side, reached through the gap
  EXPECT_FALSE(std::isnan(c2[5 * w + 30]));
  EXPECT_TRUE(contains(slurp(out), "\"barrier_band\":2,\"barrier_cells\":29")) << slurp(out);
}

}  // namespace
