// tests/test_golden_friction.cpp: friction cost distance against scikit-image
// MCP_Geometric(fully_connected=True) (= GRASS r.cost)'s acceptance: 1e-5 relative at the
// default scale. GoldenFriction: a crop of a DEM, every cell against MCP's cost raster.
// GoldenFrictionAllDems: EVERY shipped DEM, sampled:
//
// datasets/golden/friction_samples.txt (made by datasets/make_golden_friction.py, command in its
// docstring) holds, per DEM of datasets/real/, one source cell and ~500 sample cells with MCP's cost
// from it on the full raster (nodata impassable): a grid of cells spread over the raster, the
// farthest ones, the source's neighbourhood, and cells MCP does not reach ("inf"). Each DEM goes
// through run_sssp in-process (default weight model friction, default scale, default tile); the
// Float64 cost raster is read back with GDAL and every sample must agree: reached by both and within
// 1e-5 relative (exactly 0 where MCP gives 0), or unreached by both.
#include <gtest/gtest.h>

#include <gdal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "engine/commands/sssp.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/sssp_reference.h"  // read_raster_values
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kTolerance = 1e-5;

struct Sample {
  std::uint64_t col = 0, row = 0;
  double cost = 0;  // +inf: MCP does not reach the cell
};

struct GoldenDem {
  std::string path;  // under datasets/
  std::uint64_t width = 0, height = 0, source_col = 0, source_row = 0;
  std::vector<Sample> samples;
};

// Reads friction_samples.txt; fails the test on a malformed file.
std::vector<GoldenDem> read_golden(const std::string& file, int* skipped) {
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << "cannot open " << file;
  std::vector<GoldenDem> dems;
  *skipped = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (line.rfind("# skipped ", 0) == 0) ++*skipped;
      continue;
    }
    std::istringstream head(line);
    std::string tag;
    GoldenDem d;
    std::size_t count = 0;
    head >> tag >> d.path >> d.width >> d.height >> d.source_col >> d.source_row >> count;
    EXPECT_TRUE(tag == "dem" && !head.fail()) << "malformed line: " << line;
    if (tag != "dem" || head.fail()) return {};
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_TRUE(static_cast<bool>(std::getline(in, line))) << d.path << ": file ends after " << i << " samples";
      std::istringstream s(line);
      Sample sample;
      std::string cost;
      s >> sample.col >> sample.row >> cost;
      EXPECT_FALSE(s.fail()) << "malformed sample: " << line;
      sample.cost = cost == "inf" ? std::numeric_limits<double>::infinity() : std::stod(cost);
      d.samples.push_back(sample);
    }
    dems.push_back(std::move(d));
  }
  return dems;
}

// The whole band 1 of a Float64 raster, and its nodata value.
std::vector<double> read_float64(const std::string& path, std::uint64_t width, std::uint64_t height,
                                 double* nodata, bool* has_nodata) {
  GDALAllRegister();
  GDALDatasetH ds = GDALOpen(path.c_str(), GA_ReadOnly);
  EXPECT_NE(ds, nullptr) << path;
  if (!ds) return {};
  std::vector<double> values;
  GDALRasterBandH band = GDALGetRasterBand(ds, 1);
  EXPECT_EQ(GDALGetRasterDataType(band), GDT_Float64);
  EXPECT_EQ(static_cast<std::uint64_t>(GDALGetRasterXSize(ds)), width);
  EXPECT_EQ(static_cast<std::uint64_t>(GDALGetRasterYSize(ds)), height);
  int has = 0;
  *nodata = GDALGetRasterNoDataValue(band, &has);
  *has_nodata = has != 0;
  if (static_cast<std::uint64_t>(GDALGetRasterXSize(ds)) == width &&
      static_cast<std::uint64_t>(GDALGetRasterYSize(ds)) == height) {
    values.resize(width * height);
    EXPECT_EQ(GDALRasterIO(band, GF_Read, 0, 0, static_cast<int>(width), static_cast<int>(height), values.data(),
                           static_cast<int>(width), static_cast<int>(height), GDT_Float64, 0, 0),
              CE_None);
  }
  GDALClose(ds);
  return values;
}

// Friction against scikit-image MCP_Geometric (datasets/make_golden_friction.py), at the default scale.
TEST(GoldenFriction, MatchesScikitImageMcpGeometric) {
  testing::TempDir dir;
  SsspOptions o = testing::sssp_options(std::string(TERRAZO_DATASETS) + "/golden/pysheds_crop.tif",
                                        {parse_source_point("17,23")}, dir.file("cost.tif"));
  RunSettings o_run;
  o.tile = 16;
  MemoryBudget budget(256ull << 20);
  const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  EXPECT_EQ(r.params.model, WeightModel::Friction);
  const std::vector<double> got = testing::read_raster_values(o.output);
  const std::vector<double> golden =
      testing::read_raster_values(std::string(TERRAZO_DATASETS) + "/golden/pysheds_crop_mcp_cost.tif");
  ASSERT_EQ(got.size(), golden.size());
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (golden[i] == 0) {
      EXPECT_EQ(got[i], 0.0);
      continue;
    }
    worst = std::max(worst, std::abs(got[i] - golden[i]) / golden[i]);
  }
  EXPECT_LT(worst, 1e-5);
  // The stated bound (docs/sssp.md): |error| <= 0.5 / scale per step; paths here have < 200 steps.
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_LE(std::abs(got[i] - golden[i]), 200 * 0.5 / r.params.scale);
}

TEST(GoldenFrictionAllDems, EveryShippedDemMatchesMcpGeometric) {
  const std::string datasets = TERRAZO_DATASETS;
  int skipped = 0;
  const std::vector<GoldenDem> dems = read_golden(datasets + "/golden/friction_samples.txt", &skipped);
  // Nine DEMs ship in datasets/real/: each is either checked or skipped with a stated reason.
  ASSERT_EQ(dems.size() + static_cast<std::size_t>(skipped), 9u);
  testing::TempDir dir;
  double worst_overall = 0;
  int k = 0;
  for (const GoldenDem& d : dems) {
    SCOPED_TRACE(d.path);
    ASSERT_GE(d.samples.size(), 100u);
    const auto start = std::chrono::steady_clock::now();
    SsspOptions o;
    RunSettings o_run;
    o.input = datasets + "/" + d.path;
    o.sources = {parse_source_point(std::to_string(d.source_col) + "," + std::to_string(d.source_row))};
    o.output = dir.file("cost" + std::to_string(k++) + ".tif");
    MemoryBudget budget(1ull << 30);
    const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
    ASSERT_EQ(r.params.model, WeightModel::Friction);
    ASSERT_EQ(r.width, d.width);
    ASSERT_EQ(r.height, d.height);
    double nodata = 0;
    bool has_nodata = false;
    const std::vector<double> cost = read_float64(o.output, d.width, d.height, &nodata, &has_nodata);
    ASSERT_EQ(cost.size(), d.width * d.height);
    const auto unreached = [&](double v) { return v != v || (has_nodata && v == nodata); };
    double worst = 0;
    std::uint64_t reached = 0;
    for (const Sample& s : d.samples) {
      ASSERT_LT(s.col, d.width);
      ASSERT_LT(s.row, d.height);
      const double got = cost[s.row * d.width + s.col];
      if (std::isinf(s.cost)) {
        EXPECT_TRUE(unreached(got)) << "cell " << s.col << "," << s.row << ": MCP does not reach it, terrazo gives "
                                    << got;
        continue;
      }
      ++reached;
      if (unreached(got)) {
        ADD_FAILURE() << "cell " << s.col << "," << s.row << ": MCP cost " << s.cost << ", terrazo leaves it unreached";
        continue;
      }
      if (s.cost == 0) {
        EXPECT_EQ(got, 0.0) << "cell " << s.col << "," << s.row;
        continue;
      }
      const double rel = std::abs(got - s.cost) / s.cost;
      worst = std::max(worst, rel);
      EXPECT_LE(rel, kTolerance) << "cell " << s.col << "," << s.row << ": terrazo " << got << ", MCP " << s.cost;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    worst_overall = std::max(worst_overall, worst);
    const std::string name = d.path.substr(d.path.find_last_of('/') + 1);
    char text[64];
    std::snprintf(text, sizeof text, "%.3g", worst);
    ::testing::Test::RecordProperty("max_rel_error_" + name, text);
    std::printf("[ golden   ] %-32s scale %-6g samples %4zu (reached %4llu)  max relative error %.3g  (%.1f s)\n",
                name.c_str(), r.params.scale, d.samples.size(), static_cast<unsigned long long>(reached), worst,
                seconds);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.3g", worst_overall);
  ::testing::Test::RecordProperty("max_rel_error", text);
  std::printf("[ golden   ] %zu DEMs checked, %d skipped; max relative error %.3g (tolerance %g)\n", dems.size(),
              skipped, worst_overall, kTolerance);
}

}  // namespace
}  // namespace terrazo
