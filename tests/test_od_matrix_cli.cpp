// tests/test_od_matrix_cli.cpp: `terrazo od-matrix` as a command: bad input (fewer than 2 sites, a
// site outside or on nodata, an index of another weight model, raster or values) through the
// parser and run_od_matrix_command, and the program itself: the CSV (long and wide), the GeoJSON
// lines, one line and exit 2 for a usage error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/commands/index.h"
#include "engine/commands/od_matrix_command.h"
#include "kernels/common/error.h"
#include "tests/support/od_matrix_support.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using testing::build;

TEST(OdMatrixCommand, BadInputIsAUsageError) {
  testing::TempDir dir;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc";
  const std::string out = dir.file("od.csv");
  // Fewer than 2 sites.
  EXPECT_THROW(parse_od_matrix_options({"--site", "1,1", input, out}), UsageError);
  EXPECT_THROW(parse_od_matrix_options({input, out}), UsageError);
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(input, &info);
  std::uint64_t nodata = 0;
  while (nodata < values.size() && values[nodata] == values[nodata]) ++nodata;
  std::uint64_t valid = 0;
  while (values[valid] != values[valid]) ++valid;
  const std::string a = std::to_string(valid % info.width) + "," + std::to_string(valid / info.width);
  // Outside the raster.
  auto outside = parse_od_matrix_options({"--site", a, "--site", std::to_string(info.width + 5) + ",0", input, out});
  EXPECT_THROW(run_od_matrix_command(outside, Progress::silent()), UsageError);
  // On nodata (with and without an index).
  const std::string index = dir.file("hugo.tzi");
  build(input, index, WeightModel::Friction, Connectivity::Eight, 16, 8);
  if (nodata < values.size()) {
    const std::string n = std::to_string(nodata % info.width) + "," + std::to_string(nodata / info.width);
    auto on_nodata = parse_od_matrix_options({"--site", a, "--site", n, input, out});
    EXPECT_THROW(run_od_matrix_command(on_nodata, Progress::silent()), UsageError);
    auto on_nodata_index = parse_od_matrix_options({"--index", index, "--site", a, "--site", n, input, out});
    EXPECT_THROW(run_od_matrix_command(on_nodata_index, Progress::silent()), UsageError);
  }
  // An index of another weight model.
  auto other_weight = parse_od_matrix_options({"--index", index, "--weight", "absdiff", "--site", a, "--site", a, input, out});
  EXPECT_THROW(run_od_matrix_command(other_weight, Progress::silent()), UsageError);
  // An index of another raster of another size, and of the same size with other values (fingerprint).
  const std::string pysheds = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  auto other_raster = parse_od_matrix_options({"--index", index, "--site", "1,1", "--site", "2,2", pysheds, out});
  EXPECT_THROW(run_od_matrix_command(other_raster, Progress::silent()), UsageError);
  std::vector<double> changed = values;
  for (double& v : changed)
    if (v == v) v += 1.0;
  const std::string shifted = dir.file("shifted.tif");
  testing::write_raster_values(shifted, info.width, info.height, changed, CellType::Float64, -9999, info);
  const std::string scale = std::to_string(build(input, dir.file("x.tzi"), WeightModel::Friction, Connectivity::Eight, 16, 8).weights.params.scale);
  // The raster's fingerprint (an Error, exit 1: tests/test_input_trust.cpp), and with the check
  // skipped the site tile's values (a UsageError).
  auto fingerprint = parse_od_matrix_options({"--index", index, "--scale", scale, "--site", a, "--site", a, shifted, out});
  try {
    run_od_matrix_command(fingerprint, Progress::silent());
    ADD_FAILURE() << "an index of another raster was accepted";
  } catch (const UsageError& e) {
    ADD_FAILURE() << "a usage error, not the fingerprint's Error: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("was built from another raster"), std::string::npos) << e.what();
  }
  auto site_tile = parse_od_matrix_options({"--index", index, "--skip-fingerprint-check", "--scale", scale, "--site", a,
                                            "--site", a, shifted, out});
  EXPECT_THROW(run_od_matrix_command(site_tile, Progress::silent()), UsageError);
  // Not an index at all.
  auto not_index = parse_od_matrix_options({"--index", input, "--site", a, "--site", a, input, out});
  EXPECT_THROW(run_od_matrix_command(not_index, Progress::silent()), UsageError);
}

TEST(OdMatrixCli, WritesTheCsvAndRefusesBadInputWithOneLineAndExitTwo) {
  testing::TempDir dir;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string index = dir.file("p.tzi"), out = dir.file("od.csv"), wide = dir.file("wide.csv"), err = dir.file("err.txt");
  const std::string bin = TERRAZO_BINARY;
  ASSERT_EQ(std::system((bin + " index -q --device cpu --tile 32 " + input + " " + index).c_str()), 0);
  ASSERT_EQ(std::system((bin + " od-matrix -q --index " + index + " --site 10,10 --site 100,50 --site 200,120 " + input + " " + out).c_str()), 0);
  ASSERT_EQ(std::system((bin + " od-matrix -q --wide --geojson " + dir.file("lines.geojson") +
                         " --site 10,10 --site 100,50 --site 200,120 " + input + " " + wide).c_str()), 0);
  {
    std::ifstream lines(dir.file("lines.geojson"));
    const std::string text((std::istreambuf_iterator<char>(lines)), std::istreambuf_iterator<char>());
    std::size_t count = 0;
    for (std::size_t at = text.find("\"LineString\""); at != std::string::npos; at = text.find("\"LineString\"", at + 1)) ++count;
    EXPECT_EQ(count, 3u) << text;  // pairs 1-2, 1-3, 2-3
    EXPECT_NE(text.find("urn:ogc:def:crs:EPSG::4326"), std::string::npos);
  }
  std::ifstream f(out);
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "from_id,to_id,cost");
  int rows = 0;
  std::vector<double> long_costs;
  while (std::getline(f, line)) {
    ++rows;
    long_costs.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  }
  EXPECT_EQ(rows, 9);
  EXPECT_EQ(long_costs[0], 0.0);
  EXPECT_GT(long_costs[1], 0.0);
  std::ifstream g(wide);
  std::getline(g, line);
  EXPECT_EQ(line, "from_id,1,2,3");
  std::getline(g, line);
  std::stringstream cells(line);
  std::string cell;
  std::getline(cells, cell, ',');
  for (int j = 0; j < 3; ++j) {
    std::getline(cells, cell, ',');
    EXPECT_EQ(std::stod(cell), long_costs[j]) << "the wide table and the long form (index or not) agree";
  }
  // One site: exit 2, one line.
  const int status = std::system((bin + " od-matrix --site 10,10 " + input + " " + out + " 2> " + err).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream e(err);
  int lines = 0;
  while (std::getline(e, line)) ++lines;
  EXPECT_EQ(lines, 1);
}

}  // namespace
}  // namespace terrazo
