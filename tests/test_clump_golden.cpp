// tests/test_clump_golden.cpp: `terrazo clump --by value` on the classified shipped DEMs gives GRASS
// r.clump's partition (datasets/make_golden_clump.py, datasets/golden/clump/), for 4 and 8
// neighbours, imported, read into memory and read in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/commands/clump_command.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/store/raster_info.h"
#include "support/sssp_reference.h"
#include "support/test_support.h"

namespace terrazo {
namespace {

using testing::read_raster_values;

// Labels renumbered 1..K in row-major order of first cells (0 stays 0): equal for two labellings
// exactly when they are the same partition, whatever numbers each gave its regions. Labels are
// whole numbers below 2^32 (r.clump's and terrazo's): a table indexed by label, not a hash lookup
// per cell (1.7 M cells per raster here, at -O0 under the sanitizers).
std::vector<std::uint32_t> canonical_labels(const std::vector<double>& labels) {
  double largest = 0;
  for (double l : labels)
    if (!std::isnan(l)) largest = std::max(largest, l);
  EXPECT_LT(largest, double{1 << 26}) << "labels beyond the regions' count";
  if (!(largest < double{1 << 26})) return {};
  std::vector<std::uint32_t> number(static_cast<std::size_t>(largest) + 1, 0), out(labels.size(), 0);
  std::uint32_t next = 0;
  std::uint64_t not_whole = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (std::isnan(labels[i]) || labels[i] == 0) continue;
    if (!(labels[i] > 0 && labels[i] == std::floor(labels[i]))) {
      ++not_whole;
      continue;
    }
    std::uint32_t& n = number[static_cast<std::size_t>(labels[i])];
    if (n == 0) n = ++next;
    out[i] = n;
  }
  EXPECT_EQ(not_whole, 0u) << "labels that are not whole positive numbers";
  return out;
}

class ClumpGolden : public ::testing::TestWithParam<const char*> {};

// terrazo clump --by value on the classified DEM gives r.clump's partition, for 4 and 8 neighbours,
// at two tile sizes; the region counts match r.clump's (rclump.txt).
TEST_P(ClumpGolden, SamePartitionAsRClump) {
  const std::string name = GetParam();
  const std::string stem = name.substr(0, name.rfind('.'));
  const std::string golden = std::string(TERRAZO_DATASETS) + "/golden/clump/";
  std::ifstream table(golden + "rclump.txt");
  ASSERT_TRUE(table.good()) << golden << "rclump.txt";
  int checked = 0;
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string dem;
    int connectivity = 0;
    std::uint64_t regions = 0, cells = 0, largest = 0;
    fields >> dem >> connectivity >> regions >> cells >> largest;
    if (dem != name) continue;
    RasterInfo info;
    const std::vector<double> expected_raw =
        read_raster_values(golden + stem + "_rclump" + std::to_string(connectivity) + ".tif", &info);
    const std::vector<std::uint32_t> expected = canonical_labels(expected_raw);
    // 16: imported into a tile store; 128: read into tiles in memory (auto); 256: the bands' block,
    // read in place (engine/raster_inputs/pipeline_input.h).
    for (std::uint32_t tile : {16u, 128u, 256u}) {
      testing::TempDir dir;
      ClumpOptions o;
      RunSettings o_run;
      o.input = golden + stem + "_bands.tif";
      o.output = dir.file("labels.tif");
      o.connectivity = connectivity == 4 ? Connectivity::Four : Connectivity::Eight;
      o.tile = tile;
      o_run.threads = 2;
      o_run.device = DeviceRequest::Cpu;
      o_run.tmpdir = dir.path();
      o.input_mode = tile == 16u ? InputMode::Import : tile == 256u ? InputMode::Direct : InputMode::Auto;
      MemoryBudget budget(256ull << 20);
      const ClumpResult r = terrazo::testing::run_with(run_clump, o, o_run, budget, Progress::silent());
      EXPECT_EQ(r.input_read, tile == 16u ? "imported" : tile == 256u ? "direct" : "memory") << name << " tile " << tile;
      EXPECT_EQ(r.input_read_in_place, tile != 16u) << name << " tile " << tile;
      EXPECT_EQ(r.regions, regions) << name << " " << connectivity << " tile " << tile;
      EXPECT_EQ(r.cells_labelled, cells) << name;
      EXPECT_EQ(r.largest_region, largest) << name;
      const std::vector<std::uint32_t> got = canonical_labels(read_raster_values(o.output, &info));
      ASSERT_EQ(got.size(), expected.size());
      std::uint64_t wrong = 0, first = 0;
      for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != expected[i] && wrong++ == 0) first = i;
      EXPECT_EQ(wrong, 0u) << name << " " << connectivity << "-connectivity tile " << tile << ": first at cell " << first
                           << ": terrazo " << got[first] << ", r.clump " << expected[first] << " (canonical)";
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2) << name << ": rclump.txt should hold its 4- and 8-neighbour lines";
}

INSTANTIATE_TEST_SUITE_P(ShippedDems, ClumpGolden,
                         ::testing::Values("Mandakini.bil", "Mega_divide.bil", "N44W072.hgt", "hugo_site.asc",
                                           "nz_elev.tif", "pysheds_dem.tif", "rhine_elv0.tif",
                                           "srtm_bigtujunga30m_utm11.tif", "west_bijou_gully.asc"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace terrazo
