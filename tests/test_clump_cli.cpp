// tests/test_clump_cli.cpp: the `terrazo clump` program (docs/clump.md): bad flags and a float
// raster without --by are one line and exit 2, --device cuda without a GPU is one line and exit 1,
// --json's keys, and the budget promise (VmHWM <= --memory + MemoryBudget::kFixedOverhead) on rasters
// larger than the budget, through the external merge and --min-size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "engine/clump/border_table.h"
#include "kernels/common/cuda_device.h"
#include "io/store/raster_info.h"
#include "support/sssp_reference.h"
#include "support/test_support.h"

namespace terrazo {
namespace {

using testing::read_raster_values;
using testing::CliRun;
using testing::run_cli;

TEST(ClumpCli, BadFlagsAreOneLineAndExit2) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string out = dir.file("labels.tif");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--by values", "invalid --by 'values'"},
      {"--by range:5", "invalid --by 'range:5'"},
      {"--by range:9,3", "LO is above HI"},
      {"--by range:a,3", "--by"},
      {"--by range:1,2,3", "invalid --by"},
      {"--connectivity 6", "--connectivity"},
      {"--min-size 0", "invalid --min-size 0"},
      {"--min-size -3", "invalid --min-size -3"},
      {"--min-size x", "invalid --min-size 'x'"},
      {"--min-size 5 --min-size-action drop", "invalid --min-size-action 'drop'"},
      {"--min-size-action nodata", "--min-size-action needs --min-size"},
      {"--min-size 5 --stats " + dir.file("s.csv"), "--stats cannot be combined with --min-size"},
      {"--device gpu", "invalid --device 'gpu'"},
  };
  for (const auto& [flags, needle] : cases) {
    const CliRun r = run_cli("clump -q " + flags + " " + dem + " " + out, dir);
    EXPECT_EQ(r.code, 2) << flags << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << flags << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
  }
}

TEST(ClumpCli, FloatRasterNeedsBy) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/rhine_elv0.tif";  // Float32
  const CliRun r = run_cli("clump -q " + dem + " " + dir.file("labels.tif"), dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--by"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// `terrazo clump -q --json --memory <mib>M --threads 2 ARGUMENTS` into `*r`: it succeeds and its
// VmHWM (the --json peak_rss_bytes) stays within the budget plus MemoryBudget::kFixedOverhead
// (docs/memory_budget.md).
void run_within_budget(const testing::TempDir& dir, std::uint64_t mib, const std::string& arguments, CliRun* r) {
  *r = run_cli("clump -q --json --memory " + std::to_string(mib) + "M --threads 2 " + arguments, dir);
  ASSERT_EQ(r->code, 0) << r->err;
  const auto key = r->out.find("\"peak_rss_bytes\":");
  ASSERT_NE(key, std::string::npos) << r->out;
  EXPECT_LE(std::stoull(r->out.substr(key + 17)), (mib << 20) + MemoryBudget::kFixedOverhead) << r->out;
}

// The promise on a raster whose cells (as doubles) are ~2x the budget.
TEST(ClumpCli, PeakRssWithinBudgetOnARasterLargerThanIt) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << "VmHWM includes the sanitizer's shadow memory";
  testing::TempDir dir;
  const std::string dem = dir.file("gen.tif");
  ASSERT_EQ(run_cli("gen -q --type Int16 --nodata-holes 0.1 --width 3000 --height 2000 --seed 5 " + dem, dir).code, 0);
  CliRun r;
  run_within_budget(dir, 24, "--tile 64 --stats " + dir.file("regions.csv") + " " + dem + " " + dir.file("labels.tif"), &r);
}

// The promise when the border table does not fit: an Int16 terrain of 30 km relief compared value
// by value is nearly noise (every cell about its own region), so at tiles of 16 its border table
// (36 bytes per border region: ~140 k, 5 MB) is larger than --memory 4M and the merge goes
// external; the labels and --stats are the in-memory merge's, byte for byte.
TEST(ClumpCli, ExternalMergePeakRssWithinBudgetAndSameLabels) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << "VmHWM includes the sanitizer's shadow memory";
  testing::TempDir dir;
  const std::string dem = dir.file("gen.tif");
  ASSERT_EQ(run_cli("gen -q --type Int16 --relief 30000 --nodata-holes 0.05 --width 900 --height 700 --seed 11 " + dem, dir).code,
            0);
  CliRun r;
  ASSERT_NO_FATAL_FAILURE(
      run_within_budget(dir, 4, "--tile 16 --stats " + dir.file("small.csv") + " " + dem + " " + dir.file("small.tif"), &r));
  EXPECT_NE(r.out.find("\"external_merge\":true"), std::string::npos) << r.out;
  const auto border = r.out.find("\"border_regions\":");
  ASSERT_NE(border, std::string::npos) << r.out;
  EXPECT_GT(std::stoull(r.out.substr(border + 17)) * BorderTable::kBytesPerRegion, 4ull << 20) << r.out;
  const CliRun big = run_cli("clump -q --json --memory 1G --tile 16 --threads 2 --stats " + dir.file("big.csv") + " " +
                                 dem + " " + dir.file("big.tif"),
                             dir);
  ASSERT_EQ(big.code, 0) << big.err;
  EXPECT_NE(big.out.find("\"external_merge\":false"), std::string::npos) << big.out;
  RasterInfo a, b;
  const std::vector<double> la = read_raster_values(dir.file("small.tif"), &a), lb = read_raster_values(dir.file("big.tif"), &b);
  ASSERT_EQ(la.size(), lb.size());
  std::uint64_t differ = 0;
  for (std::size_t i = 0; i < la.size(); ++i) differ += !(la[i] == lb[i] || (std::isnan(la[i]) && std::isnan(lb[i])));
  EXPECT_EQ(differ, 0u);
  std::ifstream sa(dir.file("small.csv")), sb(dir.file("big.csv"));
  const std::string ca((std::istreambuf_iterator<char>(sa)), {}), cb((std::istreambuf_iterator<char>(sb)), {});
  EXPECT_GT(ca.size(), 1000u);
  EXPECT_TRUE(ca == cb) << "the --stats files differ";
}

// The same promise with --min-size: the labels through the scratch file, the sieve's region table,
// label rows and border sort; a banded terrain (many small regions at the band edges).
TEST(ClumpCli, MinSizePeakRssWithinBudgetOnARasterLargerThanIt) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << "VmHWM includes the sanitizer's shadow memory";
  testing::TempDir dir;
  const std::string dem = dir.file("bands.tif");
  ASSERT_EQ(run_cli("gen -q --type Byte --relief 40 --nodata-holes 0.05 --width 3000 --height 2000 --seed 9 " + dem, dir).code, 0);
  for (const std::string action : {"merge", "nodata"}) {
    CliRun r;
    ASSERT_NO_FATAL_FAILURE(run_within_budget(
        dir, 24, "--tile 64 --min-size 40 --min-size-action " + action + " " + dem + " " + dir.file("labels_" + action + ".tif"), &r));
    const auto small = r.out.find("\"small_regions\":");
    ASSERT_NE(small, std::string::npos) << r.out;
    EXPECT_GT(std::stoull(r.out.substr(small + 16)), 0u) << r.out;
  }
}

// --device cuda where there is no GPU: one line naming the reason, exit 1 (a runtime condition, not
// a usage error), no output; --device cpu gives the same labels as the default.
TEST(ClumpCli, DeviceCudaWithoutAGpuIsOneLineAndCpuIsTheDefaultsLabels) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  if (!cuda_device().available) {
    const CliRun r = run_cli("clump -q --device cuda " + dem + " " + dir.file("gpu.tif"), dir);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("--device cuda"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::ifstream(dir.file("gpu.tif")).good());
  }
  ASSERT_EQ(run_cli("clump -q --device cpu --tile 16 " + dem + " " + dir.file("cpu.tif"), dir).code, 0);
  ASSERT_EQ(run_cli("clump -q --tile 16 " + dem + " " + dir.file("auto.tif"), dir).code, 0);
  RasterInfo info;
  const std::vector<double> cpu = read_raster_values(dir.file("cpu.tif"), &info), automatic = read_raster_values(dir.file("auto.tif"), &info);
  ASSERT_EQ(cpu.size(), automatic.size());
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) wrong += !(cpu[i] == automatic[i] || (std::isnan(cpu[i]) && std::isnan(automatic[i])));
  EXPECT_EQ(wrong, 0u);
}

TEST(ClumpCli, JsonSummary) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc";
  const CliRun r = run_cli("clump -q --json --tile 16 --threads 2 --by valid " + dem + " " + dir.file("labels.tif"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* key : {"\"regions\":", "\"cells_labelled\":", "\"largest_region\":", "\"phases\":", "\"device\":",
                          "\"tile_labels\":", "\"peak_rss_bytes\":", "\"bytes_read\":", "\"bytes_written\":"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
}

}  // namespace
}  // namespace terrazo
