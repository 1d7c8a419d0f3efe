// tests/test_flowdir.cpp: out-of-core D8 flow directions (engine/flow/flowdir_phases.h) against the
// whole-raster oracle (tests/support/flowdir_reference.h), byte for byte: random rasters with
// plateaus and large flats (quantised values, filled by the fill oracle or left with undrained
// pits), nodata holes and absent tiles, 1 x N, every outlet mode, tiles of 4 to 64 that do and do
// not divide the raster (flats across many tiles), 1 to 3 threads; the flow paths (strict descent,
// flats drained without cycles); the shipped DEMs through `terrazo fill` and `terrazo flowdir`; the
// plan's refusals. The resident solver's CPU twin (kernels/flow/resident_flowdir.h, `ResidentFlowdir*`)
// against the tile pipeline and the oracle, byte for byte with the same counts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/fill_command.h"
#include "engine/commands/flowdir_command.h"
#include "engine/flow/flowdir_phases.h"
#include "engine/flow/flowdir_resident.h"
#include "kernels/common/error.h"
#include "tests/support/fill_reference.h"
#include "tests/support/flow_test_support.h"
#include "tests/support/flowdir_reference.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/resident_flowdir_run.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using MemorySink = testing::MemoryTileSink<std::uint8_t>;

// Terrain with plateaus (tests/support/flow_test_support.h: few levels, nodata blobs); `filled`:
// through the fill oracle (every flat drains), else with undrained pits.
std::vector<double> random_dem(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double holes, bool filled,
                               bool edge, bool nodata) {
  const std::vector<double> dem = testing::random_terrain(rng, w, h, holes, testing::TerrainShape{0.02, 1, 12, 0.4, 100});
  return filled ? testing::reference_fill(dem, w, h, true, edge, nodata) : dem;
}

struct FlowCase {
  std::uint64_t w, h;
  std::uint32_t t;
  unsigned threads;
  bool edge, nodata;
};

std::string describe(const FlowCase& c) {
  return std::to_string(c.w) + " x " + std::to_string(c.h) + " tile " + std::to_string(c.t) + " threads " +
         std::to_string(c.threads) + (c.edge ? " edge" : "") + (c.nodata ? " nodata" : "") + " outlets";
}

// Every step goes down, or along a flat to a cell of its elevation; following the codes from any
// valid cell ends at a kD8NoFlow cell (an outlet, or an undrained flat) within `cells` steps.
void check_paths(const std::vector<double>& dem, const std::vector<std::uint8_t>& codes, const testing::ReferenceFlowdir& ref,
                 std::uint64_t w, std::uint64_t h, const std::string& what) {
  std::vector<std::uint8_t> state(w * h, 0);  // 1 on the current path, 2 known to end
  std::uint64_t bad = 0;
  for (std::uint64_t start = 0; start < w * h && bad == 0; ++start) {
    std::vector<std::uint64_t> path;
    std::uint64_t c = start;
    while (codes[c] != kD8Nodata && codes[c] != kD8NoFlow && state[c] == 0) {
      state[c] = 1;
      path.push_back(c);
      const int d = d8_index(codes[c]);
      if (d < 0) { ++bad; break; }
      const std::int64_t nx = static_cast<std::int64_t>(c % w) + kD8Steps[d].dx, ny = static_cast<std::int64_t>(c / w) + kD8Steps[d].dy;
      if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(w) || ny >= static_cast<std::int64_t>(h)) { ++bad; break; }
      const std::uint64_t n = static_cast<std::uint64_t>(ny) * w + static_cast<std::uint64_t>(nx);
      const bool ok = std::isnan(dem[n]) ? false : ref.flat[c] ? dem[n] == dem[c] : dem[n] < dem[c];
      if (!ok) { ++bad; break; }
      c = n;
    }
    if (codes[c] != kD8Nodata && codes[c] != kD8NoFlow && state[c] == 1) ++bad;  // a cycle
    for (std::uint64_t p : path) state[p] = 2;
    EXPECT_EQ(bad, 0u) << what << ": the path from (" << start % w << ", " << start / w << ") breaks at ("
                       << c % w << ", " << c / w << ")";
  }
}

// The phases' codes of `dem` at `c`'s tile size and threads (`r`: their result).
std::vector<std::uint8_t> run_case(const std::vector<double>& dem, const FlowCase& c, FlowdirPhaseResult& r) {
  FlowdirPhaseOptions o;
  o.edge_outlets = c.edge;
  o.nodata_outlets = c.nodata;
  o.threads = c.threads;
  std::vector<std::uint8_t> codes;
  r = testing::run_phases_in_memory(dem, c.w, c.h, c.t, std::uint8_t{77}, codes,
                                    [&](const TileInput& input, MemoryBudget& budget, FlowdirTileSink& sink) {
                                      return run_flowdir_phases(input, o, budget, Progress::silent(), sink);
                                    });
  return codes;
}

FlowdirPhaseResult check_case(const std::vector<double>& dem, const FlowCase& c, const std::string& what) {
  FlowdirPhaseResult r;
  const std::vector<std::uint8_t> got = run_case(dem, c, r);
  const testing::ReferenceFlowdir want = testing::reference_flowdir(dem, c.w, c.h, c.edge, c.nodata);
  testing::expect_cells_match(got, want.codes, c.w, what, [&](std::uint64_t i) { return got[i] == want.codes[i]; });
  EXPECT_EQ(r.flat_cells, want.flat_cells) << what;
  EXPECT_EQ(r.flats, want.flats) << what;
  EXPECT_EQ(r.undrained_cells, want.undrained_cells) << what;
  EXPECT_EQ(r.outlet_cells, want.outlet_cells) << what;
  check_paths(dem, got, want, c.w, c.h, what);
  return r;
}

TEST(Flowdir, RandomRastersMatchTheWholeRasterReference) {
  std::uint64_t flat = 0, crossing = 0, undrained = 0;
  for (std::uint64_t seed = 1; seed <= 160; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint32_t tiles[] = {4, 8, 16, 32, 64};
    FlowCase c{1 + rng() % 90, 1 + rng() % 90, tiles[rng() % 5], 1 + static_cast<unsigned>(rng() % 3), rng() % 4 != 0,
               rng() % 4 != 1};
    if (seed % 11 == 0) c.h = 1;  // 1 x N and N x 1
    if (seed % 13 == 0) c.w = 1;
    if (!c.edge && !c.nodata) c.edge = true;
    const bool filled = seed % 4 != 0;
    std::vector<double> dem = random_dem(rng, c.w, c.h, seed % 3 == 0 ? 0.0 : 0.05, filled, c.edge, c.nodata);
    if (seed % 7 == 0) testing::blank_tile_row(dem, c.w, c.h, c.t);
    const FlowdirPhaseResult r =
        check_case(dem, c, "seed " + std::to_string(seed) + (filled ? " filled " : " unfilled ") + describe(c));
    flat += r.flat_cells;
    crossing += r.cross_tile_flat_cells;
    undrained += r.undrained_cells;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(flat, 50000u);      // the cases have flats
  EXPECT_GT(crossing, 10000u);  // many across tiles
  EXPECT_GT(undrained, 100u);   // and undrained pits on the unfilled ones
}

// One big filled lake across many small tiles: the same codes at every tile size and thread count.
TEST(Flowdir, EveryTileSizeAndThreadCountGivesTheSameBytes) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  std::vector<double> dem = random_dem(rng, w, h, 0.0, false, true, true);
  for (std::uint64_t y = 20; y < 80; ++y)  // a deep bowl, filled into one flat of about 60 x 90 cells
    for (std::uint64_t x = 20; x < 110; ++x)
      if (!std::isnan(dem[y * w + x])) dem[y * w + x] = -500 + std::abs(static_cast<double>(x) - 65);
  dem = testing::reference_fill(dem, w, h, true, true, true);
  std::vector<std::uint8_t> first;
  for (std::uint32_t t : {4u, 8u, 16u, 32u, 64u, 128u, 256u})
    for (unsigned threads : {1u, 2u, 4u}) {
      FlowdirPhaseResult r;
      const std::vector<std::uint8_t> codes = run_case(dem, FlowCase{w, h, t, threads, true, true}, r);
      if (first.empty()) {
        first = codes;
        check_case(dem, FlowCase{w, h, t, threads, true, true}, "tile " + std::to_string(t));
      }
      EXPECT_TRUE(codes == first) << "tile " << t << " threads " << threads;
      EXPECT_GT(r.flat_cells, 4000u);
      if (t <= 32) {
        EXPECT_GT(r.cross_tile_flat_cells, 4000u) << "tile " << t;
      }
    }
}

TEST(Flowdir, TheSameBytesWhicheverTilesAreKeptForTheWrite) {
  std::mt19937_64 rng(77);
  const std::uint64_t w = 150, h = 130;
  FlowdirPhaseOptions o;
  o.threads = 2;
  // Unfilled, with few flats. The kept codes are 1 byte a cell beside the flats' 60, so they are
  // reused all, or dropped all when the flats need their room (KeptTiles::or_drop_kept).
  testing::expect_same_bytes_whichever_tiles_are_kept(
      testing::random_terrain(rng, w, h, 0.05), w, h, 16, std::uint8_t{77},
      [&](const TileInput& input, MemoryBudget& budget, FlowdirTileSink& sink) {
        return run_flowdir_phases(input, o, budget, Progress::silent(), sink);
      },
      150ull << 10, 450ull << 10, 2048, "flowdir", false);
}

// A hand-made case: a 5 x 3 plateau at 5 with one draining cell at its east end (an edge outlet at 5)
// and a higher rim: the flat's cells step east along the towards gradient, the first direction on ties.
TEST(Flowdir, SmallPlateauDrainsToItsOutlet) {
  const double n = std::nan("");
  // clang-format off
  const std::vector<double> dem = {
      9, 9, 9, 9, 9, 9, 9,
      9, 5, 5, 5, 5, 5, 5,
      9, 5, 5, 5, 5, 5, 9,
      9, 5, 5, 5, 5, 5, 9,
      9, 9, 9, 9, 9, 9, n};
  // clang-format on
  const testing::ReferenceFlowdir want = testing::reference_flowdir(dem, 7, 5, true, false);
  // Row 1: the east end (6, 1) is an edge outlet at 5: code 0; its flat neighbours step towards it.
  EXPECT_EQ(want.codes[1 * 7 + 6], kD8NoFlow);
  EXPECT_EQ(want.codes[1 * 7 + 5], 1);   // east, onto the outlet
  EXPECT_EQ(want.codes[2 * 7 + 5], 128); // north-east, onto the outlet
  EXPECT_EQ(want.codes[0], 2);           // the corner rim cell: steepest is south-east (4 / sqrt 2 > 0)
  EXPECT_EQ(want.codes[4 * 7 + 6], kD8Nodata);
  EXPECT_EQ(want.flat_cells, 15u);
  check_case(dem, FlowCase{7, 5, 4, 2, true, false}, "plateau, tile 4");
}

// `terrazo fill` then `terrazo flowdir` on the shipped DEMs (one with 49% nodata), by the commands'
// own parsers and entry points: the oracle's codes on the filled raster, no undrained cell, every
// path ending at an outlet, the same file bytes at tiles of 64 and 256 and 1 or 2 threads.
TEST(FlowdirCommand, ShippedDemsMatchTheWholeRasterReference) {
  testing::TempDir dir;
  const std::string real = std::string(TERRAZO_DATASETS) + "/real/";
  std::uint64_t flats = 0;
  for (const std::string name : {"N44W072.hgt", "Mega_divide.bil", "pysheds_dem.tif", "rhine_elv0.tif", "nz_elev.tif"}) {
    const std::string filled = dir.file(name + ".filled.tif");
    run_fill_command(parse_fill_options({"-q", "--tmpdir", dir.path(), real + name, filled}), Progress::silent());
    RasterInfo info;
    const std::vector<double> dem = testing::read_raster_values(filled, &info);
    const testing::ReferenceFlowdir want = testing::reference_flowdir(dem, info.width, info.height, true, true);
    check_paths(dem, want.codes, want, info.width, info.height, name + " (the reference)");
    testing::run_at_flag_sets(
        dir, filled, name, {{"--tile", "64"}, {"--tile", "256", "--threads", "1"}}, CellType::UInt8,
        [](const std::vector<std::string>& args) { return run_flowdir_command(parse_flowdir_options(args), Progress::silent()); },
        [&](const std::vector<double>& got, const FlowdirCommandResult& r, const std::string& what) {
          testing::expect_cells_match(got, want.codes, info.width, what, [&](std::uint64_t i) {
            return (std::isnan(got[i]) ? kD8Nodata : static_cast<std::uint8_t>(got[i])) == want.codes[i];
          });
          EXPECT_EQ(r.result.phases.undrained_cells, 0u) << what;
          EXPECT_EQ(r.result.phases.flat_cells, want.flat_cells) << what;
          EXPECT_NE(r.to_json().find("\"cross_tile_flat_cells\""), std::string::npos);
          flats += r.result.phases.flats;
        });
  }
  EXPECT_GT(flats, 1000u);
}

// Usage errors name the flag and the value.
TEST(FlowdirCommand, UsageErrorsNameTheFlag) {
  try {
    parse_flowdir_options({"--outlets", "sea", "a.tif", "b.tif"});
    FAIL() << "--outlets sea parsed";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--outlets 'sea'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_flowdir_options({"--connectivity", "4", "a.tif", "b.tif"}), UsageError);
  EXPECT_THROW(parse_flowdir_options({"a.tif"}), UsageError);
}

// The plan refuses a budget that cannot hold the tile windows before any work; one that holds them
// but not the flats across tiles is refused naming those.
TEST(Flowdir, TooSmallABudgetIsRefused) {
  std::mt19937_64 rng(3);
  std::vector<double> dem(300 * 200, 7.0);  // one flat of 60,000 cells across every tile
  for (std::uint64_t x = 0; x < 300; ++x) dem[x] = 6.0;
  MemoryTileInput<double> input(dem, 300, 200, 16);
  FlowdirPhaseOptions o;
  o.threads = 2;
  MemorySink sink(300, 200, 16, 77);
  MemoryBudget tiny(16ull << 10);
  testing::expect_refused_before_any_work([&](Progress& progress) { run_flowdir_phases(input, o, tiny, progress, sink); },
                                          "memory budget too small for flowdir: ");
  try {
    MemoryBudget budget(2 * FlowdirPhaseResult::slot_bytes(16) + (1ull << 20));
    run_flowdir_phases(input, o, budget, Progress::silent(), sink);
    FAIL() << "the flats across tiles fit";
  } catch (const BudgetError& e) {
    EXPECT_NE(std::string(e.what()).find("flats that cross tile borders"), std::string::npos) << e.what();
  }
}


// ---- The resident solver's CPU twin (kernels/flow/resident_flowdir.h) --------------------------

// The twin's codes and counts on `dem` against the tile pipeline's (tiles of `pipeline_tile`) and the
// oracle's; the twin's stats.
ResidentFlowdirStats check_resident(const std::vector<double>& dem, std::uint64_t w, std::uint64_t h,
                                    const testing::ResidentFlowdirCase& rc, std::uint32_t pipeline_tile,
                                    const std::string& what) {
  FlowdirPhaseResult tiles;
  const std::vector<std::uint8_t> want = run_case(dem, FlowCase{w, h, pipeline_tile, rc.threads, rc.edge, rc.nodata}, tiles);
  const testing::ReferenceFlowdir oracle = testing::reference_flowdir(dem, w, h, rc.edge, rc.nodata);
  const testing::ResidentFlowdirRun got = testing::run_resident_flowdir(Device::Cpu, dem, w, h, rc);
  const std::string full = what + " (resident g " + std::to_string(rc.g) + " t " + std::to_string(rc.t) + " group " +
                           std::to_string(rc.group_tiles) + ")";
  testing::expect_cells_match(got.codes, want, w, full, [&](std::uint64_t i) { return got.codes[i] == want[i]; });
  testing::expect_cells_match(got.codes, oracle.codes, w, full + " against the oracle",
                              [&](std::uint64_t i) { return got.codes[i] == oracle.codes[i]; });
  testing::expect_same_flowdir_counts(got.stats, tiles, full);
  EXPECT_EQ(got.stats.flats, oracle.flats) << full;
  return got.stats;
}

// 140 random rasters of both generators (plateaus of random_terrain; quantised waves with terraces,
// -0, +0, infinities), filled or left with pits, nodata holes and blank tile rows, 1 x N and N x 1,
// every outlet mode, BFS tiles of 2 to 64, windows of 4 to 256, groups of 1 tile to 4 a thread.
TEST(ResidentFlowdir, RandomRastersMatchTheTilePipelineAndTheOracle) {
  std::uint64_t flat = 0, undrained = 0, rounds = 0, many_rounds = 0;
  for (std::uint64_t seed = 1; seed <= 140; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint32_t gs[] = {2, 3, 5, 8, 16, 31, 64}, ts[] = {4, 8, 16, 32, 64, 256}, pipeline[] = {4, 16, 64};
    std::uint64_t w = 1 + rng() % 120, h = 1 + rng() % 120;
    if (seed % 11 == 0) h = 1;
    if (seed % 13 == 0) w = 1;
    testing::ResidentFlowdirCase rc;
    rc.g = gs[rng() % 7];
    rc.t = ts[rng() % 6];
    rc.threads = 1 + static_cast<unsigned>(rng() % 3);
    const int outlets = static_cast<int>(rng() % 4);  // both (twice), edge, nodata
    rc.edge = outlets != 3;
    rc.nodata = outlets != 2;
    const std::uint64_t groups[] = {0, 1, 3};
    rc.group_tiles = groups[rng() % 3];
    const bool filled = seed % 4 != 0, waves = seed % 2 == 0;
    const double holes = seed % 3 == 0 ? 0.0 : 0.04;
    std::vector<double> dem = waves ? testing::random_flat_terrain(rng, w, h, holes, 3 + static_cast<int>(rng() % 8))
                                    : testing::random_terrain(rng, w, h, holes, testing::TerrainShape{0.02, 1, 12, 0.4, 100});
    if (filled) dem = testing::reference_fill(dem, w, h, true, rc.edge, rc.nodata);
    if (seed % 7 == 0) testing::blank_tile_row(dem, w, h, rc.t);
    const ResidentFlowdirStats s =
        check_resident(dem, w, h, rc, pipeline[rng() % 3],
                       "seed " + std::to_string(seed) + (filled ? " filled " : " unfilled ") + (waves ? "waves " : "terrain ") +
                           std::to_string(w) + " x " + std::to_string(h) + (rc.edge ? " edge" : "") + (rc.nodata ? " nodata" : ""));
    flat += s.flat_cells;
    undrained += s.undrained_cells;
    rounds += s.rounds;
    many_rounds += s.rounds > 5;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(flat, 150000u);     // the cases have flats
  EXPECT_GT(undrained, 1000u);  // undrained pits on the unfilled ones
  EXPECT_GT(many_rounds, 25u);  // flats across many BFS tiles
  EXPECT_GT(rounds, 450u);
}

// One big filled lake: the same codes at every BFS tile, group and thread count, and the tile pipeline's.
TEST(ResidentFlowdir, ALakeAcrossManyTilesGivesTheSameBytesAtEveryTileAndThreadCount) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  std::vector<double> dem = random_dem(rng, w, h, 0.0, false, true, true);
  for (std::uint64_t y = 20; y < 80; ++y)
    for (std::uint64_t x = 20; x < 110; ++x)
      if (!std::isnan(dem[y * w + x])) dem[y * w + x] = -500 + std::abs(static_cast<double>(x) - 65);
  dem = testing::reference_fill(dem, w, h, true, true, true);
  for (std::uint32_t g : {2u, 4u, 7u, 16u, 64u})
    for (unsigned threads : {1u, 3u}) {
      testing::ResidentFlowdirCase rc;
      rc.g = g;
      rc.t = 32;
      rc.threads = threads;
      rc.group_tiles = threads == 1 ? 1 : 0;
      const ResidentFlowdirStats s = check_resident(dem, w, h, rc, 16, "lake, threads " + std::to_string(threads));
      EXPECT_GT(s.flat_cells, 4000u);
      if (g <= 4) {
        EXPECT_GT(s.rounds, 10u) << "g " << g;
      }
    }
}

// A flat corridor winding through the raster (a BFS as long as the raster's cells): many rounds.
TEST(ResidentFlowdir, ASerpentineFlatMatches) {
  for (const auto& [w, h] : {std::pair<std::uint64_t, std::uint64_t>{61, 41}, {40, 70}, {1, 30}, {30, 1}, {9, 8}}) {
    const std::vector<double> dem = testing::serpentine_flat(w, h);
    for (std::uint32_t g : {2u, 8u, 64u}) {
      testing::ResidentFlowdirCase rc;
      rc.g = g;
      rc.t = 16;
      rc.edge = false;
      const ResidentFlowdirStats s =
          check_resident(dem, w, h, rc, 8, "serpentine " + std::to_string(w) + " x " + std::to_string(h));
      if (w == 61 && g == 8) {
        EXPECT_GT(s.rounds, 20u);
      }
    }
  }
}

// Whole-raster flats: drained by the edge, undrained without outlets, 1 x 1, all nodata, infinities.
TEST(ResidentFlowdir, WholeRasterFlatsAndDegenerateRasters) {
  const double inf = INFINITY, n = std::nan("");
  struct Case {
    std::uint64_t w, h;
    std::vector<double> dem;
    bool edge, nodata;
  };
  const std::vector<Case> cases = {
      {70, 50, std::vector<double>(70 * 50, 3.0), true, true},     // every edge cell an outlet
      {70, 50, std::vector<double>(70 * 50, 3.0), false, true},    // no outlet: one undrained flat
      {1, 1, {5.0}, true, true},
      {1, 1, {5.0}, false, true},
      {3, 3, std::vector<double>(9, n), true, true},
      {5, 1, {inf, inf, 2, -inf, -inf}, false, true},
      {4, 4, {inf, inf, inf, inf, inf, -0.0, 0.0, inf, inf, 0.0, -0.0, inf, inf, inf, inf, inf}, false, true},
      {4, 4, {1, 1, 1, 1, 1, n, n, 1, 1, n, n, 1, 1, 1, 1, 1}, false, true},
  };
  for (std::size_t k = 0; k < cases.size(); ++k)
    for (std::uint32_t g : {2u, 64u}) {
      testing::ResidentFlowdirCase rc;
      rc.g = g;
      rc.t = 8;
      rc.edge = cases[k].edge;
      rc.nodata = cases[k].nodata;
      check_resident(cases[k].dem, cases[k].w, cases[k].h, rc, 4, "case " + std::to_string(k));
    }
  testing::ResidentFlowdirCase rc;
  rc.edge = false;
  const testing::ResidentFlowdirRun closed = testing::run_resident_flowdir(Device::Cpu, cases[1].dem, 70, 50, rc);
  EXPECT_EQ(closed.stats.undrained_flats, 1u);
  EXPECT_EQ(closed.stats.undrained_cells, 3500u);
}

// The GPU's pipeline (engine/flow/flowdir_resident.h) with the CPU twin as its solver: the tile
// pipeline's bytes and counts, at store tiles of 4 to 64 and BFS tiles that do and do not divide
// them, absent tiles included, every outlet mode.
TEST(ResidentFlowdir, PipelineMatchesTheTilePipeline) {
  std::uint64_t rounds = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    const std::uint32_t tiles[] = {4, 8, 16, 32, 64}, gs[] = {3, 8, 16, 64};
    FlowCase c{1 + rng() % 120, 1 + rng() % 120, tiles[rng() % 5], 1 + static_cast<unsigned>(rng() % 3), rng() % 4 != 0,
               rng() % 4 != 1};
    if (!c.edge && !c.nodata) c.edge = true;
    FlowdirResidentOptions o;
    o.device = Device::Cpu;
    o.g = gs[rng() % 4];
    o.threads = c.threads;
    o.edge_outlets = c.edge;
    o.nodata_outlets = c.nodata;
    std::vector<double> dem = random_dem(rng, c.w, c.h, seed % 3 == 0 ? 0.0 : 0.05, seed % 4 != 0, c.edge, c.nodata);
    if (seed % 5 == 0) testing::blank_tile_row(dem, c.w, c.h, c.t);
    const std::string what = "seed " + std::to_string(seed) + " " + describe(c) + " g " + std::to_string(o.g);
    std::vector<std::uint8_t> got;
    const FlowdirPhaseResult r = testing::run_phases_in_memory(
        dem, c.w, c.h, c.t, std::uint8_t{77}, got, [&](const TileInput& input, MemoryBudget& budget, FlowdirTileSink& sink) {
          return run_flowdir_resident(input, o, budget, Progress::silent(), sink);
        });
    FlowdirPhaseResult want;
    const std::vector<std::uint8_t> tiles_codes = run_case(dem, c, want);
    EXPECT_STREQ(r.path, "resident") << what;
    testing::expect_cells_match(got, tiles_codes, c.w, what, [&](std::uint64_t i) { return got[i] == tiles_codes[i]; });
    testing::expect_same_flowdir_counts(r, want, what);
    rounds += r.resident.rounds;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(rounds, 30u);
}

// The resident path's plan refuses a budget that cannot hold its solver (here the CPU twin's arrays,
// 31 bytes a cell) before any work, naming the phase.
TEST(ResidentFlowdir, TooSmallABudgetIsRefusedBeforeAnyWork) {
  const std::vector<double> dem(300 * 200, 7.0);
  MemoryTileInput<double> input(dem, 300, 200, 64);
  FlowdirResidentOptions o;
  o.device = Device::Cpu;
  o.threads = 2;
  MemoryBudget budget(1ull << 20);
  MemorySink sink(300, 200, 64, 77);
  testing::expect_refused_before_any_work([&](Progress& progress) { run_flowdir_resident(input, o, budget, progress, sink); },
                                          "memory budget too small for flowdir: ");
}

// A resident run's --json: the device, the path, the rounds and the resident phases; the tiles' phases
// not (their seconds would be 0).
TEST(FlowdirCommand, ResidentJsonHasItsRoundsAndPhases) {
  FlowdirCommandResult r;
  r.result.phases.path = "resident";
  r.result.phases.device = "cuda (test)";
  r.result.phases.resident.rounds = 17;
  r.result.phases.resident.max_active = 5;
  r.result.phases.load_seconds = 1.5;
  const std::string json = r.to_json();
  EXPECT_NE(json.find("\"device\":\"cuda (test)\",\"path\":\"resident\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"rounds\":17"), std::string::npos) << json;
  EXPECT_NE(json.find("\"max_round_tiles\":5"), std::string::npos) << json;
  EXPECT_NE(json.find("\"load\":1.5"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"halos\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"cross_tile_flat_cells\":0"), std::string::npos) << json;
}

// BFS tiles of 2 to 64 cells a side only (the GPU's window lives in one block's shared memory).
TEST(ResidentFlowdir, TileSidesOutsideTwoToSixtyFourAreRefused) {
  const std::vector<double> dem(40, 1.0);
  for (std::uint32_t g : {0u, 1u, 65u}) {
    testing::ResidentFlowdirCase rc;
    rc.g = g;
    EXPECT_THROW(testing::run_resident_flowdir(Device::Cpu, dem, 8, 5, rc), Error) << "g " << g;
  }
}

// `flowdir --device cpu` runs the tiles and says so in --json: device, path, the tiles' keys, no
// resident rounds (the GPU's run says path resident: tools/bench/gpu_bench/validate_gpu.sh).
TEST(FlowdirCommand, JsonNamesTheDeviceAndThePath) {
  testing::TempDir dir;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const FlowdirCommandResult r = run_flowdir_command(
      parse_flowdir_options({"-q", "--device", "cpu", "--tmpdir", dir.path(), input, dir.file("dir.tif")}), Progress::silent());
  testing::expect_tile_path_json(r.to_json(), "halos");
}

// The shipped DEMs filled by the oracle: the twin against the tile pipeline.
TEST(ResidentFlowdir, ShippedDemsMatchTheTilePipeline) {
  const std::string real = std::string(TERRAZO_DATASETS) + "/real/";
  std::uint64_t flats = 0;
  for (const std::string name : {"N44W072.hgt", "Mega_divide.bil", "pysheds_dem.tif", "rhine_elv0.tif", "nz_elev.tif"}) {
    RasterInfo info;
    const std::vector<double> raw = testing::read_raster_values(real + name, &info);  // before info is read
    const std::vector<double> dem = testing::reference_fill(raw, info.width, info.height, true, true, true);
    testing::ResidentFlowdirCase rc;
    rc.threads = 2;
    flats += check_resident(dem, info.width, info.height, rc, 256, name).flats;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(flats, 40000u);
}

}  // namespace
}  // namespace terrazo
