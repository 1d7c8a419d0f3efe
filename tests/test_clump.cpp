// tests/test_clump.cpp: `terrazo clump` (docs/clump.md) against an in-memory oracle: flood fill over
// the whole raster, regions numbered in row-major order of their first cell.
//   ClumpKernel    label_tile_cpu on single tiles;
//   ClumpPipeline  run_clump_phases on random rasters (tiny tiles, sizes not multiples of the tile,
//                  4/8 connectivity, holes, --by value|valid|range), spirals and snakes across many
//                  tiles, tile-size / thread-count independence, the budget error;
//   ClumpApi       run_clump on shipped DEMs, through the GeoTIFF (georeference, nodata 0).
// --min-size (ClumpSieve) is tests/test_clump_sieve.cpp.
// The program (ClumpCli) is tests/test_clump_cli.cpp, the r.clump golden files (ClumpGolden)
// tests/test_clump_golden.cpp.
#include <gdal.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/clump_command.h"
#include "kernels/common/error.h"
#include "engine/clump/border_table.h"
#include "engine/clump/phases.h"
#include "io/gdal/gdal_session.h"
#include "kernels/clump/label_tile.h"
#include "kernels/common/cuda_device.h"
#include "io/store/external_sorter.h"
#include "support/clump_memory_sink.h"
#include "support/clump_reference.h"
#include "support/sssp_reference.h"
#include "support/test_support.h"
#include "tests/support/memory_tile_input.h"

namespace terrazo {
namespace {

using testing::clump_reference;
using testing::clump_reference_stats;
using testing::random_classes;
using testing::ClumpReference;
using testing::read_raster_values;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

using MemorySink = ClumpMemorySink;

struct ClumpRun {
  std::vector<std::uint32_t> labels;
  ClumpPhaseResult result;
};

ClumpRun run_phases(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint32_t t,
               ClumpPhaseOptions o, unsigned threads = 2, std::uint64_t budget_bytes = 256ull << 20) {
  testing::TempDir dir;
  o.scratch_dir = dir.path();
  o.threads = threads;
  MemoryTileInput input(values, w, h, t);
  MemorySink sink(w, h);
  MemoryBudget budget(budget_bytes);
  ClumpRun run;
  run.result = run_clump_phases(input, o, budget, Progress::silent(), &sink);
  run.labels = std::move(sink.labels);
  EXPECT_EQ(budget.reserved(), 0u);
  return run;
}

void expect_matches_oracle(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint32_t t,
                           const ClumpPhaseOptions& o, const std::string& what, unsigned threads = 2) {
  const ClumpReference expected = clump_reference(values, w, h, o);
  const ClumpRun got = run_phases(values, w, h, t, o, threads);
  EXPECT_EQ(got.result.regions, expected.regions) << what;
  EXPECT_EQ(got.result.cells_labelled, expected.cells) << what;
  EXPECT_EQ(got.result.largest_region, expected.largest) << what;
  std::uint64_t wrong = 0, first_wrong = 0;
  for (std::uint64_t i = 0; i < w * h; ++i)
    if (got.labels[i] != expected.labels[i] && wrong++ == 0) first_wrong = i;
  EXPECT_EQ(wrong, 0u) << what << ": first at (" << first_wrong % w << ", " << first_wrong / w << "): got "
                       << got.labels[first_wrong] << ", expected " << expected.labels[first_wrong];
}


TEST(ClumpKernel, TwoRegionsAndAHoleInOneTile) {
  // 4 x 4, keys: 1 1 . 2 / 1 . 2 2 / . 2 . . / 1 . . 2
  const double n = kNaN;
  const std::vector<double> keys{1, 1, n, 2, 1, n, 2, 2, n, 2, n, n, 1, n, n, 2};
  std::vector<std::uint32_t> labels(16);
  UnionFind scratch;
  EXPECT_EQ(label_tile_cpu(keys.data(), 4, Connectivity::Eight, labels.data(), scratch), 4u);
  const std::uint32_t X = kNoRegion;
  EXPECT_EQ(labels, (std::vector<std::uint32_t>{0, 0, X, 1, 0, X, 1, 1, X, 1, X, X, 2, X, X, 3}));
  EXPECT_EQ(label_tile_cpu(keys.data(), 4, Connectivity::Four, labels.data(), scratch), 5u);
  EXPECT_EQ(labels, (std::vector<std::uint32_t>{0, 0, X, 1, 0, X, 1, 1, X, 2, X, X, 3, X, X, 4}));
  TileBorder border;
  summarize_tile_border(labels.data(), 5, 4, &border);
  EXPECT_EQ(border.region, (std::vector<std::uint32_t>{0, 1, 3, 4}));  // region 2 (cell 9) is interior
  EXPECT_EQ(border.interior_regions, 1u);
  EXPECT_EQ(border.interior_starts_per_row, (std::vector<std::uint32_t>{0, 0, 1, 0}));
  EXPECT_EQ(border.first_cell, (std::vector<std::uint32_t>{0, 3, 12, 15}));
  EXPECT_EQ(border.cells, (std::vector<std::uint64_t>{3, 3, 1, 1}));
}

// The kernel alone on random tiles: labels equal the oracle's (a tile is a raster of one tile, its
// labels the oracle's minus one), and the border summary agrees with a direct count.
TEST(ClumpKernel, RandomTilesMatchOracleAndTheirBorderSummary) {
  std::mt19937_64 rng(11);
  UnionFind scratch;
  TileBorder border;
  for (int round = 0; round < 300; ++round) {
    const std::uint32_t t = 1u << (rng() % 6);  // 1..32
    const std::vector<double> keys = random_classes(rng, std::uint64_t{t} * t, 1 + static_cast<int>(rng() % 3), (rng() % 3) * 0.2);
    const Connectivity c = round % 2 ? Connectivity::Four : Connectivity::Eight;
    ClumpPhaseOptions o;
    o.connectivity = c;
    const ClumpReference expected = clump_reference(keys, t, t, o);
    std::vector<std::uint32_t> labels(std::size_t{t} * t);
    const std::uint32_t regions = label_tile_cpu(keys.data(), t, c, labels.data(), scratch);
    ASSERT_EQ(regions, expected.regions) << round;
    for (std::size_t i = 0; i < labels.size(); ++i)
      ASSERT_EQ(labels[i], expected.labels[i] ? expected.labels[i] - 1 : kNoRegion) << round << " cell " << i;
    summarize_tile_border(labels.data(), regions, t, &border);
    std::vector<bool> on_ring(regions, false);
    for (std::uint32_t p = 0; p < 4 * t; ++p)
      if (labels[ring_cell(p, t)] != kNoRegion) on_ring[labels[ring_cell(p, t)]] = true;
    ASSERT_EQ(border.region.size() + border.interior_regions, regions);
    std::uint64_t interior_starts = 0;
    for (std::uint32_t v : border.interior_starts_per_row) interior_starts += v;
    EXPECT_EQ(interior_starts, border.interior_regions);
    for (std::uint32_t j = 0; j < border.region.size(); ++j) {
      const std::uint32_t l = border.region[j];
      EXPECT_TRUE(on_ring[l]);
      EXPECT_EQ(labels[border.first_cell[j]], l);
      // starts_before: interior regions whose first cell is in the same row, left of this one.
      const std::uint32_t row = border.first_cell[j] / t;
      std::uint32_t before = 0;
      for (std::uint32_t i = row * t; i < border.first_cell[j]; ++i) {
        const std::uint32_t m = labels[i];
        if (m == kNoRegion || on_ring[m]) continue;
        bool first = true;
        for (std::uint32_t k = 0; k < i && first; ++k) first = labels[k] != m;
        before += first;
      }
      EXPECT_EQ(border.starts_before[j], before);
      if (j > 0) {
        EXPECT_LT(border.region[j - 1], l);
      }
    }
    for (std::uint32_t p = 0; p < 4 * t; ++p) {
      const std::uint32_t l = labels[ring_cell(p, t)];
      EXPECT_EQ(border.ring[p] == kNoRegion, l == kNoRegion);
      if (l != kNoRegion) {
        EXPECT_EQ(border.region[border.ring[p]], l);
      }
    }
    // Phase 3's border index from the ring alone: the summary's, region by region.
    std::vector<std::uint32_t> border_of{7, 7};  // stale contents are overwritten
    ASSERT_EQ(tile_border_index(labels.data(), regions, t, &border_of), border.region.size()) << round;
    ASSERT_EQ(border_of.size(), regions);
    std::vector<std::uint32_t> want(regions, kNoRegion);
    for (std::uint32_t j = 0; j < border.region.size(); ++j) want[border.region[j]] = j;
    EXPECT_EQ(border_of, want) << round;
  }
}

TEST(ClumpPipeline, RandomRastersMatchOracle) {
  constexpr ClumpBy kBy[] = {ClumpBy::Value, ClumpBy::Valid, ClumpBy::Range};
  std::mt19937_64 rng(20261124);
  const std::uint32_t tiles[] = {4, 8, 16};
  int cases = 0;
  for (int round = 0; round < 40; ++round) {
    const std::uint64_t w = 1 + rng() % 70, h = 1 + rng() % 70;
    const int distinct = 1 + static_cast<int>(rng() % 4);
    const double holes = (rng() % 3) * 0.15;
    const std::vector<double> values = random_classes(rng, w * h, distinct, holes);
    // One --by mode per raster and tile, in turn: each (tile, connectivity, mode) on 13 or 14 of
    // the 40 rasters (every mode on every raster was 720 runs, mostly threads started and joined).
    for (int i = 0; i < 3; ++i) {
      const std::uint32_t t = tiles[i];
      const ClumpBy by = kBy[(round + i) % 3];
      for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        ClumpPhaseOptions o;
        o.connectivity = c;
        o.by = by;
        o.range_lo = 1;
        o.range_hi = 2;
        expect_matches_oracle(values, w, h, t, o,
                              "round " + std::to_string(round) + " " + std::to_string(w) + "x" + std::to_string(h) +
                                  " t " + std::to_string(t) + " conn " + std::to_string(static_cast<int>(c)) +
                                  " by " + to_string(by));
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 40 * 3 * 2);
}

// A one-cell-wide spiral (or a serpentine) of one value on another: a single region winding through
// many tiny tiles, its first cell far from most of it; diagonal-only links for 8-connectivity.
std::vector<double> spiral(std::uint64_t n) {
  std::vector<double> v(n * n, 0.0);
  std::int64_t x0 = 0, y0 = 0, x1 = n - 1, y1 = n - 1;
  while (x0 <= x1 && y0 <= y1) {
    for (std::int64_t x = x0; x <= x1; ++x) v[y0 * n + x] = 1;
    for (std::int64_t y = y0; y <= y1; ++y) v[y * n + x1] = 1;
    for (std::int64_t x = x0; x <= x1; ++x) v[y1 * n + x] = 1;
    for (std::int64_t y = y0 + 2; y <= y1; ++y) v[y * n + x0] = 1;
    if (x0 + 1 <= x1 && y0 + 2 <= y1) v[(y0 + 2) * n + x0 + 1] = 1;
    x0 += 2, y0 += 2, x1 -= 2, y1 -= 2;
  }
  return v;
}

TEST(ClumpPipeline, SpiralsAndSnakesAcrossManyTiles) {
  for (std::uint64_t n : {37u, 64u, 101u}) {
    const std::vector<double> s = spiral(n);
    for (std::uint32_t t : {4u, 16u})
      for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        ClumpPhaseOptions o;
        o.connectivity = c;
        expect_matches_oracle(s, n, n, t, o, "spiral " + std::to_string(n) + " t " + std::to_string(t));
      }
  }
  // Serpentine: rows alternate, joined at alternating ends; a diagonal staircase (8 joins it, 4 does not).
  const std::uint64_t w = 53, h = 47;
  std::vector<double> snake(w * h, kNaN), stairs(w * h, kNaN);
  for (std::uint64_t y = 0; y < h; y += 2) {
    for (std::uint64_t x = 0; x < w; ++x) snake[y * w + x] = 7;
    if (y + 1 < h) snake[(y + 1) * w + ((y / 2) % 2 ? 0 : w - 1)] = 7;
  }
  for (std::uint64_t i = 0; i < std::min(w, h); ++i) stairs[i * w + (w - 1 - i)] = 3;
  for (std::uint32_t t : {4u, 8u})
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
      ClumpPhaseOptions o;
      o.connectivity = c;
      expect_matches_oracle(snake, w, h, t, o, "snake t " + std::to_string(t));
      expect_matches_oracle(stairs, w, h, t, o, "stairs t " + std::to_string(t));
    }
}

TEST(ClumpPipeline, SameLabelsWhateverTheTileAndThreads) {
  std::mt19937_64 rng(7);
  const std::uint64_t w = 203, h = 150;
  const std::vector<double> values = random_classes(rng, w * h, 2, 0.1);
  ClumpPhaseOptions o;
  const ClumpRun reference = run_phases(values, w, h, 64, o, 1);
  for (std::uint32_t t : {4u, 16u, 32u, 256u})
    for (unsigned threads : {1u, 3u, 8u}) {
      const ClumpRun other = run_phases(values, w, h, t, o, threads);
      EXPECT_EQ(other.labels, reference.labels) << "t " << t << " threads " << threads;
      EXPECT_EQ(other.result.regions, reference.result.regions);
    }
}

TEST(ClumpPipeline, FloatsEqualExactlyAndNegativeZeroIsZero) {
  const std::vector<double> values{0.5, 0.5, 0.25, -0.0, 0.0, 0.1 + 0.2, 0.3, kNaN, 0.3};
  ClumpPhaseOptions o;
  o.connectivity = Connectivity::Four;
  const ClumpRun run = run_phases(values, 3, 3, 4, o);
  // 0.1 + 0.2 != 0.3 in doubles; -0 == +0.
  EXPECT_EQ(run.labels, (std::vector<std::uint32_t>{1, 1, 2, 3, 3, 4, 5, 0, 6}));
}

TEST(ClumpPipeline, NoValidCellGivesNoRegionAndZeroLabels) {
  const std::vector<double> values(30 * 20, kNaN);
  ClumpPhaseOptions o;
  const ClumpRun run = run_phases(values, 30, 20, 8, o);
  EXPECT_EQ(run.result.regions, 0u);
  EXPECT_EQ(run.result.cells_labelled, 0u);
  EXPECT_EQ(run.labels, std::vector<std::uint32_t>(30 * 20, 0u));  // every window written, as nodata
  ClumpPhaseOptions range;
  range.by = ClumpBy::Range;
  range.range_lo = 5, range.range_hi = 6;
  const std::vector<double> ones(17 * 9, 1.0);
  const ClumpRun outside = run_phases(ones, 17, 9, 4, range);
  EXPECT_EQ(outside.result.regions, 0u);
  EXPECT_EQ(outside.labels, std::vector<std::uint32_t>(17 * 9, 0u));
}

TEST(ClumpPipeline, MoreRegionsThanTheLabelsHoldIsAnErrorBeforeAnyWindow) {
  std::mt19937_64 rng(5);
  const std::vector<double> values = random_classes(rng, 40 * 30, 3, 0.2);
  ClumpPhaseOptions o;
  o.max_regions = 10;  // kMaxClumpRegions (2^32 - 2) in a run; the same check
  testing::TempDir dir;
  o.scratch_dir = dir.path();
  MemoryTileInput input(values, 40, 30, 8);
  MemorySink sink(40, 30);
  MemoryBudget budget(64ull << 20);
  try {
    run_phases(values, 40, 30, 8, o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("that UInt32 labels can number"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_clump_phases(input, o, budget, Progress::silent(), &sink), Error);
  EXPECT_EQ(std::count(sink.labels.begin(), sink.labels.end(), MemorySink::kUnwritten), 40 * 30);  // nothing written
}

// Phase 3 sends the windows to the sink on its writer thread: a sink that fails reaches the
// caller with its own message (no hang, no later window written after it), at every thread count.
class FailingSink : public ClumpWindowSink {
 public:
  explicit FailingSink(std::uint64_t fail_at) : fail_at_(fail_at) {}
  void write_window(std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t, const std::uint32_t*) override {
    if (windows_ == fail_at_) {
      failed_ = true;
      throw IoError("the sink is full");
    }
    if (failed_) ++after_failure_;
    ++windows_;
  }
  std::uint64_t windows() const { return windows_; }
  std::uint64_t after_failure() const { return after_failure_; }

 private:
  std::uint64_t fail_at_, windows_ = 0, after_failure_ = 0;
  bool failed_ = false;
};

TEST(ClumpPipeline, SinkErrorReachesTheCallerAndStopsTheWindows) {
  std::mt19937_64 rng(9);
  const std::uint64_t w = 70, h = 45;  // 9 x 6 tiles of 8
  const std::vector<double> values = random_classes(rng, w * h, 3, 0.1);
  for (const std::uint64_t fail_at : {0ull, 7ull, 53ull})
    for (const unsigned threads : {1u, 3u}) {
      testing::TempDir dir;
      ClumpPhaseOptions o;
      o.scratch_dir = dir.path();
      o.threads = threads;
      MemoryTileInput input(values, w, h, 8);
      FailingSink sink(fail_at);
      MemoryBudget budget(64ull << 20);
      try {
        run_clump_phases(input, o, budget, Progress::silent(), &sink);
        FAIL() << "no error, failing at window " << fail_at;
      } catch (const IoError& e) {
        EXPECT_STREQ(e.what(), "the sink is full");
      }
      EXPECT_EQ(sink.windows(), fail_at);
      EXPECT_EQ(sink.after_failure(), 0u) << "windows written after the sink failed";
      EXPECT_EQ(budget.reserved(), 0u);
    }
}

TEST(ClumpPipeline, TooSmallABudgetIsFoundBeforeAnyWork) {
  std::mt19937_64 rng(8);
  const std::vector<double> values = random_classes(rng, 300 * 200, 2, 0.1);
  MemoryTileInput input(values, 300, 200, 64);
  testing::TempDir dir;
  ClumpPhaseOptions o;
  o.scratch_dir = dir.path();
  o.threads = 2;
  MemoryBudget budget(200ull << 10);  // 2 slots of 64^2 cells need ~280 KiB
  MemorySink sink(300, 200);
  std::uint64_t events = 0;
  Progress progress([&](const ProgressEvent&) { return ++events, true; });
  try {
    run_clump_phases(input, o, budget, progress, &sink);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget too small for clump's relabel phase: it needs at least"),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("give --memory 1M at least, or use fewer --threads or a smaller --tile"),
              std::string::npos) << e.what();
  }
  EXPECT_EQ(events, 0u);
}

// ---- the external merge (engine/clump/phase2_external_merge.h) ---------------------------------

// The external merge against the oracle and against the in-memory merge, byte for byte: random
// categorical rasters (1-4 values, holes), sizes rarely multiples of the tile, tiles 4..64 (64: a
// single tile or a row of them, no merge level), both connectivities, the three --by modes.
TEST(ClumpPipeline, ExternalMergeMatchesOracleAndInMemoryMerge) {
  std::mt19937_64 rng(20261126);
  int cases = 0;
  for (int round = 0; round < 16; ++round) {
    const std::uint64_t w = 1 + rng() % 80, h = 1 + rng() % 80;
    const std::vector<double> values =
        random_classes(rng, w * h, 1 + static_cast<int>(rng() % 4), (rng() % 3) * 0.15);
    for (std::uint32_t t : {4u, 8u, 16u, 64u})
      for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        ClumpPhaseOptions o;
        o.connectivity = c;
        o.by = round % 3 == 0 ? ClumpBy::Valid : round % 3 == 1 ? ClumpBy::Range : ClumpBy::Value;
        o.range_lo = 1, o.range_hi = 2;
        const std::string what = "round " + std::to_string(round) + " " + std::to_string(w) + "x" + std::to_string(h) +
                                 " t " + std::to_string(t) + " conn " + std::to_string(static_cast<int>(c));
        const ClumpRun memory = run_phases(values, w, h, t, o);
        o.external_merge = true;
        const ClumpRun external = run_phases(values, w, h, t, o);
        const ClumpReference expected = clump_reference(values, w, h, o);
        EXPECT_EQ(external.labels, expected.labels) << what;
        EXPECT_EQ(external.result.regions, expected.regions) << what;
        EXPECT_EQ(external.result.cells_labelled, expected.cells) << what;
        EXPECT_EQ(external.result.largest_region, expected.largest) << what;
        EXPECT_FALSE(memory.result.external_merge) << what;
        EXPECT_TRUE(external.result.external_merge) << what;
        EXPECT_EQ(external.labels, memory.labels) << what;
        EXPECT_EQ(external.result.regions, memory.result.regions) << what;
        EXPECT_EQ(external.result.merged_border_regions, memory.result.merged_border_regions) << what;
        EXPECT_EQ(external.result.largest_region, memory.result.largest_region) << what;
        ++cases;
      }
  }
  EXPECT_EQ(cases, 16 * 4 * 2);
}

// The external merge runs the subtrees of its top levels on threads of their own (4^P subtrees for
// `threads`): the labels and the merge's counts are the same at every thread count, and equal the
// oracle, on random fields and on a spiral that crosses every level.
TEST(ClumpPipeline, ExternalMergeSameRootsWhateverTheThreads) {
  std::mt19937_64 rng(17);
  std::vector<std::pair<std::string, std::vector<double>>> rasters;
  const std::uint64_t w = 75, h = 61;  // tiles of 4: 19 x 16 tiles, 5 levels
  rasters.emplace_back("random", random_classes(rng, w * h, 3, 0.1));
  rasters.emplace_back("two values", random_classes(rng, w * h, 2, 0.3));
  for (const auto& [name, values] : rasters)
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
      ClumpPhaseOptions o;
      o.connectivity = c;
      o.external_merge = true;
      const ClumpReference expected = clump_reference(values, w, h, o);
      const ClumpRun one = run_phases(values, w, h, 4, o, 1);
      EXPECT_EQ(one.result.merge_parallel_levels, 0u);
      EXPECT_EQ(one.labels, expected.labels) << name;
      for (const unsigned threads : {2u, 5u, 16u}) {
        const std::string what = name + ", " + std::to_string(threads) + " threads, conn " + std::to_string(static_cast<int>(c));
        const ClumpRun many = run_phases(values, w, h, 4, o, threads);
        EXPECT_TRUE(many.result.external_merge) << what;
        EXPECT_EQ(many.result.merge_parallel_levels, threads == 2 ? 1u : 2u) << what;
        EXPECT_EQ(many.labels, one.labels) << what;
        EXPECT_EQ(many.result.regions, one.result.regions) << what;
        EXPECT_EQ(many.result.merged_border_regions, one.result.merged_border_regions) << what;
        EXPECT_EQ(many.result.merge_links, one.result.merge_links) << what;
        EXPECT_EQ(many.result.largest_region, one.result.largest_region) << what;
      }
    }
  const std::uint64_t n = 67;
  const std::vector<double> coil = spiral(n);
  ClumpPhaseOptions o;
  o.external_merge = true;
  const ClumpReference expected = clump_reference(coil, n, n, o);
  for (const unsigned threads : {1u, 4u, 7u}) {
    const ClumpRun run = run_phases(coil, n, n, 4, o, threads);
    EXPECT_EQ(run.labels, expected.labels) << "spiral, " << threads << " threads";
    EXPECT_EQ(run.result.regions, expected.regions) << "spiral, " << threads << " threads";
  }
}

// Regions that cross many tiles and levels of the hierarchy: spirals (the first cell far from most
// of the region), a serpentine, a diagonal staircase, a checkerboard (every cell its own region with
// 4 neighbours, one region with 8), one region over everything.
TEST(ClumpPipeline, ExternalMergeOnSpiralsSnakesAndCheckerboards) {
  std::vector<std::pair<std::string, std::vector<double>>> rasters;
  const std::uint64_t n = 67;
  rasters.emplace_back("spiral", spiral(n));
  std::vector<double> snake(n * n, kNaN), stairs(n * n, kNaN), checker(n * n), flat(n * n, 5.0);
  for (std::uint64_t y = 0; y < n; y += 2) {
    for (std::uint64_t x = 0; x < n; ++x) snake[y * n + x] = 7;
    if (y + 1 < n) snake[(y + 1) * n + ((y / 2) % 2 ? 0 : n - 1)] = 7;
  }
  for (std::uint64_t i = 0; i < n; ++i) stairs[i * n + (n - 1 - i)] = 3;
  for (std::uint64_t i = 0; i < n * n; ++i) checker[i] = static_cast<double>(((i % n) + (i / n)) % 2);
  rasters.emplace_back("snake", snake);
  rasters.emplace_back("stairs", stairs);
  rasters.emplace_back("checkerboard", checker);
  rasters.emplace_back("flat", flat);
  for (const auto& [name, values] : rasters)
    for (std::uint32_t t : {4u, 8u, 32u})
      for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        ClumpPhaseOptions o;
        o.connectivity = c;
        o.external_merge = true;
        expect_matches_oracle(values, n, n, t, o, name + " t " + std::to_string(t) + " conn " +
                                                      std::to_string(static_cast<int>(c)));
      }
}

// A border table larger than the budget: the run goes external by itself (it was a BudgetError
// before the external merge) and gives the in-memory merge's labels.
TEST(ClumpPipeline, BorderTableOverBudgetGoesExternal) {
  std::mt19937_64 rng(3);
  const std::uint64_t w = 360, h = 360;
  const std::vector<double> values = random_classes(rng, w * h, 8, 0.0);  // most ring cells their own region
  ClumpPhaseOptions o;
  const ClumpRun small = run_phases(values, w, h, 8, o, 1, 1ull << 20);
  EXPECT_TRUE(small.result.external_merge);
  EXPECT_GT(small.result.border_regions * BorderTable::kBytesPerRegion, 1ull << 20);  // the table would not fit
  const ClumpRun large = run_phases(values, w, h, 8, o, 1);
  EXPECT_FALSE(large.result.external_merge);
  EXPECT_EQ(small.labels, large.labels);
  EXPECT_EQ(small.result.regions, large.result.regions);
  EXPECT_EQ(small.result.largest_region, large.result.largest_region);
}

// ---- --stats ------------------------------------------------------------------------------------

class MemoryStats : public ClumpStatsSink {
 public:
  void region(const ClumpRegionStats& s) override { regions.push_back(s); }
  std::vector<ClumpRegionStats> regions;
};

TEST(ClumpPipeline, StatsMatchOracleThroughSpilledSorterRuns) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 12; ++round) {
    const std::uint64_t w = 5 + rng() % 90, h = 5 + rng() % 90;
    const std::vector<double> values = random_classes(rng, w * h, 1 + static_cast<int>(rng() % 3), 0.1);
    for (std::uint32_t t : {4u, 16u})
      for (ClumpBy by : {ClumpBy::Value, ClumpBy::Range}) {
        ClumpPhaseOptions o;
        o.by = by;
        o.range_lo = 0;
        o.range_hi = 1;
        o.connectivity = round % 2 ? Connectivity::Four : Connectivity::Eight;
        o.stats_buffer_bytes = ExternalSorter::kMinimumBufferBytes;  // many runs on disk
        o.external_merge = round % 3 == 2;  // the external merge's statistics (roots retired by phase 3)
        testing::TempDir dir;
        o.scratch_dir = dir.path();
        MemoryTileInput input(values, w, h, t);
        MemorySink sink(w, h);
        MemoryStats stats;
        MemoryBudget budget(64ull << 20);
        const ClumpPhaseResult r = run_clump_phases(input, o, budget, Progress::silent(), &sink, &stats);
        const ClumpReference expected = clump_reference(values, w, h, o);
        const std::vector<ClumpRegionStats> want = clump_reference_stats(expected, values, w, h, by);
        ASSERT_EQ(stats.regions.size(), want.size()) << round;
        EXPECT_EQ(r.regions, want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
          const ClumpRegionStats &a = stats.regions[i], &b = want[i];
          EXPECT_EQ(a.label, b.label);
          EXPECT_EQ(a.cells, b.cells) << "label " << b.label;
          EXPECT_TRUE(a.value == b.value || (std::isnan(a.value) && std::isnan(b.value))) << "label " << b.label;
          EXPECT_EQ(a.col_min, b.col_min) << "label " << b.label;
          EXPECT_EQ(a.row_min, b.row_min) << "label " << b.label;
          EXPECT_EQ(a.col_max, b.col_max) << "label " << b.label;
          EXPECT_EQ(a.row_max, b.row_max) << "label " << b.label;
        }
        EXPECT_EQ(budget.reserved(), 0u);
      }
  }
}

// ---- run_clump on shipped DEMs ----------------------------------------------------------------

TEST(ClumpApi, ShippedDemsMatchOracle) {
  const std::pair<const char*, ClumpBy> cases[] = {{"pysheds_dem.tif", ClumpBy::Range}, {"pysheds_dem.tif", ClumpBy::Value},
                                                   {"hugo_site.asc", ClumpBy::Range}, {"west_bijou_gully.asc", ClumpBy::Range},
                                                   {"rhine_elv0.tif", ClumpBy::Range}, {"N44W072.hgt", ClumpBy::Value},
                                                   {"west_bijou_gully.asc", ClumpBy::Value}, {"Mandakini.bil", ClumpBy::Valid}};
  for (const auto& [name, by] : cases) {
    const std::string dem = std::string(TERRAZO_DATASETS) + "/real/" + name;
    RasterInfo info;
    const std::vector<double> values = read_raster_values(dem, &info);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values)
      if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    testing::TempDir dir;
    for (std::uint32_t tile : {16u, 64u}) {
      ClumpOptions o;
      RunSettings o_run;
      o.input = dem;
      o.output = dir.file("labels_" + std::to_string(tile) + ".tif");
      o.by_given = true;
      o.by = by;
      o.range_lo = lo + (hi - lo) * 0.3;
      o.range_hi = lo + (hi - lo) * 0.6;
      o.tile = tile;
      o_run.tmpdir = dir.path();
      MemoryBudget budget(256ull << 20);
      const ClumpResult r = terrazo::testing::run_with(run_clump, o, o_run, budget, Progress::silent());
      ClumpPhaseOptions po;
      po.by = by;
      po.range_lo = o.range_lo;
      po.range_hi = o.range_hi;
      const ClumpReference expected = clump_reference(values, info.width, info.height, po);
      EXPECT_EQ(r.regions, expected.regions) << name;
      EXPECT_EQ(r.cells_labelled, expected.cells) << name;
      EXPECT_EQ(r.largest_region, expected.largest) << name;
      EXPECT_GT(r.regions, 0u) << name;
      RasterInfo out_info;
      const std::vector<double> labels = read_raster_values(o.output, &out_info);
      EXPECT_EQ(out_info.type, CellType::UInt32);
      EXPECT_TRUE(out_info.has_nodata);
      EXPECT_EQ(out_info.nodata, 0.0);
      for (int k = 0; k < 6; ++k) EXPECT_DOUBLE_EQ(out_info.geotransform[k], info.geotransform[k]) << name;
      EXPECT_EQ(out_info.crs_wkt, info.crs_wkt) << name;  // read on a thread of its own (two threads)
      {  // Labels are written without a predictor (engine/commands/clump.cpp LabelRasterWriter)
        ensure_gdal();  // the run itself may not have loaded GDAL (docs/architecture.md "GDAL loaded on demand")
        GDALDatasetH ds = GDALOpen(o.output.c_str(), GA_ReadOnly);
        ASSERT_TRUE(ds);
        const char* predictor = GDALGetMetadataItem(ds, "PREDICTOR", "IMAGE_STRUCTURE");
        EXPECT_TRUE(!predictor || std::string(predictor) == "1") << name << ": PREDICTOR=" << predictor;
        GDALClose(ds);
      }
      std::uint64_t wrong = 0;
      for (std::size_t i = 0; i < labels.size(); ++i) {
        const double want = expected.labels[i] ? expected.labels[i] : kNaN;  // nodata reads as NaN
        if (!(labels[i] == want || (std::isnan(want) && std::isnan(labels[i])))) ++wrong;
      }
      EXPECT_EQ(wrong, 0u) << name << " tile " << tile;
    }
  }
}

// clump of `input` to labels.tif and regions.csv in `dir`, tiles of `tile`.
ClumpOptions labels_and_stats(const std::string& input, const testing::TempDir& dir, std::uint32_t tile) {
  ClumpOptions o;
  o.input = input;
  o.output = dir.file("labels.tif");
  o.stats = dir.file("regions.csv");
  o.tile = tile;
  return o;
}

TEST(ClumpApi, StatsCsvOnAShippedDem) {
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  RasterInfo info;
  const std::vector<double> values = read_raster_values(dem, &info);
  testing::TempDir dir;
  const ClumpOptions o = labels_and_stats(dem, dir, 16);
  RunSettings o_run;
  o_run.tmpdir = dir.path();
  MemoryBudget budget(128ull << 20);
  const ClumpResult r = terrazo::testing::run_with(run_clump, o, o_run, budget, Progress::silent());
  ClumpPhaseOptions po;
  const ClumpReference expected = clump_reference(values, info.width, info.height, po);
  const std::vector<ClumpRegionStats> want = clump_reference_stats(expected, values, info.width, info.height, ClumpBy::Value);
  std::ifstream csv(o.stats);
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(line, "label,cells,area,value,col_min,row_min,col_max,row_max,x_min,y_min,x_max,y_max");
  const double pixel_area = std::fabs(info.geotransform[1] * info.geotransform[5]);
  std::uint64_t rows = 0;
  while (std::getline(csv, line)) {
    ASSERT_LT(rows, want.size());
    const ClumpRegionStats& b = want[rows++];
    unsigned long long label, cells, c0, r0, c1, r1;
    double area, value, x0, y0, x1, y1;
    ASSERT_EQ(std::sscanf(line.c_str(), "%llu,%llu,%lf,%lf,%llu,%llu,%llu,%llu,%lf,%lf,%lf,%lf", &label, &cells, &area,
                          &value, &c0, &r0, &c1, &r1, &x0, &y0, &x1, &y1),
              12)
        << line;
    EXPECT_EQ(label, b.label);
    EXPECT_EQ(cells, b.cells);
    EXPECT_DOUBLE_EQ(area, b.cells * pixel_area);
    EXPECT_EQ(value, b.value);
    EXPECT_EQ(c0, b.col_min);
    EXPECT_EQ(r1, b.row_max);
    EXPECT_DOUBLE_EQ(x0, info.geotransform[0] + b.col_min * info.geotransform[1]);
    EXPECT_DOUBLE_EQ(x1, info.geotransform[0] + (b.col_max + 1) * info.geotransform[1]);
    EXPECT_DOUBLE_EQ(y1, info.geotransform[3] + b.row_min * info.geotransform[5]);  // north-up: row_min is the top
  }
  EXPECT_EQ(rows, r.regions);
}

TEST(ClumpApi, CancelledRunLeavesNoOutput) {
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  testing::TempDir dir;
  for (const char* phase : {"clump: tile labels", "clump: merge", "clump: relabel", "clump: stats"}) {
    const ClumpOptions o = labels_and_stats(dem, dir, 32);
    RunSettings o_run;
    o_run.tmpdir = dir.path();
    MemoryBudget budget(128ull << 20);
    Progress cancel([&](const ProgressEvent& e) { return !(e.phase == phase && e.done > 0); });
    EXPECT_THROW(terrazo::testing::run_with(run_clump, o, o_run, budget, cancel), Cancelled) << phase;
    EXPECT_FALSE(std::ifstream(o.output).good()) << phase;
    EXPECT_FALSE(std::ifstream(o.stats).good()) << phase;
    EXPECT_TRUE(testing::partial_files_of(o.output).empty()) << phase;
    EXPECT_TRUE(testing::partial_files_of(o.stats).empty()) << phase;
  }
}

}  // namespace
}  // namespace terrazo
