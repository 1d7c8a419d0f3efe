// tests/test_watershed.cpp: out-of-core drainage basins (engine/flow/watershed_phases.h, `terrazo
// watershed`) against the whole-raster reference of tests/support/flow_reference.h, label for
// label: random direction rasters from random DEMs and random forests, nodata holes, absent tiles,
// 1 x N and odd sizes, tiles of 8 to 128 dividing the raster or not, 1 to 4 threads; loops refused.
// Pour points (--outlet, --outlets-file, --snap) against reference_pour_point_basins and a brute-force
// snap: nested pour points, the same cases, a small budget through an imported store, the usage errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/watershed_command.h"
#include "engine/commands/watershed_pour_points.h"
#include "engine/flow/pour_points.h"
#include "engine/flow/watershed_phases.h"
#include "engine/flow/watershed_resident.h"
#include "kernels/common/error.h"
#include "tests/support/flow_reference.h"
#include "tests/support/flow_test_support.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/resident_flow_support.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using MemorySink = testing::MemoryTileSink<std::uint32_t>;

// The reference D8 codes of shipped DEM `name` (255 at nodata); its raster info in `info`.
std::vector<double> shipped_codes(const std::string& name, RasterInfo& info) {
  const std::vector<double> dem = testing::read_raster_values(std::string(TERRAZO_DATASETS) + "/real/" + name, &info);
  return testing::reference_d8(dem, info.width, info.height);
}

// `codes` (255 at nodata) written to `path` as a Byte direction raster on `info`'s grid.
void write_directions(const std::string& path, std::vector<double> codes, const RasterInfo& info) {
  for (double& v : codes) v = v == 255 ? std::nan("") : v;
  testing::write_raster_values(path, info.width, info.height, codes, CellType::UInt8, 255, info);
}

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

// The resident labelling's CPU twin (kernels/flow/resident_watershed.h) on random DEM directions,
// random forests with holes, 1 x N and N x 1, windows of 8 to 64, 1 to 4 threads: the reference's labels.
TEST(ResidentWatershed, CpuTwinMatchesTheReference) {
  for (std::uint64_t seed = 1; seed <= 160; ++seed) {
    std::mt19937_64 rng(seed * 977);
    std::uint64_t w, h;
    std::uint32_t t;
    std::vector<double> codes;
    if (seed % 2) {
      testing::DirectionCase d = testing::random_direction_case(seed);
      w = d.w, h = d.h, t = d.t, codes = std::move(d.codes);
    } else {
      w = seed % 10 == 0 ? 1 : 1 + rng() % 90;
      h = seed % 10 == 4 ? 1 : 1 + rng() % 90;
      t = 8u << (rng() % 3);
      codes = testing::random_d8_forest(rng, w, h, (seed % 4) * 0.06, (seed % 3) * 0.02);
    }
    const testing::ResidentBasinRun r = testing::run_resident_watershed(Device::Cpu, codes, w, h, t, 1 + seed % 4);
    const std::string what = "seed " + std::to_string(seed) + " " + std::to_string(w) + " x " + std::to_string(h);
    ASSERT_TRUE(r.stats.exact()) << what;
    const std::vector<std::uint32_t> want = testing::reference_watershed(codes, w, h);
    EXPECT_EQ(r.labels, want) << what;
    EXPECT_EQ(r.stats.basins, want.empty() ? 0 : *std::max_element(want.begin(), want.end())) << what;
    EXPECT_EQ(r.stats.valid_cells, testing::expected_flow_faults(codes, w, h).valid) << what;
    if (::testing::Test::HasFailure()) return;
  }
}

// Random codes of every kind: the values that are no code and the cells whose flow never ends, found.
TEST(ResidentWatershed, CpuTwinFindsBadCodesAndLoops) {
  testing::check_random_any_codes(6007, [](const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                           std::uint64_t seed) {
    const testing::ResidentBasinRun r = testing::run_resident_watershed(Device::Cpu, codes, w, h, 16, 1 + seed % 3);
    const std::string what = "seed " + std::to_string(seed);
    const std::uint64_t want_bad = testing::expected_flow_faults(codes, w, h).bad;
    EXPECT_EQ(r.stats.bad_codes, want_bad) << what;
    EXPECT_EQ(r.stats.looped, testing::expected_basin_looped(codes, w, h)) << what;
    if (r.stats.exact()) {
      EXPECT_EQ(r.labels, testing::reference_watershed(codes, w, h)) << what;
    }
    return testing::FoundFaults{r.stats.looped > 0, want_bad > 0, r.stats.exact()};
  });
}

WatershedPhaseResult run_resident_case(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                       std::uint32_t t, unsigned threads, std::vector<std::uint32_t>& out,
                                       WatershedDeviceResult* device_result = nullptr) {
  WatershedResidentOptions o;
  o.threads = threads;
  o.device = Device::Cpu;
  return testing::run_phases_in_memory(codes, w, h, t, 0xdeadbeefu, out,
                                       [&](const TileInput& input, MemoryBudget& budget, WatershedTileSink& sink) {
                                         WatershedDeviceResult r =
                                             run_watershed_resident_or_tiles(input, o, budget, Progress::silent(), sink);
                                         if (device_result) *device_result = r;
                                         return r.phases;
                                       });
}

// The engine's resident path (on the CPU twin) writes the tiled phases' bytes and counts.
TEST(ResidentWatershed, ResidentPathWritesTheTiledPhasesBytes) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const testing::DirectionCase d = testing::random_direction_case(seed);
    WatershedPhaseOptions o;
    o.threads = d.threads;
    std::vector<std::uint32_t> tiled, resident;
    const WatershedPhaseResult a = testing::run_phases_in_memory(
        d.codes, d.w, d.h, d.t, 0xdeadbeefu, tiled, [&](const TileInput& input, MemoryBudget& budget, WatershedTileSink& sink) {
          return run_watershed_phases(input, o, budget, Progress::silent(), sink);
        });
    WatershedDeviceResult dr;
    const WatershedPhaseResult b = run_resident_case(d.codes, d.w, d.h, d.t, d.threads, resident, &dr);
    const std::string what = "seed " + std::to_string(seed);
    EXPECT_TRUE(dr.resident) << what << ": " << dr.fallback;
    EXPECT_EQ(tiled, resident) << what;
    EXPECT_EQ(a.valid_cells, b.valid_cells) << what;
    EXPECT_EQ(a.labelled_cells, b.labelled_cells) << what;
    EXPECT_EQ(a.basins, b.basins) << what;
    if (::testing::Test::HasFailure()) return;
  }
}

// A fault the device finds is refused by the tiled phases, with their message.
TEST(ResidentWatershed, FaultsAreRefusedWithTheTiledPhasesMessages) {
  const std::uint64_t w = 20, h = 12;
  std::vector<double> codes(w * h, 1.0);
  const auto refusal = [&](const std::vector<double>& c, std::uint32_t t) -> std::string {
    std::vector<std::uint32_t> out;
    try {
      run_resident_case(c, w, h, t, 2, out);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "ran";
  };
  std::vector<double> loop = codes;
  loop[2 * w + 7] = 1, loop[2 * w + 8] = 16;
  EXPECT_TRUE(testing::contains(refusal(loop, 8), "comes back to it across tiles")) << refusal(loop, 8);
  EXPECT_TRUE(testing::contains(refusal(loop, 16), "loops: the flow of cell 7,2 (column,row)")) << refusal(loop, 16);
  std::vector<double> wrong = codes;
  wrong[7 * w + 11] = 256;
  EXPECT_TRUE(testing::contains(refusal(wrong, 8), "at cell 11,7 (column,row), which is no D8 code")) << refusal(wrong, 8);
  EXPECT_EQ(refusal(codes, 8), "ran");
}

// Direction rasters of the shipped DEMs (the reference's D8), by the command's parser and entry
// point: the reference's labels, the same file at tiles of 64 and 256 and through an imported store
// at a small budget.
TEST(WatershedCommand, ShippedDemsMatchTheWholeRasterReference) {
  testing::TempDir dir;
  for (const std::string dem_name : {"N44W072.hgt", "pysheds_dem.tif", "nz_elev.tif"}) {
    RasterInfo info;
    const std::vector<double> codes = shipped_codes(dem_name, info);
    const std::vector<std::uint32_t> want = testing::reference_watershed(codes, info.width, info.height);
    const std::string dir_path = dir.file(dem_name + ".dir.tif");
    write_directions(dir_path, codes, info);
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
  for (const char* key : {"\"valid_cells\":17", "\"basins\":6", "\"memory_plan\"", "\"path\":", "\"device\":", "\"kernel_ms\":"})
    EXPECT_TRUE(testing::contains(ok.out, key)) << key << " in " << ok.out;
  const std::vector<double> got = testing::read_raster_values(dir.file("b.tif"));
  const std::vector<double> want = {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, std::nan(""), 6, 6, 6};
  EXPECT_TRUE(testing::same_cells(got, want));
}

}  // namespace
}  // namespace terrazo

namespace terrazo {
namespace {

// `k` random valid cells of `codes` (w x h), then for each of the first two a cell a few steps down its
// flow (when it goes on): pour points nested in others' basins. None when no cell is valid.
std::vector<std::uint64_t> random_pour_points(std::mt19937_64& rng, const std::vector<double>& codes, std::uint64_t w,
                                              std::uint64_t h, unsigned k) {
  std::vector<std::uint64_t> valid, points;
  for (std::uint64_t i = 0; i < codes.size(); ++i)
    if (testing::reference_valid(codes[i])) valid.push_back(i);
  if (valid.empty()) return points;
  for (unsigned j = 0; j < k; ++j) points.push_back(valid[rng() % valid.size()]);
  for (unsigned j = 0; j < 2 && j < k; ++j) {
    std::int64_t c = std::int64_t(points[j]);
    for (unsigned steps = 1 + rng() % 20; steps > 0; --steps) {
      const std::int64_t d = testing::reference_downstream(codes, w, h, std::uint64_t(c));
      if (d < 0) break;
      c = d;
    }
    points.push_back(std::uint64_t(c));
  }
  return points;
}

// The phases with pour points `pour` against the reference, label for label, and each pour point's
// basin; the phases' result.
WatershedPhaseResult check_pour_points(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                       std::uint32_t t, unsigned threads, const std::vector<std::uint64_t>& pour,
                                       const std::string& what) {
  WatershedPhaseOptions o;
  o.threads = threads;
  o.pour_points = pour;
  std::vector<std::uint32_t> got;
  const WatershedPhaseResult r = testing::run_phases_in_memory(
      codes, w, h, t, 0xdeadbeefu, got, [&](const TileInput& input, MemoryBudget& budget, WatershedTileSink& sink) {
        return run_watershed_phases(input, o, budget, Progress::silent(), sink);
      });
  const std::vector<std::uint32_t> want = testing::reference_pour_point_basins(codes, w, h, pour);
  testing::expect_cells_match(got, want, w, what, [&](std::uint64_t i) { return got[i] == want[i]; });
  EXPECT_EQ(r.basins, want.empty() ? 0 : *std::max_element(want.begin(), want.end())) << what;
  EXPECT_EQ(r.labelled_cells, static_cast<std::uint64_t>(std::count_if(want.begin(), want.end(), [](std::uint32_t l) { return l != 0; })))
      << what;
  EXPECT_EQ(r.pour_point_cells.size(), r.pour_point_basins.size()) << what;
  for (std::size_t i = 0; i < r.pour_point_cells.size(); ++i)
    EXPECT_EQ(r.pour_point_basins[i], want[r.pour_point_cells[i]]) << what << ": pour point " << r.pour_point_cells[i];
  return r;
}

TEST(WatershedPourPoints, RandomDirectionsMatchTheReference) {
  std::uint64_t spanning = 0, nested = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const testing::DirectionCase d = testing::random_direction_case(seed);
    std::mt19937_64 rng(seed * 31);
    const std::vector<std::uint64_t> pour = random_pour_points(rng, d.codes, d.w, d.h, 1 + rng() % 6);
    if (pour.empty()) continue;
    const WatershedPhaseResult r =
        check_pour_points(d.codes, d.w, d.h, d.t, d.threads, pour,
                          "seed " + std::to_string(seed) + " " + std::to_string(d.w) + " x " + std::to_string(d.h) +
                              " tile " + std::to_string(d.t));
    spanning += r.spanning_basins;
    // a nested pair: the downstream pour point's basin holds more than the upstream one's cells
    nested += pour.size() > 1 && pour.back() != pour[1] && r.basins >= 2;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(spanning, 20u);  // basins of pour points cross tiles
  EXPECT_GT(nested, 20u);
}

TEST(WatershedPourPoints, RandomForestsAndThinRastersMatchTheReference) {
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    const std::uint32_t tiles[] = {8, 16, 32};
    std::uint64_t w = 1 + rng() % 80, h = 1 + rng() % 80;
    if (seed % 4 == 0) w = 1;
    if (seed % 4 == 1) h = 1;
    const std::uint32_t t = tiles[rng() % 3];
    const std::vector<double> codes = testing::random_d8_forest(rng, w, h, (seed % 4) * 0.05, (seed % 3) * 0.02);
    const std::vector<std::uint64_t> pour = random_pour_points(rng, codes, w, h, 1 + rng() % 8);
    if (pour.empty()) continue;
    check_pour_points(codes, w, h, t, 1 + static_cast<unsigned>(rng() % 3), pour,
                      "seed " + std::to_string(seed) + " " + std::to_string(w) + " x " + std::to_string(h));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(WatershedPourPoints, EveryTileSizeAndThreadCountGivesTheSameLabels) {
  std::mt19937_64 rng(7);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.08), w, h);
  const std::vector<std::uint64_t> pour = random_pour_points(rng, codes, w, h, 12);
  for (std::uint32_t t : {8u, 16u, 32u, 64u, 128u})
    for (unsigned threads : {1u, 2u, 4u})
      check_pour_points(codes, w, h, t, threads, pour, "tile " + std::to_string(t) + " threads " + std::to_string(threads));
}

TEST(WatershedPourPoints, APourPointOnNodataIsRefusedNamingItsCell) {
  const std::uint64_t w = 20, h = 20;
  std::vector<double> codes(w * h, 1.0);
  for (std::uint64_t y = 8; y < 16; ++y)
    for (std::uint64_t x = 8; x < 16; ++x) codes[y * w + x] = std::nan("");  // tile (1, 1) of 8 absent
  codes[3 * w + 4] = 255;
  for (const std::uint64_t cell : {3 * w + 4, 9 * w + 9}) {
    MemoryTileInput<double> input(codes, w, h, 8);
    MemoryBudget budget(64ull << 20);
    MemorySink sink(w, h, 8, 0xdeadbeef);
    WatershedPhaseOptions o;
    o.pour_points = {0, cell};
    try {
      run_watershed_phases(input, o, budget, Progress::silent(), sink);
      ADD_FAILURE() << "a pour point on nodata ran";
    } catch (const PourPointOnNodata& e) {
      EXPECT_EQ(e.cell(), cell);
      EXPECT_TRUE(testing::contains(e.what(), std::to_string(cell % w) + "," + std::to_string(cell / w))) << e.what();
    }
  }
}

// The brute-force snap: the cell of largest value in the clipped window, the first in raster order.
std::uint64_t brute_snap(const std::vector<double>& acc, std::uint64_t w, std::uint64_t h, std::uint64_t cell,
                         std::int64_t n) {
  const std::int64_t cx = std::int64_t(cell % w), cy = std::int64_t(cell / w);
  std::uint64_t best = cell;
  bool found = false;
  for (std::int64_t y = cy - n; y <= cy + n; ++y)
    for (std::int64_t x = cx - n; x <= cx + n; ++x) {
      if (x < 0 || y < 0 || x >= std::int64_t(w) || y >= std::int64_t(h)) continue;
      const std::uint64_t i = std::uint64_t(y) * w + std::uint64_t(x);
      if (std::isnan(acc[i])) continue;
      if (!found || acc[i] > acc[best] || (acc[i] == acc[best] && i < best)) best = i;
      found = true;
    }
  return best;
}

TEST(WatershedPourPoints, SnapMatchesTheBruteForce) {
  testing::TempDir dir;
  std::uint64_t moved = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed * 613);
    const std::uint64_t w = 1 + rng() % 60, h = 1 + rng() % 60;
    std::vector<double> acc(w * h);
    for (double& v : acc) v = rng() % 7 == 0 ? std::nan("") : double(1 + rng() % (seed % 2 ? 5 : 1000));  // ties
    const std::string path = dir.file("acc" + std::to_string(seed) + ".tif");
    testing::write_raster_values(path, w, h, acc, seed % 3 ? CellType::UInt32 : CellType::Float64,
                                 seed % 3 ? 0.0 : std::nan(""));
    const auto n = static_cast<std::uint32_t>(rng() % 6);
    std::vector<WatershedPourPoint> points(1 + rng() % 10);
    for (WatershedPourPoint& p : points) p.x = rng() % w, p.y = rng() % h;
    MemoryBudget budget(64ull << 20);
    MemoryPlan plan;
    const std::unique_ptr<RasterReader> reader = RasterReader::open(path, 0, RasterReader::kExtractBand, &budget);
    plan_snap(plan, n, w, *reader);
    plan.assign(budget);
    snap_pour_points(*reader, path, w, h, n, budget, plan, points);
    for (const WatershedPourPoint& p : points) {
      const std::uint64_t want = brute_snap(acc, w, h, p.y * w + p.x, n);
      EXPECT_EQ(p.snapped_y * w + p.snapped_x, want) << "seed " << seed << " point " << p.x << "," << p.y << " n " << n;
      moved += p.snapped_x != p.x || p.snapped_y != p.y;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(moved, 50u);
}

// The command on a shipped DEM's directions: --outlet points (one on the raster's edge, two nested,
// one at the largest accumulation)
// snapped to flowacc's accumulation, then the reference's basins of the snapped points, the same
// file at every flag set (an imported store at a small budget among them), and --json's pour_points.
TEST(WatershedPourPointsCommand, ShippedDemMatchesTheReferenceWithSnap) {
  testing::TempDir dir;
  RasterInfo info;
  const std::vector<double> codes = shipped_codes("pysheds_dem.tif", info);
  const std::uint64_t w = info.width, h = info.height;
  const std::vector<std::int64_t> acc = testing::reference_flowacc_linear(codes, w, h);
  std::vector<double> acc_cells(acc.begin(), acc.end());
  for (double& v : acc_cells) v = v == 0 ? std::nan("") : v;
  std::mt19937_64 rng(5);
  std::vector<std::uint64_t> given = random_pour_points(rng, codes, w, h, 6);
  given.push_back((h / 2) * w + w - 1);  // on the right edge
  given.push_back(static_cast<std::uint64_t>(std::max_element(acc.begin(), acc.end()) - acc.begin()));  // spans tiles
  const std::uint32_t n = 3;
  std::vector<std::uint64_t> snapped;
  for (const std::uint64_t c : given) snapped.push_back(brute_snap(acc_cells, w, h, c, n));
  const std::vector<std::uint32_t> want = testing::reference_pour_point_basins(codes, w, h, snapped);
  const std::string dir_path = dir.file("dir.tif"), acc_path = dir.file("acc.tif");
  write_directions(dir_path, codes, info);
  testing::write_raster_values(acc_path, w, h, acc_cells, CellType::UInt32, 0, info);
  std::vector<std::vector<std::string>> sets = testing::kFlowFlagSets;
  for (std::vector<std::string>& set : sets) {
    set.insert(set.end(), {"--snap", std::to_string(n), "--accumulation", acc_path});
    for (const std::uint64_t c : given) set.insert(set.end(), {"--outlet", std::to_string(c % w) + "," + std::to_string(c / w)});
  }
  testing::run_at_flag_sets(
      dir, dir_path, "gauged", sets, CellType::UInt32,
      [](const std::vector<std::string>& args) {
        return run_watershed_command(parse_watershed_options(args), Progress::silent());
      },
      [&](const std::vector<double>& got, const WatershedCommandResult& r, const std::string& what) {
        testing::expect_cells_match(got, want, w, what,
                                    [&](std::uint64_t i) { return want[i] ? got[i] == want[i] : std::isnan(got[i]); });
        ASSERT_EQ(r.result.pour_points.size(), given.size()) << what;
        for (std::size_t i = 0; i < given.size(); ++i) {
          const WatershedPourPoint& p = r.result.pour_points[i];
          EXPECT_EQ(p.y * w + p.x, given[i]) << what;
          EXPECT_EQ(p.snapped_y * w + p.snapped_x, snapped[i]) << what;
          EXPECT_EQ(p.basin, want[snapped[i]]) << what;
        }
        EXPECT_GT(r.result.phases.spanning_basins, 0u) << what;
        EXPECT_TRUE(testing::contains(r.to_json(), "\"pour_points\":[{\"x\":")) << what;
      });
}

// --outlets-file: a CSV of map coordinates (lon, lat on the DEM's georeference), after the --outlet
// points; the same labels as those cells given by --outlet.
TEST(WatershedPourPointsCommand, OutletsFileTakesMapCoordinates) {
  testing::TempDir dir;
  RasterInfo info;
  const std::vector<double> codes = shipped_codes("pysheds_dem.tif", info);
  const std::string dir_path = dir.file("dir.tif");
  write_directions(dir_path, codes, info);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> cells = {{200, 150}, {31, 300}};
  {
    std::ofstream csv(dir.file("gauges.csv"));
    csv << "name,x,y\n";
    const auto& g = info.geotransform;
    for (const auto& [x, y] : cells) csv.precision(17), csv << "g," << g[0] + (x + 0.5) * g[1] << "," << g[3] + (y + 0.5) * g[5] << "\n";
  }
  const auto run = [&](std::vector<std::string> flags, const std::string& out) {
    flags.insert(flags.end(), {"-q", dir_path, dir.file(out)});
    return run_watershed_command(parse_watershed_options(flags), Progress::silent());
  };
  const WatershedCommandResult file = run({"--outlet", "10,10", "--outlets-file", dir.file("gauges.csv")}, "file.tif");
  const WatershedCommandResult flags = run({"--outlet", "10,10", "--outlet", "200,150", "--outlet", "31,300"}, "flags.tif");
  ASSERT_EQ(file.result.pour_points.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(file.result.pour_points[i + 1].x, cells[i].first);
    EXPECT_EQ(file.result.pour_points[i + 1].y, cells[i].second);
  }
  EXPECT_TRUE(testing::slurp(dir.file("file.tif")) == testing::slurp(dir.file("flags.tif")));
  EXPECT_GT(flags.result.phases.basins, 0u);
}

TEST(WatershedPourPointsCommand, UsageErrorsNameTheFlags) {
  testing::TempDir dir;
  const std::uint64_t w = 6, h = 3;
  std::vector<double> codes = {16, 16, 16, 1, 1, 1, 16, 16, 16, 1, 1, 1, 16, 16, std::nan(""), 1, 1, 1};
  const std::string d = dir.file("dir.tif"), acc = dir.file("acc.tif"), small = dir.file("small.tif");
  testing::write_raster_values(d, w, h, codes, CellType::UInt8, 255);
  testing::write_raster_values(acc, w, h, std::vector<double>(w * h, 1.0), CellType::UInt32, 0);
  testing::write_raster_values(small, 2, 2, std::vector<double>(4, 1.0), CellType::UInt32, 0);
  std::vector<double> off(w * h, 1.0);  // not these directions' counts: largest where they are nodata
  off[2 * w + 2] = 5;
  const std::string off_path = dir.file("off.tif");
  testing::write_raster_values(off_path, w, h, off, CellType::UInt32, 0);
  {
    std::ofstream empty(dir.file("none.csv"));
    empty << "x,y\n";
  }
  const testing::UsageErrorCases cases = {
      {{"--outlet", "1,1", "--snap", "2"}, "give --accumulation ACC.tif"},
      {{"--outlet", "1,1", "--accumulation", acc}, "--accumulation ACC.tif is read by --snap N and --streams THRESHOLD only"},
      {{"--snap", "1", "--accumulation", acc}, "give --outlet X,Y or --outlets-file FILE"},
      {{"--outlet", "6,1"}, "--outlet 6,1 is outside the raster (6 x 3 cells)"},
      {{"--outlet", "1,-1"}, "--outlet 1,-1 is outside the raster"},
      {{"--outlet", "1;1"}, "invalid --outlet '1;1'"},
      {{"--outlet", "2,2"}, "--outlet 2,2 is on a nodata cell of DIRECTIONS"},
      {{"--outlet", "2,2", "--snap", "0", "--accumulation", acc}, "--outlet 2,2 is on a nodata cell"},
      {{"--outlet", "1,2", "--snap", "1", "--accumulation", off_path}, "--outlet 1,2 (snapped to 2,2) is on a nodata cell"},
      {{"--outlet", "1,1", "--snap", "1", "--accumulation", small}, "--accumulation '" + small + "' is 2 x 2 cells"},
      {{"--outlet", "1,1", "--snap", "-1", "--accumulation", acc}, "invalid --snap -1"},
      {{"--outlets-file", dir.file("none.csv")}, "--outlets-file"},
      {{"--map-coords"}, "--map-coords applies to --outlet values"},
  };
  testing::expect_usage_errors("watershed", cases, d, dir.file("b.tif"));
  // Two pour points: basin 1 is row 0's cells 3..5 draining east to 5,0 (first cell 3,0), basin 2 is 0,2 and 1,2.
  const testing::CliRun ok = testing::run_terrazo(
      {"watershed", "-q", "--json", "--outlet", "0,2", "--outlet", "5,0", d, dir.file("b.tif")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  for (const char* key : {"\"labelled_cells\":5", "\"basins\":2", "\"snap\":null",
                          "\"pour_points\":[{\"x\":0,\"y\":2,\"snapped_x\":0,\"snapped_y\":2,\"basin\":2},"
                          "{\"x\":5,\"y\":0,\"snapped_x\":5,\"snapped_y\":0,\"basin\":1}]"})
    EXPECT_TRUE(testing::contains(ok.out, key)) << key << " in " << ok.out;
}

}  // namespace
}  // namespace terrazo
