// tests/test_clump_sieve.cpp: `terrazo clump --min-size` (engine/clump/sieve.h, docs/clump.md)
// against the sieve's plain formula (tests/support/clump_reference.h):
//   ClumpSieve  the sieve on hand-made and random label files (in-memory and external merge, 4/8
//               connectivity, merge and nodata actions), and its usage error;
//   ClumpApi    run_clump with --min-size on a shipped DEM.
// The regions themselves are tests/test_clump.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/clump_command.h"
#include "kernels/common/error.h"
#include "engine/clump/phases.h"
#include "engine/clump/sieve.h"
#include "io/store/external_sorter.h"
#include "support/clump_memory_sink.h"
#include "support/clump_reference.h"
#include "support/sssp_reference.h"
#include "support/test_support.h"
#include "tests/support/memory_tile_input.h"

namespace terrazo {
namespace {

using testing::clump_reference;
using testing::ClumpReference;
using testing::random_classes;
using testing::read_raster_values;
using testing::sieve_reference;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

using MemorySink = ClumpMemorySink;

struct SieveRun {
  std::vector<std::uint32_t> labels;
  ClumpSieveResult result;
};

// The phases once into a label file, then the sieve on it as often as asked (it only reads the file).
class SieveFixture {
 public:
  SieveFixture(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint32_t t, Connectivity c,
               bool external_merge)
      : w_(w), h_(h), t_(t), c_(c), file_(dir_.file("labels.u32"), w, h) {
    ClumpPhaseOptions o;
    o.connectivity = c;
    o.external_merge = external_merge;
    o.scratch_dir = dir_.path();
    o.threads = 2;
    MemoryTileInput input(values, w, h, t);
    MemoryBudget budget(256ull << 20);
    regions_ = run_clump_phases(input, o, budget, Progress::silent(), &file_).regions;
    EXPECT_EQ(budget.reserved(), 0u);
  }

  SieveRun sieve(std::uint64_t n, ClumpSmallAction action) const {
    ClumpSieveOptions so;
    so.min_size = n;
    so.action = action;
    so.connectivity = c_;
    so.tile = t_;
    so.scratch_dir = dir_.path();
    so.sort_buffer_bytes = ExternalSorter::kMinimumBufferBytes;  // spills runs on all but the smallest
    MemorySink sink(w_, h_);
    MemoryBudget budget(256ull << 20);
    SieveRun run;
    run.result = run_clump_sieve(file_, regions_, so, budget, Progress::silent(), &sink);
    run.labels = std::move(sink.labels);
    EXPECT_EQ(budget.reserved(), 0u);
    return run;
  }

 private:
  testing::TempDir dir_;
  std::uint64_t w_, h_;
  std::uint32_t t_;
  Connectivity c_;
  ClumpLabelFile file_;
  std::uint64_t regions_ = 0;
};

SieveRun run_sieve(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint32_t t,
                   Connectivity c, std::uint64_t n, ClumpSmallAction action) {
  return SieveFixture(values, w, h, t, c, false).sieve(n, action);
}

TEST(ClumpSieve, HandMadeLongestBorderAndTies) {
  // 6 x 3, 4-connectivity, N = 3:
  //   1 1 1 2 2 2     region A (1s, 3 cells), B (2s left, 3+), C (the 9 cell: 1 cell), ...
  //   1 9 2 2 2 2
  //   3 3 3 3 4 4
  const std::vector<double> v{1, 1, 1, 2, 2, 2, 1, 9, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4};
  const ClumpReference o = clump_reference(v, 6, 3, [] { ClumpPhaseOptions p; p.connectivity = Connectivity::Four; return p; }());
  ASSERT_EQ(o.regions, 5u);  // 1s, 2s, 9, 3s, 4s in first-cell order
  const SieveRun merged = run_sieve(v, 6, 3, 4, Connectivity::Four, 3, ClumpSmallAction::Merge);
  // The 9 (1 cell) borders the 1s on 2 sides (N, W), the 2s on 1 (E), the 3s on 1 (S): into the 1s.
  // The 4s (2 cells) border the 2s on 2 sides (N) and the 3s on 1 (W): into the 2s.
  EXPECT_EQ(merged.labels, (std::vector<std::uint32_t>{1, 1, 1, 2, 2, 2, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2}));
  EXPECT_EQ(merged.result.regions, 3u);
  EXPECT_EQ(merged.result.small_regions, 2u);
  EXPECT_EQ(merged.result.merged, 2u);
  EXPECT_EQ(merged.result.largest_region, 9u);  // the 2s: 7 + the 4s
  const SieveRun cleared = run_sieve(v, 6, 3, 4, Connectivity::Four, 3, ClumpSmallAction::Nodata);
  EXPECT_EQ(cleared.labels, (std::vector<std::uint32_t>{1, 1, 1, 2, 2, 2, 1, 0, 2, 2, 2, 2, 3, 3, 3, 3, 0, 0}));
  EXPECT_EQ(cleared.result.cells_labelled, 15u);
  // Tie: a single cell between two 1-wide columns of equal border: the smaller label wins; an
  // isolated single cell (nodata around) stays.
  const double n = kNaN;
  const std::vector<double> tie{1, 5, 2, 1, n, 2, 1, n, 2, n, n, n, n, 7, n};
  const SieveRun t = run_sieve(tie, 3, 5, 4, Connectivity::Four, 2, ClumpSmallAction::Merge);
  EXPECT_EQ(t.labels, (std::vector<std::uint32_t>{1, 1, 2, 1, 0, 2, 1, 0, 2, 0, 0, 0, 0, 3, 0}));
  EXPECT_EQ(t.result.isolated, 1u);
}

TEST(ClumpSieve, RandomRastersMatchInMemorySieve) {
  std::mt19937_64 rng(424242);
  int cases = 0;
  for (int round = 0; round < 30; ++round) {
    const std::uint64_t w = 1 + rng() % 60, h = 1 + rng() % 60;
    const std::vector<double> values = random_classes(rng, w * h, 2 + static_cast<int>(rng() % 4), (rng() % 3) * 0.1);
    const std::uint32_t t = 4u << (rng() % 3);
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
      ClumpPhaseOptions po;
      po.connectivity = c;
      const ClumpReference o = clump_reference(values, w, h, po);
      const SieveFixture labelled(values, w, h, t, c, round % 2 == 1);  // odd: the external merge
      for (std::uint64_t n : {1ull, 2ull, 3ull, 6ull, 40ull})
        for (ClumpSmallAction action : {ClumpSmallAction::Merge, ClumpSmallAction::Nodata}) {
          const std::vector<std::uint32_t> expected = sieve_reference(o, w, h, c, n, action);
          const SieveRun got = labelled.sieve(n, action);
          std::uint64_t wrong = 0, first = 0;
          for (std::uint64_t i = 0; i < w * h; ++i)
            if (got.labels[i] != expected[i] && wrong++ == 0) first = i;
          ASSERT_EQ(wrong, 0u) << "round " << round << " " << w << "x" << h << " t " << t << " conn "
                               << static_cast<int>(c) << " N " << n << " " << to_string(action) << ": first at ("
                               << first % w << ", " << first / w << "): got " << got.labels[first] << ", expected "
                               << expected[first];
          const std::uint32_t k = expected.empty() ? 0 : *std::max_element(expected.begin(), expected.end());
          EXPECT_EQ(got.result.regions, k);
          if (n == 1) {
            EXPECT_EQ(got.labels, o.labels);
          }
          ++cases;
        }
    }
  }
  EXPECT_EQ(cases, 30 * 2 * 5 * 2);
}

TEST(ClumpSieve, MinSizeZeroIsAUsageError) {
  testing::TempDir dir;
  ClumpLabelFile file(dir.file("labels.u32"), 2, 2);
  ClumpSieveOptions so;
  so.scratch_dir = dir.path();
  MemoryBudget budget(16ull << 20);
  EXPECT_THROW(run_clump_sieve(file, 0, so, budget, Progress::silent(), nullptr), UsageError);
}

TEST(ClumpApi, MinSizeOnAShippedDemMatchesInMemorySieve) {
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  RasterInfo info;
  const std::vector<double> values = read_raster_values(dem, &info);
  testing::TempDir dir;
  for (ClumpSmallAction action : {ClumpSmallAction::Merge, ClumpSmallAction::Nodata}) {
    ClumpOptions o;
    RunSettings o_run;
    o.input = dem;
    o.output = dir.file(std::string("labels_") + to_string(action) + ".tif");
    o.by_given = true;
    o.by = ClumpBy::Value;
    o.min_size_given = true;
    o.min_size = 25;
    o.min_size_action = action;
    o.tile = 32;
    o_run.tmpdir = dir.path();
    MemoryBudget budget(256ull << 20);
    const ClumpResult r = terrazo::testing::run_with(run_clump, o, o_run, budget, Progress::silent());
    ClumpPhaseOptions po;
    po.by = ClumpBy::Value;
    const ClumpReference before = clump_reference(values, info.width, info.height, po);
    const std::vector<std::uint32_t> expected = sieve_reference(before, info.width, info.height, po.connectivity, 25, action);
    EXPECT_EQ(r.regions_before_sieve, before.regions);
    EXPECT_GT(r.small_regions, 0u);
    EXPECT_LT(r.regions, r.regions_before_sieve);
    const std::vector<double> labels = read_raster_values(o.output, &info);
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const double want = expected[i] ? expected[i] : kNaN;
      if (!(labels[i] == want || (std::isnan(want) && std::isnan(labels[i])))) ++wrong;
    }
    EXPECT_EQ(wrong, 0u) << to_string(action);
  }
}

}  // namespace
}  // namespace terrazo
