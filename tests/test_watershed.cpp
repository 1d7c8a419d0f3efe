// tests/test_watershed.cpp: out-of-core drainage basins (engine/flow/watershed_phases.h, `terrazo
// watershed`) against the whole-raster reference of tests/support/flow_reference.h, label for
// label: random direction rasters from random DEMs and random forests, nodata holes, absent tiles,
// 1 x N and odd sizes, tiles of 8 to 128 dividing the raster or not, 1 to 4 threads; loops refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/watershed_command.h"
#include "engine/flow/watershed_phases.h"
#include "kernels/common/error.h"
#include "tests/support/flow_reference.h"
#include "tests/support/flow_test_support.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using MemorySink = testing::MemoryTileSink<std::uint32_t>;

WatershedPhaseResult check(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h, std::uint32_t t,
                           unsigned threads, const std::string& what) {
  WatershedPhaseOptions o;
  o.threads = threads;
  std::vector<std::uint32_t> got;
  const WatershedPhaseResult r = testing::run_phases_in_memory(
      codes, w, h, t, 0xdeadbeefu, got, [&](const TileInput& input, MemoryBudget& budget, WatershedTileSink& sink) {
        return run_watershed_phases(input, o, budget, Progress::silent(), sink);
      });
  const std::vector<std::uint32_t> want = testing::reference_watershed(codes, w, h);
  testing::expect_cells_match(got, want, w, what, [&](std::uint64_t i) { return got[i] == want[i]; });
  EXPECT_EQ(r.basins, want.empty() ? 0 : *std::max_element(want.begin(), want.end())) << what;
  return r;
}

TEST(Watershed, RandomDemDirectionsMatchTheWholeRasterReference) {
  std::uint64_t spanning = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const testing::DirectionCase d = testing::random_direction_case(seed);
    spanning += check(d.codes, d.w, d.h, d.t, d.threads,
                      "seed " + std::to_string(seed) + " " + std::to_string(d.w) + " x " + std::to_string(d.h) +
                          " tile " + std::to_string(d.t))
                    .spanning_basins;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(spanning, 100u);  // basins cross tiles
}

TEST(Watershed, RandomForestsMatchTheWholeRasterReference) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint32_t tiles[] = {8, 16, 32};
    const std::uint64_t w = 1 + rng() % 80, h = 1 + rng() % 80;
    const std::uint32_t t = tiles[rng() % 3];
    const std::vector<double> codes = testing::random_d8_forest(rng, w, h, (seed % 4) * 0.05, (seed % 3) * 0.02);
    check(codes, w, h, t, 1 + static_cast<unsigned>(rng() % 3), "seed " + std::to_string(seed));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(Watershed, EveryTileSizeAndThreadCountGivesTheSameLabels) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.08), w, h);
  for (std::uint32_t t : {8u, 16u, 32u, 64u, 128u})
    for (unsigned threads : {1u, 2u, 4u})
      check(codes, w, h, t, threads, "tile " + std::to_string(t) + " threads " + std::to_string(threads));
}

TEST(Watershed, ALoopAcrossTilesIsRefused) {
  const std::uint64_t w = 20, h = 12;
  std::vector<double> codes(w * h, 1.0);
  codes[2 * w + 7] = 1, codes[2 * w + 8] = 16;
  MemoryTileInput<double> input(codes, w, h, 8);
  MemoryBudget budget(64ull << 20);
  MemorySink sink(w, h, 8, 0xdeadbeef);
  try {
    run_watershed_phases(input, WatershedPhaseOptions{}, budget, Progress::silent(), sink);
    FAIL() << "a loop ran";
  } catch (const UsageError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "comes back to it across tiles")) << e.what();
  }
}

// Direction rasters of the shipped DEMs (the reference's D8), by the command's parser and entry
// point: the reference's labels, the same file at tiles of 64 and 256 and through an imported store
// at a small budget.
TEST(WatershedCommand, ShippedDemsMatchTheWholeRasterReference) {
  testing::TempDir dir;
  const std::string real = std::string(TERRAZO_DATASETS) + "/real/";
  for (const std::string dem_name : {"N44W072.hgt", "pysheds_dem.tif", "nz_elev.tif"}) {
    RasterInfo info;
    const std::vector<double> dem = testing::read_raster_values(real + dem_name, &info);
    std::vector<double> codes = testing::reference_d8(dem, info.width, info.height);
    const std::vector<std::uint32_t> want = testing::reference_watershed(codes, info.width, info.height);
    for (double& v : codes) v = v == 255 ? std::nan("") : v;
    const std::string dir_path = dir.file(dem_name + ".dir.tif");
    testing::write_raster_values(dir_path, info.width, info.height, codes, CellType::UInt8, 255, info);
    testing::run_at_flag_sets(
        dir, dir_path, dem_name + ".basins", testing::kFlowFlagSets, CellType::UInt32,
        [](const std::vector<std::string>& args) {
          return run_watershed_command(parse_watershed_options(args), Progress::silent());
        },
        [&](const std::vector<double>& got, const WatershedCommandResult& r, const std::string& what) {
          testing::expect_cells_match(got, want, info.width, what,
                                      [&](std::uint64_t i) { return want[i] ? got[i] == want[i] : std::isnan(got[i]); });
          EXPECT_GT(r.result.phases.spanning_basins, 0u) << what;
        });
  }
}

// The program: --json's keys and the basins of a hand-made raster.
TEST(WatershedCommand, ProgramPrintsJson) {
  testing::TempDir dir;
  // Two basins: the left half drains west off the raster, the right half east; one nodata cell.
  const std::uint64_t w = 6, h = 3;
  std::vector<double> codes = {16, 16, 16, 1, 1, 1, 16, 16, 16, 1, 1, 1, 16, 16, std::nan(""), 1, 1, 1};
  testing::write_raster_values(dir.file("dir.tif"), w, h, codes, CellType::UInt8, 255);
  const testing::CliRun ok = testing::run_terrazo({"watershed", "--json", "-q", dir.file("dir.tif"), dir.file("b.tif")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  for (const char* key : {"\"valid_cells\":17", "\"basins\":6", "\"memory_plan\""})
    EXPECT_TRUE(testing::contains(ok.out, key)) << key << " in " << ok.out;
  const std::vector<double> got = testing::read_raster_values(dir.file("b.tif"));
  const std::vector<double> want = {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, std::nan(""), 6, 6, 6};
  EXPECT_TRUE(testing::same_cells(got, want));
}

}  // namespace
}  // namespace terrazo
