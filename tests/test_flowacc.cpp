// tests/test_flowacc.cpp: out-of-core flow accumulation (engine/flow/flowacc_phases.h, `terrazo
// flowacc`) against the whole-raster references of tests/support/flow_reference.h, exactly: random
// direction rasters from random DEMs (steepest descent, flats drained by a fixed rule) and random
// forests of directions, nodata holes, absent tiles, 1 x N and odd sizes, tiles of 8 to 64 dividing
// the raster or not, 1 to 3 threads; weights with nodata; loops and bad codes refused; the plan's
// refusal before any work; the shipped DEMs by the command's parser and entry point. The resident path
// (engine/flow/flowacc_resident.h) on the CPU twin of its GPU solver (kernels/flow/resident_flowacc.h):
// the same values and counts as the references and as the tiled phases, its faults (bad codes, bad
// weights, loops, overflow) found on random codes and refused through the tiled phases' messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/flowacc_command.h"
#include "engine/flow/flowacc_phases.h"
#include "engine/flow/flowacc_resident.h"
#include "kernels/common/error.h"
#include "tests/support/flow_reference.h"
#include "tests/support/flow_test_support.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/resident_flow_support.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using MemorySink = testing::MemoryTileSink<double>;

struct Case {
  std::uint64_t w, h;
  std::uint32_t t;
  unsigned threads;
};

std::string name(const Case& c) {
  return std::to_string(c.w) + " x " + std::to_string(c.h) + " tile " + std::to_string(c.t) + " threads " +
         std::to_string(c.threads);
}

FlowAccPhaseResult run_case(const std::vector<double>& codes, const Case& c, std::vector<double>& out,
                            const std::vector<double>* weights = nullptr, double scale = 1) {
  std::unique_ptr<MemoryTileInput<double>> weight_input;
  if (weights) weight_input = std::make_unique<MemoryTileInput<double>>(*weights, c.w, c.h, c.t, MemoryTileInput<double>::Absent::Never);
  FlowAccPhaseOptions o;
  o.threads = c.threads;
  o.scale = scale;
  return testing::run_phases_in_memory(codes, c.w, c.h, c.t, -12345.0, out,
                                       [&](const TileInput& input, MemoryBudget& budget, FlowAccTileSink& sink) {
                                         return run_flowacc_phases(input, weight_input.get(), o, budget,
                                                                   Progress::silent(), sink);
                                       });
}

// The phases' counts equal the reference's at every valid cell and are NaN at nodata.
FlowAccPhaseResult check_counts(const std::vector<double>& codes, const Case& c, const std::string& what) {
  std::vector<double> got;
  const FlowAccPhaseResult r = run_case(codes, c, got);
  const std::vector<std::int64_t> want = testing::reference_flowacc(codes, c.w, c.h);
  testing::expect_cells_match(got, want, c.w, what, [&](std::uint64_t i) {
    return testing::reference_valid(codes[i]) ? got[i] == static_cast<double>(want[i]) : std::isnan(got[i]);
  });
  std::uint64_t valid = 0, outlets = 0;
  for (std::uint64_t i = 0; i < want.size(); ++i) {
    const bool is_valid = testing::reference_valid(codes[i]);
    valid += is_valid;
    outlets += is_valid && testing::reference_downstream(codes, c.w, c.h, i) < 0;
  }
  EXPECT_EQ(r.valid_cells, valid) << what;
  EXPECT_EQ(r.outlets, outlets) << what;
  return r;
}

TEST(FlowAcc, RandomDemDirectionsMatchTheWholeRasterReference) {
  std::uint64_t exits = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const testing::DirectionCase d = testing::random_direction_case(seed);
    const Case c{d.w, d.h, d.t, d.threads};
    exits += check_counts(d.codes, c, "seed " + std::to_string(seed) + " " + name(c)).exits;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(exits, 1000u);  // the flow crosses tiles
}

TEST(FlowAcc, RandomForestsMatchTheWholeRasterReference) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint32_t tiles[] = {8, 16, 32};
    const Case c{1 + rng() % 80, 1 + rng() % 80, tiles[rng() % 3], 1 + static_cast<unsigned>(rng() % 3)};
    const std::vector<double> codes = testing::random_d8_forest(rng, c.w, c.h, (seed % 4) * 0.05, (seed % 3) * 0.02);
    check_counts(codes, c, "seed " + std::to_string(seed) + " " + name(c));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(FlowAcc, TheTwoReferencesAgree) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint64_t w = 1 + rng() % 60, h = 1 + rng() % 60;
    const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.1), w, h);
    EXPECT_EQ(testing::reference_flowacc(codes, w, h), testing::reference_flowacc_linear(codes, w, h)) << seed;
  }
}

// The same raster at every tile size and thread count: the same values.
TEST(FlowAcc, EveryTileSizeAndThreadCountGivesTheSameValues) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.08), w, h);
  for (std::uint32_t t : {8u, 16u, 32u, 64u, 128u, 256u})
    for (unsigned threads : {1u, 2u, 4u}) check_counts(codes, Case{w, h, t, threads}, name(Case{w, h, t, threads}));
}

TEST(FlowAcc, TheSameValuesWhicheverTilesAreKeptForTheWrite) {
  std::mt19937_64 rng(77);
  const std::uint64_t w = 150, h = 130;
  FlowAccPhaseOptions o;
  o.threads = 2;
  testing::expect_same_bytes_whichever_tiles_are_kept(
      testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.08), w, h), w, h, 16, -12345.0,
      [&](const TileInput& input, MemoryBudget& budget, FlowAccTileSink& sink) {
        return run_flowacc_phases(input, nullptr, o, budget, Progress::silent(), sink);
      },
      64ull << 10, 512ull << 10, 2048, "flowacc");
}

// Weights with nodata (counted 0) and negative values: the fixed-point sums of llround(w x scale).
TEST(FlowAcc, WeightsMatchTheReferenceInFixedPoint) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed * 31);
    std::uniform_real_distribution<double> unit(-0.5, 2);
    const Case c{1 + rng() % 70, 1 + rng() % 70, seed % 2 ? 8u : 16u, 1 + static_cast<unsigned>(rng() % 3)};
    const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, c.w, c.h, 0.05), c.w, c.h);
    std::vector<double> weights(c.w * c.h);
    std::vector<std::int64_t> amount(c.w * c.h);
    const double scale = seed % 3 == 0 ? 1.0 : 1000.0;
    for (std::uint64_t i = 0; i < weights.size(); ++i) {
      weights[i] = rng() % 9 == 0 ? std::nan("") : unit(rng);
      amount[i] = std::isnan(weights[i]) ? 0 : std::llround(weights[i] * scale);
    }
    std::vector<double> got;
    run_case(codes, c, got, &weights, scale);
    const std::vector<std::int64_t> want = testing::reference_flowacc(codes, c.w, c.h, amount);
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < want.size(); ++i)
      wrong += testing::reference_valid(codes[i]) ? got[i] != static_cast<double>(want[i]) / scale : !std::isnan(got[i]);
    EXPECT_EQ(wrong, 0u) << "seed " << seed << " " << name(c);
  }
}

std::string refusal(const std::vector<double>& codes, const Case& c) {
  std::vector<double> got;
  try {
    run_case(codes, c, got);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "ran";
}

// A loop inside a tile, one across tiles, and values that are no code: refused, naming a cell.
TEST(FlowAcc, LoopsAndBadCodesAreRefusedNamingACell) {
  const std::uint64_t w = 20, h = 12;
  std::vector<double> codes(w * h, 1.0);  // all east: drains off the right edge
  std::vector<double> loop = codes;
  loop[5 * w + 3] = 1, loop[5 * w + 4] = 4, loop[6 * w + 4] = 16, loop[6 * w + 3] = 64;  // a 2 x 2 loop in tile (0, 0)
  EXPECT_TRUE(testing::contains(refusal(loop, Case{w, h, 16, 2}), "loops: the flow of cell 3,5 (column,row) comes back "
                                                                  "to it after 4 cells"))
      << refusal(loop, Case{w, h, 16, 2});
  std::vector<double> across = codes;
  across[2 * w + 7] = 1, across[2 * w + 8] = 16;  // 7 -> 8 -> 7 across the border of tiles of 8
  EXPECT_TRUE(testing::contains(refusal(across, Case{w, h, 8, 2}), "comes back to it across tiles"))
      << refusal(across, Case{w, h, 8, 2});
  EXPECT_TRUE(testing::contains(refusal(across, Case{w, h, 16, 1}), "loops: the flow of cell 7,2 (column,row)"));
  for (const double bad : {3.0, 1.5, -1.0, 256.0}) {
    std::vector<double> wrong = codes;
    wrong[7 * w + 11] = bad;
    EXPECT_TRUE(testing::contains(refusal(wrong, Case{w, h, 8, 3}), "at cell 11,7 (column,row), which is no D8 code"))
        << bad << ": " << refusal(wrong, Case{w, h, 8, 3});
  }
  EXPECT_EQ(refusal(codes, Case{w, h, 8, 3}), "ran");
}

// A budget that cannot hold a batch of tiles' work beside the links is refused before any work.
TEST(FlowAcc, TooSmallABudgetIsRefusedBeforeAnyWork) {
  std::mt19937_64 rng(3);
  const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, 300, 200, 0.05), 300, 200);
  MemoryTileInput<double> input(codes, 300, 200, 64);
  FlowAccPhaseOptions o;
  o.threads = 2;
  MemoryBudget budget(256ull << 10);
  MemorySink sink(300, 200, 64, -12345.0);
  testing::expect_refused_before_any_work(
      [&](Progress& progress) { run_flowacc_phases(input, nullptr, o, budget, progress, sink); },
      "memory budget too small for flowacc: ");
}

TEST(FlowAcc, DefaultScaleKeepsEverySumWithin62Bits) {
  EXPECT_EQ(default_flowacc_scale(1000, 1000, true), 1);
  EXPECT_EQ(default_flowacc_scale(0, 1000, false), 1);
  EXPECT_EQ(default_flowacc_scale(2.5, 0, false), 1);
  const double s = default_flowacc_scale(3.7, 16777216, false);
  EXPECT_LE(3.7 * 16777216 * s, 4611686018427387904.0);
  EXPECT_GT(3.7 * 16777216 * s * 10, 4611686018427387904.0);
  EXPECT_EQ(s, 1e10);
}

// The resident solver's CPU twin on direction rasters of random DEMs (holes, blank tile rows, 1 x N,
// odd sizes, windows of 8 to 64, 1 to 4 threads): the reference's values, valid cells, outlets and
// largest, no fault.
TEST(ResidentFlowAcc, CpuTwinMatchesTheReferenceOnRandomDemDirections) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    testing::DirectionCase d = testing::random_direction_case(seed);
    if (seed % 10 == 0 || seed % 10 == 5) {  // 1 x N and N x 1
      (seed % 10 == 0 ? d.h : d.w) = 1;
      std::mt19937_64 rng(seed);
      d.codes = testing::reference_d8(testing::random_unit_terrain(rng, d.w, d.h, 0.05), d.w, d.h);
    }
    const unsigned threads = 1 + static_cast<unsigned>(seed % 4);
    const testing::ResidentFlowRun r = testing::run_resident_flowacc(Device::Cpu, d.codes, d.w, d.h, d.t, threads);
    const testing::ExpectedFlowFaults e = testing::expected_flow_faults(d.codes, d.w, d.h);
    const std::string what = "seed " + std::to_string(seed) + " " + std::to_string(d.w) + " x " + std::to_string(d.h);
    ASSERT_TRUE(r.stats.exact()) << what;
    const std::vector<double> want = testing::expected_flow_values(d.codes, d.w, d.h);
    EXPECT_TRUE(testing::same_flow_bits(r.values, want)) << what;
    EXPECT_EQ(r.stats.valid_cells, e.valid) << what;
    EXPECT_EQ(r.stats.outlets, e.outlets) << what;
    const std::vector<std::int64_t> acc = testing::reference_flowacc(d.codes, d.w, d.h);
    EXPECT_EQ(r.stats.largest, e.valid ? *std::max_element(acc.begin(), acc.end()) : 0) << what;
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ResidentFlowAcc, CpuTwinMatchesTheReferenceOnRandomForestsAndWeights) {
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    const std::uint64_t w = 1 + rng() % 90, h = 1 + rng() % 90;
    const std::uint32_t t = 8u << (rng() % 3);
    const std::vector<double> codes = testing::random_d8_forest(rng, w, h, (seed % 4) * 0.06, (seed % 3) * 0.02);
    const double scale = seed % 3 == 0 ? 1.0 : 1000.0;
    std::vector<std::int64_t> amount;
    const std::vector<double> weights = testing::random_flow_weights(rng, w * h, scale, amount);
    const bool weighted = seed % 2 == 0;
    const testing::ResidentFlowRun r = testing::run_resident_flowacc(Device::Cpu, codes, w, h, t, 1 + seed % 3,
                                                                     weighted ? &weights : nullptr, weighted ? scale : 1);
    const std::string what = "seed " + std::to_string(seed) + " " + std::to_string(w) + " x " + std::to_string(h);
    ASSERT_TRUE(r.stats.exact()) << what;
    const std::vector<double> want = weighted ? testing::expected_flow_values(codes, w, h, amount, scale)
                                              : testing::expected_flow_values(codes, w, h);
    EXPECT_TRUE(testing::same_flow_bits(r.values, want)) << what;
    EXPECT_EQ(r.stats.outlets, testing::expected_flow_faults(codes, w, h).outlets) << what;
    if (::testing::Test::HasFailure()) return;
  }
}

// Random codes of every kind: the twin reports exactly the values that are no code and the cells on
// loops (the rasters that have neither: the reference's values).
TEST(ResidentFlowAcc, CpuTwinFindsBadCodesAndLoops) {
  testing::check_random_any_codes(7121, [](const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                           std::uint64_t seed) {
    const testing::ResidentFlowRun r = testing::run_resident_flowacc(Device::Cpu, codes, w, h, 16, 1 + seed % 3);
    const testing::ExpectedFlowFaults e = testing::expected_flow_faults(codes, w, h);
    const std::string what = "seed " + std::to_string(seed);
    EXPECT_EQ(r.stats.bad_codes, e.bad) << what;
    EXPECT_EQ(r.stats.looped, e.looped) << what;
    EXPECT_EQ(r.stats.valid_cells, e.valid) << what;
    EXPECT_EQ(r.stats.outlets, e.outlets) << what;
    if (r.stats.exact()) {
      EXPECT_TRUE(testing::same_flow_bits(r.values, testing::expected_flow_values(codes, w, h))) << what;
    }
    return testing::FoundFaults{e.looped > 0, e.bad > 0, r.stats.exact()};
  });
}

// Weights no fixed point holds, and sums past int64: reported, not wrapped.
TEST(ResidentFlowAcc, CpuTwinFindsBadWeightsAndOverflow) {
  const std::uint64_t w = 9, h = 3;
  const std::vector<double> codes(w * h, 1.0);  // every row east, off the right edge
  std::vector<double> weights(w * h, 1.0);
  EXPECT_TRUE(testing::run_resident_flowacc(Device::Cpu, codes, w, h, 4, 2, &weights, 1).stats.exact());
  weights[13] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(testing::run_resident_flowacc(Device::Cpu, codes, w, h, 4, 2, &weights, 1).stats.bad_weights, 1u);
  weights[13] = 1e19;
  EXPECT_EQ(testing::run_resident_flowacc(Device::Cpu, codes, w, h, 4, 2, &weights, 1).stats.bad_weights, 1u);
  weights[13] = 1;
  weights[10] = weights[11] = 4e18;  // row 1: 4e18 + 4e18 + 1 fits, + 4e18 at cell 12 does not
  EXPECT_TRUE(testing::run_resident_flowacc(Device::Cpu, codes, w, h, 4, 2, &weights, 1).stats.exact());
  weights[12] = 4e18;
  const ResidentFlowAccStats s = testing::run_resident_flowacc(Device::Cpu, codes, w, h, 4, 2, &weights, 1).stats;
  EXPECT_TRUE(s.overflow);
  EXPECT_EQ(s.bad_weights + s.bad_codes + s.looped, 0u);
}

FlowAccPhaseResult run_resident_case(const std::vector<double>& codes, const Case& c, std::vector<double>& out,
                                     const std::vector<double>* weights = nullptr, double scale = 1,
                                     FlowAccDeviceResult* device_result = nullptr) {
  std::unique_ptr<MemoryTileInput<double>> weight_input;
  if (weights) weight_input = std::make_unique<MemoryTileInput<double>>(*weights, c.w, c.h, c.t, MemoryTileInput<double>::Absent::Never);
  FlowAccResidentOptions o;
  o.threads = c.threads;
  o.scale = scale;
  o.device = Device::Cpu;
  return testing::run_phases_in_memory(codes, c.w, c.h, c.t, -12345.0, out,
                                       [&](const TileInput& input, MemoryBudget& budget, FlowAccTileSink& sink) {
                                         FlowAccDeviceResult r = run_flowacc_resident_or_tiles(
                                             input, weight_input.get(), o, budget, Progress::silent(), sink);
                                         if (device_result) *device_result = r;
                                         return r.phases;
                                       });
}

// The engine's resident path (on the CPU twin) writes the tiled phases' bytes (absent tiles, tile
// sizes that do and do not divide the raster, weights) and their counts.
TEST(ResidentFlowAcc, ResidentPathWritesTheTiledPhasesBytes) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const testing::DirectionCase d = testing::random_direction_case(seed);
    const Case c{d.w, d.h, d.t, d.threads};
    std::vector<double> tiled, resident, weights;
    const bool weighted = seed % 3 == 0;
    if (weighted) {
      std::mt19937_64 rng(seed);
      std::vector<std::int64_t> amount;
      weights = testing::random_flow_weights(rng, c.w * c.h, 100, amount);
    }
    const FlowAccPhaseResult a = run_case(d.codes, c, tiled, weighted ? &weights : nullptr, weighted ? 100 : 1);
    FlowAccDeviceResult dr;
    const FlowAccPhaseResult b = run_resident_case(d.codes, c, resident, weighted ? &weights : nullptr,
                                                   weighted ? 100 : 1, &dr);
    const std::string what = "seed " + std::to_string(seed) + " " + name(c);
    EXPECT_TRUE(dr.resident) << what << ": " << dr.fallback;
    ASSERT_EQ(tiled.size(), resident.size()) << what;
    EXPECT_EQ(std::memcmp(tiled.data(), resident.data(), tiled.size() * sizeof(double)), 0) << what;
    EXPECT_EQ(a.valid_cells, b.valid_cells) << what;
    EXPECT_EQ(a.outlets, b.outlets) << what;
    EXPECT_EQ(a.largest, b.largest) << what;
    if (::testing::Test::HasFailure()) return;
  }
}

std::string resident_refusal(const std::vector<double>& codes, const Case& c, const std::vector<double>* weights = nullptr) {
  std::vector<double> got;
  try {
    run_resident_case(codes, c, got, weights);
  } catch (const Error& e) {
    return e.what();
  }
  return "ran";
}

// A fault the device finds is refused by the tiled phases, with their message.
TEST(ResidentFlowAcc, FaultsAreRefusedWithTheTiledPhasesMessages) {
  const std::uint64_t w = 20, h = 12;
  std::vector<double> codes(w * h, 1.0);
  std::vector<double> loop = codes;
  loop[2 * w + 7] = 1, loop[2 * w + 8] = 16;
  EXPECT_EQ(resident_refusal(loop, Case{w, h, 8, 2}), refusal(loop, Case{w, h, 8, 2}));
  EXPECT_TRUE(testing::contains(resident_refusal(loop, Case{w, h, 16, 1}), "loops: the flow of cell 7,2 (column,row)"));
  std::vector<double> wrong = codes;
  wrong[7 * w + 11] = 1.5;
  EXPECT_TRUE(testing::contains(resident_refusal(wrong, Case{w, h, 8, 3}), "at cell 11,7 (column,row), which is no D8 code"));
  std::vector<double> weights(w * h, 4e18);
  EXPECT_TRUE(testing::contains(resident_refusal(codes, Case{w, h, 8, 2}, &weights), "overflows 64 bits"));
  EXPECT_EQ(resident_refusal(codes, Case{w, h, 8, 3}), "ran");
}

// Direction rasters of the shipped DEMs (the reference's D8), by the command's parser and entry
// point: the reference's counts, the same file at tiles of 64 and 256, and through an imported store
// at a small budget.
TEST(FlowAccCommand, ShippedDemsMatchTheWholeRasterReference) {
  testing::TempDir dir;
  const std::string real = std::string(TERRAZO_DATASETS) + "/real/";
  for (const std::string dem_name : {"N44W072.hgt", "Mega_divide.bil", "pysheds_dem.tif", "rhine_elv0.tif", "nz_elev.tif"}) {
    RasterInfo info;
    const std::vector<double> dem = testing::read_raster_values(real + dem_name, &info);
    const std::vector<double> codes = testing::reference_d8(dem, info.width, info.height);
    const std::string dir_path = dir.file(dem_name + ".dir.tif");
    std::vector<double> written = codes;
    for (double& v : written) v = v == 255 ? std::nan("") : v;
    testing::write_raster_values(dir_path, info.width, info.height, written, CellType::UInt8, 255, info);
    const std::vector<std::int64_t> want = testing::reference_flowacc_linear(codes, info.width, info.height);
    testing::run_at_flag_sets(
        dir, dir_path, dem_name + ".acc", testing::kFlowFlagSets, CellType::UInt32,
        [](const std::vector<std::string>& args) { return run_flowacc_command(parse_flowacc_options(args), Progress::silent()); },
        [&](const std::vector<double>& got, const FlowaccCommandResult& r, const std::string& what) {
          testing::expect_cells_match(got, want, info.width, what, [&](std::uint64_t i) {
            return testing::reference_valid(codes[i]) ? got[i] == static_cast<double>(want[i]) : std::isnan(got[i]);
          });
          EXPECT_GT(r.result.phases.exits, 0u) << what;
        });
  }
}

// The program: --json's keys, a loop's exit status 2 and message, and no output left behind.
TEST(FlowAccCommand, ProgramPrintsJsonAndRefusesALoop) {
  testing::TempDir dir;
  const std::uint64_t w = 40, h = 30;
  std::mt19937_64 rng(5);
  const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.0), w, h);
  testing::write_raster_values(dir.file("dir.tif"), w, h, codes, CellType::UInt8, 255);
  const testing::CliRun ok = testing::run_terrazo({"flowacc", "--json", "-q", "--device", "cpu", "--tile", "16", dir.file("dir.tif"), dir.file("acc.tif")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  for (const char* key : {"\"valid_cells\":1200", "\"type\":\"UInt32\"", "\"memory_plan\"", "\"largest\"", "\"exits\"",
                          "\"device\":\"cpu\"", "\"path\":\"tiles\"", "\"kernel_ms\":"})
    EXPECT_TRUE(testing::contains(ok.out, key)) << key << " in " << ok.out;
  std::vector<double> loop = codes;
  loop[3 * w + 20] = 1, loop[3 * w + 21] = 16;
  testing::write_raster_values(dir.file("loop.tif"), w, h, loop, CellType::UInt8, 255);
  const testing::CliRun refused = testing::run_terrazo({"flowacc", "-q", dir.file("loop.tif"), dir.file("bad.tif")});
  EXPECT_EQ(refused.code, 2);
  EXPECT_TRUE(testing::contains(refused.err, "loops: the flow of cell 20,3 (column,row)")) << refused.err;
  EXPECT_TRUE(testing::slurp(dir.file("bad.tif")).empty());
}

}  // namespace
}  // namespace terrazo
