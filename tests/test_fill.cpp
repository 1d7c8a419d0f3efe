// tests/test_fill.cpp: out-of-core depression filling (engine/flow/fill_phases.h) against the
// whole-raster Priority-Flood (tests/support/fill_reference.h), bit for bit: random rasters with pits,
// plateaus of equal values, nodata holes and absent tiles, every outlet mode, 4 and 8 neighbours,
// tiles of 8 to 64 and 1 to 3 threads; the shipped DEMs; the plan's refusal before any work. The
// resident fill's CPU twin (kernels/flow/resident_fill.h, the GPU path's logic) against the same oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/fill_command.h"
#include "engine/flow/fill_phases.h"
#include "engine/flow/fill_resident.h"
#include "kernels/flow/resident_fill.h"
#include "kernels/common/error.h"
#include "tests/support/fill_reference.h"
#include "tests/support/flow_test_support.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/resident_fill_run.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using MemorySink = testing::MemoryTileSink<double>;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

struct FillCase {
  std::uint64_t w, h;
  std::uint32_t t;
  unsigned threads;
  FillRules rules;
};

// The whole-raster oracle's fill of `dem` under the case's rules.
std::vector<double> oracle_fill(const std::vector<double>& dem, const FillCase& c) {
  return testing::reference_fill(dem, c.w, c.h, c.rules.connectivity == Connectivity::Eight, c.rules.edge_outlets,
                                 c.rules.nodata_outlets);
}

// The cells of `dem` that are valid, raised and closed in the oracle's fill `want`.
ResidentFillCounts oracle_counts(const std::vector<double>& dem, const std::vector<double>& want) {
  ResidentFillCounts n;
  for (std::uint64_t i = 0; i < want.size(); ++i) {
    n.valid += !std::isnan(dem[i]);
    n.closed += !std::isnan(dem[i]) && std::isnan(want[i]);
    n.raised += !std::isnan(want[i]) && want[i] > dem[i];
  }
  return n;
}

FillPhaseOptions phase_options(const FillCase& c) {
  FillPhaseOptions o;
  static_cast<FillRules&>(o) = c.rules;
  o.threads = c.threads;
  return o;
}

FillPhaseResult check_case(const std::vector<double>& dem, const FillCase& c, const std::string& what) {
  const FillPhaseOptions o = phase_options(c);
  std::vector<double> got;
  const FillPhaseResult r = testing::run_phases_in_memory(
      dem, c.w, c.h, c.t, -12345.0, got, [&](const TileInput& input, MemoryBudget& budget, FillTileSink& sink) {
        return run_fill_phases(input, o, budget, Progress::silent(), sink);
      });
  const std::vector<double> want = oracle_fill(dem, c);
  testing::expect_cells_match(got, want, c.w, what, [&](std::uint64_t i) { return same_bits(got[i], want[i]); });
  const ResidentFillCounts n = oracle_counts(dem, want);
  EXPECT_EQ(r.valid_cells, n.valid) << what;
  EXPECT_EQ(r.closed_cells, n.closed) << what;
  EXPECT_EQ(r.raised_cells, n.raised) << what;
  return r;
}

TEST(Fill, RandomRastersMatchTheWholeRasterPriorityFlood) {
  std::uint64_t raised = 0, closed = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint32_t tiles[] = {8, 16, 32, 64};
    FillCase c{20 + rng() % 90, 20 + rng() % 90, tiles[rng() % 4], 1 + static_cast<unsigned>(rng() % 3),
               {rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight, rng() % 4 != 0, rng() % 4 != 1}};
    if (!c.rules.edge_outlets && !c.rules.nodata_outlets) c.rules.edge_outlets = true;
    std::vector<double> dem = testing::random_terrain(rng, c.w, c.h, seed % 3 == 0 ? 0.0 : 0.05 + 0.1 * (seed % 2));
    if (seed % 7 == 0) testing::blank_tile_row(dem, c.w, c.h, c.t);
    const FillPhaseResult r = check_case(dem, c,
                                         "seed " + std::to_string(seed) + " " + std::to_string(c.w) + " x " +
                                             std::to_string(c.h) + " tile " + std::to_string(c.t) + " threads " +
                                             std::to_string(c.threads) + (c.rules.edge_outlets ? " edge" : "") +
                                             (c.rules.nodata_outlets ? " nodata" : "") + " outlets, " +
                                             std::to_string(static_cast<int>(c.rules.connectivity)) + " neighbours");
    raised += r.raised_cells;
    closed += r.closed_cells;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(raised, 1000u);  // the cases fill pits
  EXPECT_GT(closed, 0u);     // and some regions have no outlet (edge or nodata outlets alone)
}

// Budgets that keep none, some and all of the first pass's floods: the same bits.
TEST(Fill, TheSameBitsWhicheverTilesAreKeptForTheWrite) {
  std::mt19937_64 rng(77);
  const std::uint64_t w = 150, h = 130;
  FillPhaseOptions o;
  o.threads = 2;
  testing::expect_same_bytes_whichever_tiles_are_kept(
      testing::random_terrain(rng, w, h, 0.05), w, h, 16, -12345.0,
      [&](const TileInput& input, MemoryBudget& budget, FillTileSink& sink) {
        return run_fill_phases(input, o, budget, Progress::silent(), sink);
      },
      1ull << 20, 12ull << 20, 64ull << 10, "fill");
}

// The same raster at every tile size and thread count: the same bits (the oracle's).
TEST(Fill, EveryTileSizeAndThreadCountGivesTheSameBits) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> dem = testing::random_terrain(rng, w, h, 0.08);
  for (std::uint32_t t : {8u, 16u, 32u, 64u, 128u})
    for (unsigned threads : {1u, 2u, 4u})
      check_case(dem, FillCase{w, h, t, threads, {Connectivity::Eight, true, true}},
                 "tile " + std::to_string(t) + " threads " + std::to_string(threads));
}

// `terrazo fill` on the shipped DEMs (one with 49% nodata), by the command's own parser and entry
// point: the whole-raster Priority-Flood's values in INPUT's type, the same file bytes at tiles of 64
// and 256, and the closed cells only where the outlets leave none.
TEST(FillCommand, ShippedDemsMatchTheWholeRasterPriorityFlood) {
  testing::TempDir dir;
  const std::string real = std::string(TERRAZO_DATASETS) + "/real/";
  std::uint64_t raised = 0;
  for (const std::string name : {"N44W072.hgt", "Mega_divide.bil", "pysheds_dem.tif", "rhine_elv0.tif", "nz_elev.tif"}) {
    RasterInfo info;
    const std::vector<double> dem = testing::read_raster_values(real + name, &info);
    for (const std::string outlets : {"both", "edge"}) {
      const std::vector<double> want = testing::reference_fill(dem, info.width, info.height, true, true, outlets == "both");
      testing::run_at_flag_sets(
          dir, real + name, name + "." + outlets, {{"--tile", "64", "--outlets", outlets}, {"--tile", "256", "--outlets", outlets}},
          info.type,
          [](const std::vector<std::string>& args) { return run_fill_command(parse_fill_options(args), Progress::silent()); },
          [&](const std::vector<double>& got, const FillCommandResult& r, const std::string& what) {
            testing::expect_cells_match(got, want, info.width, what, [&](std::uint64_t i) { return same_bits(got[i], want[i]); });
            raised += r.result.phases.raised_cells;
          });
    }
  }
  EXPECT_GT(raised, 100000u);
}

// A rectangle's outline of nodata (a region it closes has no outlet with edge outlets alone).
void nodata_outline(std::vector<double>& dem, std::uint64_t w, std::uint64_t h, std::mt19937_64& rng) {
  if (w < 3 || h < 3) return;
  const std::uint64_t x0 = rng() % (w - 2), y0 = rng() % (h - 2);
  const std::uint64_t x1 = x0 + 2 + rng() % (w - x0 - 2), y1 = y0 + 2 + rng() % (h - y0 - 2);
  for (std::uint64_t x = x0; x <= x1; ++x) dem[y0 * w + x] = dem[y1 * w + x] = std::nan("");
  for (std::uint64_t y = y0; y <= y1; ++y) dem[y * w + x0] = dem[y * w + x1] = std::nan("");
}

// The resident fill's CPU twin on random rasters (1 x N, odd sizes, tile sides that do and do not
// divide them, pits, plateaus and signed zeros of the rounded terrain, nodata blobs and closed
// outlines, every outlet mode, 4 and 8 neighbours, 1 to 3 threads, groups and rounds of every width):
// the oracle's bits and counts.
TEST(ResidentFill, CpuTwinMatchesTheWholeRasterPriorityFlood) {
  std::uint64_t raised = 0, closed = 0, rounds = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint32_t gs[] = {2, 3, 5, 8, 16, 32, 64};
    ResidentFillOptions o;
    o.width = seed % 10 == 0 ? 1 : 1 + rng() % 90;
    o.height = seed % 10 == 5 ? 1 : 1 + rng() % 90;
    o.g = gs[rng() % 7];
    o.connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    const int outlets = static_cast<int>(rng() % 3);  // both, edge, nodata
    o.edge_outlets = outlets != 2;
    o.nodata_outlets = outlets != 1;
    o.batch_tiles = rng() % 2 ? 1 + rng() % 3 : 4096;
    o.round_tiles = rng() % 2 ? 1 + rng() % 3 : 2048;
    const unsigned threads = 1 + static_cast<unsigned>(rng() % 3);
    std::vector<double> dem = testing::random_terrain(rng, o.width, o.height, seed % 3 == 0 ? 0.0 : 0.05 + 0.1 * (seed % 2));
    if (seed % 4 == 1) nodata_outline(dem, o.width, o.height, rng);
    const std::string what = "seed " + std::to_string(seed) + " " + std::to_string(o.width) + " x " +
                             std::to_string(o.height) + " g " + std::to_string(o.g) + " outlets " +
                             std::to_string(outlets) + " " + std::to_string(static_cast<int>(o.connectivity)) +
                             " neighbours, threads " + std::to_string(threads);
    ResidentFillStats stats;
    ResidentFillCounts counts;
    const std::vector<double> got = testing::run_resident_fill(Device::Cpu, o, dem, threads, &stats, &counts);
    const std::vector<double> want = testing::reference_fill(dem, o.width, o.height, o.connectivity == Connectivity::Eight,
                                                             o.edge_outlets, o.nodata_outlets);
    testing::expect_cells_match(got, want, o.width, what, [&](std::uint64_t i) { return same_bits(got[i], want[i]); });
    testing::expect_same_counts(counts, oracle_counts(dem, want), what);
    EXPECT_LE(stats.tiles_solved, stats.solves) << what;
    raised += counts.raised;
    closed += counts.closed;
    rounds += stats.rounds;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(raised, 1000u);  // the cases fill pits
  EXPECT_GT(closed, 100u);   // and close regions
  EXPECT_GT(rounds, 300u);
}

// The same raster at every tile side, thread count, group and round width: the same bits and the
// same counts (and the same rounds and solves at one tile side and round width, whatever the threads).
TEST(ResidentFill, EveryTileSideAndThreadCountGivesTheSameBits) {
  std::mt19937_64 rng(4711);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> dem = testing::random_terrain(rng, w, h, 0.08);
  const std::vector<double> want = testing::reference_fill(dem, w, h, true, true, true);
  for (std::uint32_t g : {4u, 7u, 16u, 64u, 200u}) {
    ResidentFillStats first;
    for (unsigned threads : {1u, 2u, 4u}) {
      ResidentFillOptions o;
      o.width = w;
      o.height = h;
      o.g = g;
      o.batch_tiles = 3;  // groups of 3 on any thread count (the CPU twin's groups are at most 4 per thread)
      o.round_tiles = 8;
      ResidentFillStats stats;
      ResidentFillCounts counts;
      const std::vector<double> got = testing::run_resident_fill(Device::Cpu, o, dem, threads, &stats, &counts);
      const std::string what = "g " + std::to_string(g) + " threads " + std::to_string(threads);
      testing::expect_cells_match(got, want, w, what, [&](std::uint64_t i) { return same_bits(got[i], want[i]); });
      if (threads == 1) first = stats;
      EXPECT_EQ(stats.rounds, first.rounds) << what;
      EXPECT_EQ(stats.solves, first.solves) << what;
    }
  }
}

// The GPU's pipeline (engine/flow/fill_resident.h) with the CPU twin as its solver: the tile
// pipeline's bits and counts, at store tiles of 8 to 64 and resident tiles that do and do not divide
// them, absent tiles included.
TEST(ResidentFill, PipelineMatchesTheTilePipeline) {
  std::uint64_t rounds = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    const std::uint32_t tiles[] = {8, 16, 32, 64}, gs[] = {3, 8, 16, 64};
    const FillCase c{1 + rng() % 120, 1 + rng() % 120, tiles[rng() % 4], 1 + static_cast<unsigned>(rng() % 3),
                     {rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight, rng() % 4 != 0, true}};
    const std::uint32_t g = gs[rng() % 4];
    std::vector<double> dem = testing::random_terrain(rng, c.w, c.h, 0.05 + 0.1 * (seed % 2));
    if (seed % 3 == 0) testing::blank_tile_row(dem, c.w, c.h, c.t);
    const std::string what = "seed " + std::to_string(seed) + " " + std::to_string(c.w) + " x " + std::to_string(c.h) +
                             " tile " + std::to_string(c.t) + " g " + std::to_string(g);
    const FillPhaseOptions o = phase_options(c);
    std::vector<double> got;
    const FillPhaseResult r = testing::run_phases_in_memory(
        dem, c.w, c.h, c.t, -12345.0, got, [&](const TileInput& input, MemoryBudget& budget, FillTileSink& sink) {
          return run_fill_resident(input, o, Device::Cpu, budget, Progress::silent(), sink, g);
        });
    const FillPhaseResult want = check_case(dem, c, what);
    EXPECT_STREQ(r.path, "resident") << what;
    EXPECT_EQ(r.valid_cells, want.valid_cells) << what;
    EXPECT_EQ(r.raised_cells, want.raised_cells) << what;
    EXPECT_EQ(r.closed_cells, want.closed_cells) << what;
    rounds += r.resident.rounds;
    const std::vector<double> oracle = oracle_fill(dem, c);
    testing::expect_cells_match(got, oracle, c.w, what, [&](std::uint64_t i) { return same_bits(got[i], oracle[i]); });
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(rounds, 24u);
}

// `fill --device cpu` runs the tiles and says so in --json: device, path, the tiles' keys, no
// resident rounds (the GPU's run says path resident: tools/bench/gpu_bench/validate_gpu.sh).
TEST(FillCommand, JsonNamesTheDeviceAndThePath) {
  testing::TempDir dir;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const FillCommandResult r = run_fill_command(
      parse_fill_options({"-q", "--device", "cpu", "--tmpdir", dir.path(), input, dir.file("filled.tif")}), Progress::silent());
  testing::expect_tile_path_json(r.to_json(), "graph_nodes");
}

// A budget that cannot hold a batch of tile floods beside the perimeters is refused before any work.
TEST(Fill, TooSmallABudgetIsRefusedBeforeAnyWork) {
  std::mt19937_64 rng(3);
  const std::vector<double> dem = testing::random_terrain(rng, 300, 200, 0.05);
  MemoryTileInput<double> input(dem, 300, 200, 64);
  FillPhaseOptions o;
  o.threads = 2;
  MemoryBudget budget(256ull << 10);
  MemorySink sink(300, 200, 64, -12345.0);
  testing::expect_refused_before_any_work([&](Progress& progress) { run_fill_phases(input, o, budget, progress, sink); },
                                          "memory budget too small for fill: ");
}

}  // namespace
}  // namespace terrazo
