// tests/test_block_sssp.cpp: the CPU block solver (kernels/sssp/block_sssp.h) against the in-memory
// Dijkstra reference (tests/support/sssp_reference.h) on random tiles with random halos.
//
// The reference runs on the (t+2) x (t+2) window with the halo ring frozen (never entered), which is
// the contract's "halo cells are never intermediate cells of a path and are never written".
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/sssp/backlink.h"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp.h"
#include "tests/support/sssp_reference.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct RandomTile {
  std::uint32_t t = 0;
  std::vector<double> values;
  std::vector<PathLength> dist;
  std::vector<std::uint32_t> source, hops;
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;
};

RandomTile make_tile(std::mt19937_64& rng, bool labelled, bool narrow = false) {
  RandomTile tile;
  const std::uint32_t sizes[] = {1, 2, 3, 4, 5, 8, 16, 32};
  tile.t = sizes[rng() % 8];
  const std::uint32_t s = tile.t + 2;
  const std::size_t cells = static_cast<std::size_t>(s) * s;
  const int model = static_cast<int>(rng() % 3);
  tile.params.model = model == 0 ? WeightModel::Max : model == 1 ? WeightModel::AbsDiff : WeightModel::Friction;
  tile.params.scale = (rng() % 2) ? 1.0 : 1000.0;
  tile.connectivity = (rng() % 3 == 0) ? Connectivity::Four : Connectivity::Eight;
  // Small integer ranges make ties and zero-weight edges common (plateaus); real values otherwise.
  const bool integral = rng() % 2;
  const double range = (rng() % 2) ? 3.0 : 1000.0;
  const double nodata_fraction = (rng() % 3 == 0) ? 0.0 : 0.05 * static_cast<double>(rng() % 8);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  tile.values.resize(cells);
  for (auto& v : tile.values) {
    v = narrow ? range * (1.0 + unit(rng)) : unit(rng) * range;  // narrow: values in [range, 2 range)
    if (integral) v = std::floor(v);
    if (tile.params.model == WeightModel::Max && rng() % 4 == 0) v = -v;  // negative heights, offset below
    if (unit(rng) < nodata_fraction) v = kNaN;
  }
  if (tile.params.model == WeightModel::Max) tile.params.offset = -range;
  // Halo: finite with some probability, sometimes all unreached; interior: mostly unreached, some
  // finite (a previous solve's distances) and a few zeros (sources).
  const double halo_finite = (rng() % 4 == 0) ? 0.0 : unit(rng);
  const double interior_finite = (rng() % 2) ? 0.0 : 0.3 * unit(rng);
  const PathLength spread = 1 + rng() % 200000;
  tile.dist.assign(cells, kUnreached);
  tile.source.assign(cells, 0);
  tile.hops.assign(cells, 0);
  for (std::uint32_t y = 0; y < s; ++y)
    for (std::uint32_t x = 0; x < s; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * s + x;
      const bool halo = x == 0 || y == 0 || x == s - 1 || y == s - 1;
      const double p = halo ? halo_finite : interior_finite;
      if (unit(rng) < p) {
        tile.dist[i] = (rng() % 10 == 0) ? 0 : rng() % spread;
        if (labelled) {
          tile.source[i] = static_cast<std::uint32_t>(rng() % 4);
          tile.hops[i] = static_cast<std::uint32_t>(rng() % 50);
        }
      }
    }
  if (rng() % 4 == 0) tile.max_cost = rng() % spread;
  return tile;
}

testing::SsspReferenceProblem reference_of(const RandomTile& tile) {
  testing::SsspReferenceProblem p =
      testing::block_window_problem(tile.values.data(), tile.t, tile.params, tile.connectivity, tile.dist);
  p.max_cost = tile.max_cost;
  p.source = tile.source;
  p.hops = tile.hops;
  return p;
}

// Which label arrays the solver gets: none, source only, hops only, both.
enum class LabelMode { kNone, kSource, kHops, kBoth };

void check_tile(std::uint64_t seed, LabelMode mode, bool narrow = false) {
  std::mt19937_64 rng(seed);
  RandomTile tile = make_tile(rng, mode != LabelMode::kNone, narrow);
  const std::uint32_t t = tile.t, s = t + 2;
  testing::SsspReferenceProblem ref = reference_of(tile);
  if (mode == LabelMode::kHops) std::fill(ref.source.begin(), ref.source.end(), 0u);
  if (mode == LabelMode::kSource) std::fill(ref.hops.begin(), ref.hops.end(), 0u);
  const bool ref_ok = testing::sssp_reference(ref);

  std::vector<PathLength> dist = tile.dist;
  std::vector<std::uint32_t> source = tile.source, hops = tile.hops;
  if (mode == LabelMode::kHops) std::fill(source.begin(), source.end(), 0u);
  if (mode == LabelMode::kSource) std::fill(hops.begin(), hops.end(), 0u);
  std::vector<std::uint8_t> changed(static_cast<std::size_t>(t) * t, 7);
  bool overflow = false;
  std::uint64_t count;
  SsspLabels labels;
  if (mode == LabelMode::kSource || mode == LabelMode::kBoth) labels.source = source.data();
  if (mode == LabelMode::kHops || mode == LabelMode::kBoth) labels.hops = hops.data();
  if (mode == LabelMode::kNone)
    count = block_sssp_cpu(tile.values.data(), t, tile.params, tile.connectivity, tile.max_cost, dist.data(),
                           changed.data(), &overflow);
  else
    count = block_sssp_cpu_labelled(tile.values.data(), t, tile.params, tile.connectivity, tile.max_cost,
                                    dist.data(), labels, changed.data(), &overflow);
  ASSERT_EQ(overflow, !ref_ok) << "seed " << seed;

  std::uint64_t expected_count = 0;
  for (std::uint32_t y = 0; y < s; ++y)
    for (std::uint32_t x = 0; x < s; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * s + x;
      const bool halo = x == 0 || y == 0 || x == s - 1 || y == s - 1;
      ASSERT_EQ(dist[i], ref.dist[i]) << "seed " << seed << " cell " << x << "," << y << " t " << t;
      if (halo) continue;
      bool label_changed = ref.dist[i] != tile.dist[i];
      if (mode == LabelMode::kSource || mode == LabelMode::kBoth) {
        ASSERT_EQ(source[i], ref.source[i]) << "seed " << seed << " cell " << x << "," << y;
        label_changed = label_changed || ref.source[i] != tile.source[i];
      }
      if (mode == LabelMode::kHops || mode == LabelMode::kBoth) {
        ASSERT_EQ(hops[i], ref.hops[i]) << "seed " << seed << " cell " << x << "," << y;
        label_changed = label_changed || ref.hops[i] != tile.hops[i];
      }
      ASSERT_EQ(changed[static_cast<std::size_t>(y - 1) * t + (x - 1)], label_changed ? 1 : 0)
          << "seed " << seed << " cell " << x << "," << y;
      expected_count += label_changed ? 1 : 0;
    }
  // Halo labels are never written.
  for (std::uint32_t y = 0; y < s; ++y)
    for (std::uint32_t x = 0; x < s; ++x)
      if (x == 0 || y == 0 || x == s - 1 || y == s - 1) {
        const std::size_t i = static_cast<std::size_t>(y) * s + x;
        ASSERT_EQ(dist[i], tile.dist[i]);
        ASSERT_EQ(source[i], mode == LabelMode::kHops ? 0u : tile.source[i]);
      }
  ASSERT_EQ(count, expected_count) << "seed " << seed;
}

TEST(BlockSssp, RandomTilesDistancesOnly) {
  for (std::uint64_t seed = 1; seed <= 600; ++seed) check_tile(seed, LabelMode::kNone);
}

TEST(BlockSssp, RandomTilesWithSourceAndHops) {
  for (std::uint64_t seed = 1001; seed <= 1400; ++seed) check_tile(seed, LabelMode::kBoth);
}

// Values bounded away from 0: friction and max weights lie in [delta, w_max] with a small ratio,
// so the solver uses its bucket queue (kernels/sssp/bucket_queue.h) instead of the radix heap.
TEST(BlockSssp, RandomTilesOnTheBucketQueuePath) {
  for (std::uint64_t seed = 4001; seed <= 4300; ++seed) check_tile(seed, LabelMode::kNone, true);
  for (std::uint64_t seed = 4301; seed <= 4600; ++seed) check_tile(seed, LabelMode::kBoth, true);
}

TEST(BlockSssp, RandomTilesWithOneLabelArray) {
  for (std::uint64_t seed = 2001; seed <= 2200; ++seed) check_tile(seed, LabelMode::kSource);
  for (std::uint64_t seed = 3001; seed <= 3200; ++seed) check_tile(seed, LabelMode::kHops);
}

// A hand-made 3x3 tile: friction 1 everywhere, the halo cell west of (0,1) at distance 10.
TEST(BlockSssp, HandMadeFrictionTile) {
  const std::uint32_t t = 3, s = 5;
  std::vector<double> values(s * s, 1.0);
  std::vector<PathLength> dist(s * s, kUnreached);
  dist[2 * s + 0] = 10;  // halo (-1, 1)
  WeightParams params;
  params.model = WeightModel::Friction;
  params.scale = 100.0;
  std::vector<std::uint8_t> changed(t * t);
  bool overflow = false;
  EXPECT_EQ(block_sssp_cpu(values.data(), t, params, Connectivity::Eight, kUnreached, dist.data(), changed.data(),
                           &overflow),
            9u);
  EXPECT_FALSE(overflow);
  // Column 0: 10 + 100 (orthogonal) or 10 + 141 (diagonal); column 1: + 100; column 2: + 100.
  EXPECT_EQ(dist[2 * s + 1], 110u);
  EXPECT_EQ(dist[1 * s + 1], 151u);
  EXPECT_EQ(dist[3 * s + 1], 151u);
  EXPECT_EQ(dist[2 * s + 3], 310u);
  EXPECT_EQ(dist[1 * s + 3], 351u);  // 151 + 100 + 100 or 110 + 141 + 100
  // The halo is never an intermediate cell: the halo row above is unreached and stays so.
  EXPECT_EQ(dist[0 * s + 1], kUnreached);
}

TEST(BlockSssp, MaxCostStopsExpansion) {
  const std::uint32_t t = 4, s = 6;
  std::vector<double> values(s * s, 1.0);
  std::vector<PathLength> dist(s * s, kUnreached);
  dist[1 * s + 1] = 0;  // a source at (0, 0)
  WeightParams params;
  params.model = WeightModel::Friction;
  std::vector<std::uint8_t> changed(t * t);
  bool overflow = false;
  block_sssp_cpu(values.data(), t, params, Connectivity::Four, 2, dist.data(), changed.data(), &overflow);
  EXPECT_EQ(dist[1 * s + 3], 2u);
  EXPECT_EQ(dist[1 * s + 4], kUnreached);
  EXPECT_EQ(dist[2 * s + 2], 2u);
  EXPECT_EQ(dist[3 * s + 2], kUnreached);
}

TEST(BlockSssp, OverflowIsReported) {
  const std::uint32_t t = 2, s = 4;
  std::vector<double> values(s * s, 1e9);
  std::vector<PathLength> dist(s * s, kUnreached);
  dist[1 * s + 1] = 0;
  WeightParams params;
  params.model = WeightModel::Friction;
  params.scale = 100.0;
  std::vector<std::uint8_t> changed(t * t);
  bool overflow = false;
  block_sssp_cpu(values.data(), t, params, Connectivity::Eight, kUnreached, dist.data(), changed.data(), &overflow);
  EXPECT_TRUE(overflow);
}

// Backlinks of a tile from final labels (the ring holds the neighbours' final labels) equal the
// reference rule on the whole window, and following them reaches a hops-0 cell without cycles.
TEST(Backlink, MatchesReferenceRuleOnRandomWindows) {
  for (std::uint64_t seed = 5001; seed <= 5300; ++seed) {
    std::mt19937_64 rng(seed);
    RandomTile tile = make_tile(rng, true);
    const std::uint32_t t = tile.t, s = t + 2;
    testing::SsspReferenceProblem ref =
        testing::reference_problem(s, s, tile.values.data(), tile.params, tile.connectivity);
    ref.max_cost = tile.max_cost;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
    const int count = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < count; ++k) {
      const std::uint64_t cell = rng() % (static_cast<std::uint64_t>(s) * s);
      if (tile.values[cell] == tile.values[cell]) sources.push_back({cell, static_cast<std::uint32_t>(rng() % 3)});
    }
    testing::set_reference_sources(ref, sources);
    if (!testing::sssp_reference(ref)) continue;
    const std::vector<std::uint8_t> expected = testing::backlinks_reference(ref);
    std::vector<std::uint8_t> back(static_cast<std::size_t>(t) * t);
    bool overflow = false;
    EXPECT_EQ(backlinks_cpu(tile.values.data(), t, tile.params, tile.connectivity, ref.dist.data(), ref.source.data(),
                            ref.hops.data(), back.data(), &overflow),
              0u);
    for (std::uint32_t ly = 0; ly < t; ++ly)
      for (std::uint32_t lx = 0; lx < t; ++lx) {
        const std::size_t u = static_cast<std::size_t>(ly + 1) * s + lx + 1;
        ASSERT_EQ(back[static_cast<std::size_t>(ly) * t + lx], expected[u]) << "seed " << seed;
        if (ref.dist[u] != kUnreached && ref.hops[u] > 0) {
          ASSERT_NE(expected[u], kNoBacklink) << "seed " << seed;
        }
      }
  }
}

// Labels that are not final: the cell is reported, not given a wrong direction.
TEST(Backlink, ReportsCellsWithoutPredecessor) {
  const std::uint32_t t = 1, s = 3;
  std::vector<double> values(s * s, 1.0);
  std::vector<PathLength> dist(s * s, kUnreached);
  std::vector<std::uint32_t> hops(s * s, 0);
  dist[4] = 5;
  hops[4] = 2;
  WeightParams params;
  params.model = WeightModel::Friction;
  std::uint8_t back = 0;
  bool overflow = false;
  EXPECT_EQ(backlinks_cpu(values.data(), t, params, Connectivity::Eight, dist.data(), nullptr, hops.data(), &back,
                          &overflow),
            1u);
  EXPECT_EQ(back, kNoBacklink);
}

// The seeding hint: after a solve, lower some halo labels and re-solve with interior_consistent;
// the result equals the reference (and the solve without the hint).
TEST(BlockSssp, InteriorConsistentHintAfterHaloImprovements) {
  for (std::uint64_t seed = 7001; seed <= 7400; ++seed) {
    std::mt19937_64 rng(seed);
    const bool labelled = seed % 2;
    RandomTile tile = make_tile(rng, labelled);
    const std::uint32_t t = tile.t, s = t + 2;
    std::vector<std::uint8_t> changed(static_cast<std::size_t>(t) * t);
    bool overflow = false;
    SsspLabels labels;
    if (labelled) {
      labels.source = tile.source.data();
      labels.hops = tile.hops.data();
    }
    block_sssp_cpu_labelled(tile.values.data(), t, tile.params, tile.connectivity, tile.max_cost, tile.dist.data(),
                            labels, changed.data(), &overflow);
    if (overflow) continue;
    for (std::uint32_t y = 0; y < s; ++y)
      for (std::uint32_t x = 0; x < s; ++x) {
        if (!(x == 0 || y == 0 || x == s - 1 || y == s - 1) || rng() % 3) continue;
        const std::size_t i = static_cast<std::size_t>(y) * s + x;
        tile.dist[i] = tile.dist[i] == kUnreached ? rng() % 100000 : tile.dist[i] / 2;
        if (labelled) tile.hops[i] = static_cast<std::uint32_t>(rng() % 50);
      }
    testing::SsspReferenceProblem ref = reference_of(tile);
    ASSERT_TRUE(testing::sssp_reference(ref));
    std::vector<PathLength> plain = tile.dist;
    std::vector<std::uint32_t> plain_source = tile.source, plain_hops = tile.hops;
    SsspLabels hinted = labels;
    hinted.interior_consistent = true;
    block_sssp_cpu_labelled(tile.values.data(), t, tile.params, tile.connectivity, tile.max_cost, tile.dist.data(),
                            hinted, changed.data(), &overflow);
    SsspLabels unhinted;
    if (labelled) {
      unhinted.source = plain_source.data();
      unhinted.hops = plain_hops.data();
    }
    block_sssp_cpu_labelled(tile.values.data(), t, tile.params, tile.connectivity, tile.max_cost, plain.data(),
                            unhinted, changed.data(), &overflow);
    ASSERT_EQ(tile.dist, ref.dist) << "seed " << seed;
    ASSERT_EQ(plain, ref.dist) << "seed " << seed;
    if (labelled) {
      ASSERT_EQ(tile.source, ref.source) << "seed " << seed;
      ASSERT_EQ(tile.hops, ref.hops) << "seed " << seed;
    }
  }
}

// ---- the unit model's frontier BFS twin (kernels/sssp/block_bfs.h) ----------------------------

// A one-cell-wide serpentine of valid cells through nodata in a side x side window: rows 0, 2, 4, ...
// valid, joined alternately at the east and west ends, so one path winds through the whole window.
std::vector<double> serpentine_window(std::uint32_t side) {
  std::vector<double> values(static_cast<std::size_t>(side) * side, kNaN);
  for (std::uint32_t y = 0; y < side; ++y)
    for (std::uint32_t x = 0; x < side; ++x) {
      const bool row = y % 2 == 0;
      const bool joint = y % 2 == 1 && x == ((y / 2) % 2 == 0 ? side - 1 : 0);
      if (row || joint) values[static_cast<std::size_t>(y) * side + x] = 3.0;
    }
  return values;
}

TEST(BlockBfs, StepWeightOfTheUnitModel) {
  WeightParams p;
  Weight step = 0;
  p.model = WeightModel::Max;
  EXPECT_FALSE(block_bfs_step(p, &step));
  p.model = WeightModel::Unit;
  p.scale = 1.0;
  ASSERT_TRUE(block_bfs_step(p, &step));
  EXPECT_EQ(step, 1u);
  p.scale = 2.5;  // llround: half away from zero
  ASSERT_TRUE(block_bfs_step(p, &step));
  EXPECT_EQ(step, 3u);
  p.scale = 1e10;  // does not fit a Weight: the generic solver runs and reports the overflow
  EXPECT_FALSE(block_bfs_step(p, &step));
  std::vector<double> values(9, 1.0);
  std::vector<PathLength> dist(9, kUnreached);
  std::vector<std::uint8_t> changed(1);
  EXPECT_THROW(block_bfs_cpu(values.data(), 1, p, Connectivity::Eight, kUnreached, dist.data(), changed.data()), Error);
}

// Hop counts along a serpentine inside the tile, entered from the halo: with 4 neighbours the k-th
// cell of the path is 5 + k c away; with 8 the diagonals cut the corners, checked against Dijkstra.
TEST(BlockBfs, SerpentineHopCounts) {
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    const std::uint32_t t = 9, s = t + 2;
    const std::vector<double> inner = serpentine_window(t);
    std::vector<double> values(static_cast<std::size_t>(s) * s, kNaN);
    values[1 * s + 0] = 1.0;  // the halo cell west of interior (0, 0)
    for (std::uint32_t y = 0; y < t; ++y)
      for (std::uint32_t x = 0; x < t; ++x) values[(y + 1) * s + x + 1] = inner[y * t + x];
    // The path in order: rows 0, 2, 4, ... alternately east and west, joined at the ends.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> path;
    for (std::uint32_t y = 0; y < t; y += 2) {
      const bool east = (y / 2) % 2 == 0;
      for (std::uint32_t k = 0; k < t; ++k) path.push_back({east ? k : t - 1 - k, y});
      if (y + 1 < t) path.push_back({east ? t - 1 : 0, y + 1});
    }
    WeightParams p;
    p.model = WeightModel::Unit;
    p.scale = 10.0;
    std::vector<PathLength> dist(static_cast<std::size_t>(s) * s, kUnreached);
    dist[1 * s + 0] = 5;
    std::vector<std::uint8_t> changed(t * t, 9);
    const std::uint64_t count = block_bfs_cpu(values.data(), t, p, c, kUnreached, dist.data(), changed.data());
    EXPECT_EQ(count, path.size());
    for (std::size_t k = 0; k < path.size(); ++k) {
      const auto [x, y] = path[k];
      EXPECT_EQ(changed[y * t + x], 1);
      if (c == Connectivity::Four) {
        EXPECT_EQ(dist[(y + 1) * s + x + 1], 5 + 10 * (k + 1)) << "path cell " << k;
      }
    }
    std::vector<PathLength> generic(static_cast<std::size_t>(s) * s, kUnreached);
    generic[1 * s + 0] = 5;
    std::vector<std::uint8_t> generic_changed(t * t);
    bool overflow = false;
    block_sssp_cpu(values.data(), t, p, c, kUnreached, generic.data(), generic_changed.data(), &overflow);
    EXPECT_EQ(dist, generic);
    EXPECT_EQ(changed, generic_changed);
  }
}

// Every random tile: block_bfs_cpu equals block_sssp_cpu (Dijkstra) and the reference, distances,
// changed flags and count, with seeds at different distances on the halo and inside (some of them
// improved before they are taken: stale seeds), max_cost, nodata, serpentines and step weights 1..1000.
TEST(BlockBfs, RandomTilesMatchTheDijkstraSolver) {
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint32_t sizes[] = {1, 2, 3, 4, 5, 8, 16, 21, 32};
    const std::uint32_t t = sizes[rng() % 9], s = t + 2;
    const std::size_t cells = static_cast<std::size_t>(s) * s;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> values;
    if (rng() % 4 == 0) {
      values = serpentine_window(s);
    } else {
      const double holes = 0.1 * static_cast<double>(rng() % 5);
      values.resize(cells);
      for (double& v : values) v = unit(rng) < holes ? kNaN : std::floor(unit(rng) * 100.0);
    }
    WeightParams p;
    p.model = WeightModel::Unit;
    const double scales[] = {1.0, 3.0, 1000.0, 0.7};
    p.scale = scales[rng() % 4];
    const Connectivity c = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    const double halo_finite = (rng() % 4 == 0) ? 0.0 : unit(rng);
    const double interior_finite = (rng() % 2) ? 0.0 : 0.3 * unit(rng);
    const PathLength spread = 1 + rng() % 5000;
    std::vector<PathLength> dist(cells, kUnreached);
    for (std::uint32_t y = 0; y < s; ++y)
      for (std::uint32_t x = 0; x < s; ++x) {
        const bool halo = x == 0 || y == 0 || x == s - 1 || y == s - 1;
        if (unit(rng) < (halo ? halo_finite : interior_finite)) dist[static_cast<std::size_t>(y) * s + x] = rng() % spread;
      }
    const PathLength max_cost = rng() % 4 == 0 ? rng() % spread : kUnreached;

    std::vector<PathLength> bfs = dist, generic = dist;
    std::vector<std::uint8_t> bfs_changed(static_cast<std::size_t>(t) * t, 7), generic_changed(bfs_changed.size(), 5);
    bool overflow = false;
    const std::uint64_t bfs_count = block_bfs_cpu(values.data(), t, p, c, max_cost, bfs.data(), bfs_changed.data());
    const std::uint64_t generic_count =
        block_sssp_cpu(values.data(), t, p, c, max_cost, generic.data(), generic_changed.data(), &overflow);
    ASSERT_FALSE(overflow);
    ASSERT_EQ(bfs, generic) << "seed " << seed << " t " << t;
    ASSERT_EQ(bfs_changed, generic_changed) << "seed " << seed;
    ASSERT_EQ(bfs_count, generic_count) << "seed " << seed;
    RandomTile tile;
    tile.t = t;
    tile.values = values;
    tile.dist = dist;
    tile.source.assign(cells, 0);
    tile.hops.assign(cells, 0);
    tile.params = p;
    tile.connectivity = c;
    tile.max_cost = max_cost;
    testing::SsspReferenceProblem ref = reference_of(tile);
    ASSERT_TRUE(testing::sssp_reference(ref));
    ASSERT_EQ(bfs, ref.dist) << "seed " << seed;
  }
}

}  // namespace
}  // namespace terrazo
