// tests/test_index_kernels.cpp: the CPU twins of the boundary-graph index kernels (kernels/index/)
// against plain references (tests/support/index_reference.h): blocked Floyd-Warshall against the
// textbook loop, leaf matrices, the 2x2 merge and whole tiles by nested dissection against one
// Dijkstra per ring cell, min-plus products against their formula, the triangle's products against
// the full matrix's; thousands of random blocks,
// every weight model, 4 and 8 connectivity, nodata holes and walls that disconnect a block.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/index/blocked_floyd_warshall.h"
#include "kernels/index/boundary_merge.h"
#include "kernels/index/min_plus.h"
#include "kernels/index/min_plus_triangle.h"
#include "kernels/index/tile_boundary_matrix.h"
#include "tests/support/gpu_test_support.h"
#include "tests/support/index_reference.h"

namespace terrazo {
namespace {

// Pairs of valid ring cells (diagonal 0) with no path between them in a b x b boundary matrix: the
// tests check such pairs occur, so the walls and holes are known to disconnect rings.
int disconnected_pairs(const std::vector<PathLength>& m, std::uint32_t b) {
  int n = 0;
  for (std::uint32_t p = 0; p < b; ++p)
    for (std::uint32_t q = 0; q < b; ++q)
      if (m[p * b + p] == 0 && m[q * b + q] == 0 && m[p * b + q] == kUnreached) ++n;
  return n;
}

using gpu_testing::random_params;
using gpu_testing::random_spec;
using gpu_testing::random_values;
using gpu_testing::run_seed;

Connectivity random_connectivity(std::mt19937_64& rng) { return rng() % 2 ? Connectivity::Eight : Connectivity::Four; }

// The 2s x 2s block `values` merged from its four s x s quadrants by boundary_merge_cpu (workspace
// entries poisoned with `workspace_fill`), the quadrants' ring matrices from the reference.
std::vector<PathLength> merge_quadrants_cpu(const std::vector<double>& values, std::uint32_t s, const WeightParams& params,
                                            Connectivity connectivity, PathLength workspace_fill,
                                            std::vector<PathLength>* children_out = nullptr) {
  const std::uint32_t side = 2 * s;
  const std::uint32_t b = ring_size(s);
  bool overflow = false;
  std::vector<PathLength> children(4ull * b * b);
  for (std::uint32_t c = 0; c < 4; ++c) {
    const double* origin = values.data() + (c >> 1) * s * side + (c & 1u) * s;
    const auto m = testing::ring_matrix_reference(origin, side, s, params, connectivity, &overflow);
    std::copy(m.begin(), m.end(), children.begin() + c * b * b);
  }
  std::vector<PathLength> workspace(merge_workspace_entries(s), workspace_fill);
  const std::uint32_t pb = ring_size(side);
  std::vector<PathLength> parent(static_cast<std::size_t>(pb) * pb, 7);
  boundary_merge_cpu(values.data(), side, s, params, connectivity, children.data(), workspace.data(), parent.data(), &overflow);
  if (children_out) *children_out = std::move(children);
  return parent;
}

TEST(BoundaryRing, PositionsAndCellsAreInverse) {
  for (std::uint32_t s : {1u, 2u, 3u, 4u, 8u, 16u, 64u}) {
    std::set<std::int32_t> seen;
    for (std::uint32_t y = 0; y < s; ++y)
      for (std::uint32_t x = 0; x < s; ++x) {
        const std::int32_t p = ring_position(s, x, y);
        const bool edge = x == 0 || y == 0 || x == s - 1 || y == s - 1;
        ASSERT_EQ(p >= 0, edge) << s << " " << x << "," << y;
        if (p < 0) continue;
        ASSERT_LT(static_cast<std::uint32_t>(p), ring_size(s));
        std::uint32_t rx, ry;
        ring_cell_of(s, static_cast<std::uint32_t>(p), &rx, &ry);
        ASSERT_EQ(rx, x);
        ASSERT_EQ(ry, y);
        seen.insert(p);
      }
    EXPECT_EQ(seen.size(), ring_size(s));
  }
}

TEST(BlockedFloydWarshall, MatchesPlainFloydWarshallOnRandomGraphs) {
  std::mt19937_64 rng(run_seed());
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  for (int round = 0; round < 300; ++round) {
    const std::uint32_t n = round < 200 ? 1 + static_cast<std::uint32_t>(rng() % 16) : 16 * (1 + static_cast<std::uint32_t>(rng() % 5));
    std::vector<PathLength> d(static_cast<std::size_t>(n) * n, kUnreached);
    const std::uint64_t density = 1 + rng() % 4;
    for (auto& e : d)
      if (rng() % 8 < density) e = rng() % 1000;
    std::vector<PathLength> expected = d;
    testing::plain_floyd_warshall(expected, n);
    blocked_floyd_warshall_cpu(d.data(), n);
    ASSERT_EQ(d, expected) << "n " << n << " round " << round;
  }
}

TEST(LeafBoundaryMatrix, MatchesDijkstraOnThousandsOfRandomBlocks) {
  std::mt19937_64 rng(run_seed() ^ 1);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  std::vector<PathLength> workspace(16 * 16 * 16 * 16);
  int disconnected = 0;
  for (int round = 0; round < 2000; ++round) {
    const std::uint32_t s = round < 1500 ? 4 : round < 1950 ? 8 : 16;
    const std::uint32_t stride = s + static_cast<std::uint32_t>(rng() % 3);
    gpu_testing::TileSpec spec = random_spec(stride, rng);
    spec.negative = rng() % 4 == 0;
    const std::vector<double> values = random_values(spec, rng);
    const WeightParams params = random_params(rng, spec.negative);
    if (params.model == WeightModel::Friction && spec.negative) continue;
    const Connectivity connectivity = random_connectivity(rng);
    bool overflow = false, reference_overflow = false;
    const std::uint32_t b = ring_size(s);
    std::vector<PathLength> out(static_cast<std::size_t>(b) * b, 7);
    leaf_boundary_matrix_cpu(values.data(), stride, s, params, connectivity, workspace.data(), out.data(), &overflow);
    const auto expected = testing::ring_matrix_reference(values.data(), stride, s, params, connectivity, &reference_overflow);
    ASSERT_EQ(overflow, reference_overflow);
    ASSERT_EQ(out, expected) << "s " << s << " round " << round << " model " << to_string(params.model);
    disconnected += disconnected_pairs(expected, b);
  }
  EXPECT_GT(disconnected, 0) << "no block had valid ring cells without a path between them";
}

TEST(BoundaryMerge, MatchesDijkstraOnRandomParents) {
  std::mt19937_64 rng(run_seed() ^ 2);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  for (int round = 0; round < 1200; ++round) {
    const std::uint32_t s = round < 1000 ? 2 + static_cast<std::uint32_t>(rng() % 3) : 8;  // 2, 3, 4 (any s >= 2), then 8
    const std::uint32_t side = 2 * s;
    gpu_testing::TileSpec spec = random_spec(side, rng);
    const std::vector<double> values = random_values(spec, rng);
    const WeightParams params = random_params(rng, false);
    const Connectivity connectivity = random_connectivity(rng);
    const std::vector<PathLength> parent = merge_quadrants_cpu(values, s, params, connectivity, 0);
    bool overflow = false;
    const auto expected = testing::ring_matrix_reference(values.data(), side, side, params, connectivity, &overflow);
    ASSERT_EQ(parent, expected) << "s " << s << " round " << round << " model " << to_string(params.model);
  }
}

// The blocked merge against the textbook one-pivot merge at the pivot blocks' edges: s = 2 .. 32 (u =
// 16s - 16 union vertices, |P| = 8s - 4 kept, neither a multiple of the 32-pivot block), nodata walls
// and holes that disconnect ring cells, every weight model, 4 and 8 connectivity.
TEST(BoundaryMerge, BlockedMatchesOnePivotMergeAtBlockEdges) {
  std::mt19937_64 rng(run_seed() ^ 6);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  int disconnected = 0;
  for (const auto& [s, rounds] : std::vector<std::pair<std::uint32_t, int>>{{2, 40}, {4, 30}, {8, 12}, {16, 4}, {32, 2}}) {
    for (int round = 0; round < rounds; ++round) {
      const std::uint32_t side = 2 * s;
      gpu_testing::TileSpec spec = random_spec(side, rng);
      spec.nodata_wall = round % 2 == 0;
      if (round % 3 == 1) spec.nodata_fraction = 0.2;
      const std::vector<double> values = random_values(spec, rng);
      const WeightParams params = random_params(rng, false);
      const Connectivity connectivity = random_connectivity(rng);
      std::vector<PathLength> children;
      const std::vector<PathLength> parent = merge_quadrants_cpu(values, s, params, connectivity, 5, &children);
      bool overflow = false;
      const auto expected = testing::one_pivot_merge_reference(values.data(), side, s, params, connectivity, children.data(), &overflow);
      ASSERT_EQ(parent, expected) << "s " << s << " round " << round << " model " << to_string(params.model);
      disconnected += disconnected_pairs(expected, ring_size(side));
    }
  }
  EXPECT_GT(disconnected, 0) << "no parent had valid ring cells without a path between them";
}

// The CPU building blocks on random matrices (any stride, pivot blocks of 1 .. 32 anywhere, random
// sparsity and diagonals): a block's elimination equals eliminating its pivots one at a time, last
// first; a Floyd-Warshall round equals the textbook loop over its pivots.
TEST(PivotBlocks, MatchOnePivotAtATimeOnRandomMatrices) {
  std::mt19937_64 rng(run_seed() ^ 7);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  for (int round = 0; round < 400; ++round) {
    const std::uint32_t n = 2 + static_cast<std::uint32_t>(rng() % 90);
    const std::uint32_t stride = n + static_cast<std::uint32_t>(rng() % 5);
    const std::uint32_t width = 1 + static_cast<std::uint32_t>(rng() % std::min<std::uint32_t>(n, kPivotBlockCpu));
    const std::uint32_t k0 = static_cast<std::uint32_t>(rng() % (n - width + 1)), k1 = k0 + width;
    std::vector<PathLength> d(static_cast<std::size_t>(n) * stride, kUnreached);
    const std::uint64_t density = 1 + rng() % 6;
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j)
        if (rng() % 8 < density) d[static_cast<std::size_t>(i) * stride + j] = i == j && rng() % 2 ? 0 : rng() % (1ull << 40);
    auto relax = [&](std::vector<PathLength>& m, std::uint32_t k, std::uint32_t i, std::uint32_t j) {
      PathLength& e = m[static_cast<std::size_t>(i) * stride + j];
      e = std::min(e, min_plus_add(m[static_cast<std::size_t>(i) * stride + k], m[static_cast<std::size_t>(k) * stride + j]));
    };
    if (round % 2 == 0) {
      std::vector<PathLength> expected = d;
      for (std::uint32_t k = k1; k-- > k0;)
        for (std::uint32_t i = 0; i < k; ++i)
          for (std::uint32_t j = 0; j < k; ++j) relax(expected, k, i, j);
      eliminate_pivot_block_cpu(d.data(), stride, k0, k1);
      for (std::uint32_t i = 0; i < k0; ++i)
        for (std::uint32_t j = 0; j < k0; ++j)
          ASSERT_EQ(d[static_cast<std::size_t>(i) * stride + j], expected[static_cast<std::size_t>(i) * stride + j])
              << "eliminate n " << n << " pivots " << k0 << ".." << k1 << " at " << i << "," << j;
    } else {
      std::vector<PathLength> expected = d;
      for (std::uint32_t k = k0; k < k1; ++k)
        for (std::uint32_t i = 0; i < n; ++i)
          for (std::uint32_t j = 0; j < n; ++j) relax(expected, k, i, j);
      floyd_pivot_block_cpu(d.data(), stride, n, k0, k1);
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j)
          ASSERT_EQ(d[static_cast<std::size_t>(i) * stride + j], expected[static_cast<std::size_t>(i) * stride + j])
              << "floyd n " << n << " pivots " << k0 << ".." << k1 << " at " << i << "," << j;
    }
  }
}

TEST(TileBoundaryMatrix, NestedDissectionMatchesDijkstraForEveryLeafSide) {
  std::mt19937_64 rng(run_seed() ^ 3);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  std::vector<PathLength> workspace;
  for (int round = 0; round < 60; ++round) {
    const std::uint32_t t = round < 50 ? 16 : 32;
    gpu_testing::TileSpec spec = random_spec(t, rng);
    const std::vector<double> values = random_values(spec, rng);
    const WeightParams params = random_params(rng, false);
    const Connectivity connectivity = random_connectivity(rng);
    bool overflow = false;
    const auto expected = testing::ring_matrix_reference(values.data(), t, t, params, connectivity, &overflow);
    for (std::uint32_t leaf : {4u, 8u, 16u}) {
      std::vector<PathLength> out(expected.size(), 7);
      tile_boundary_matrix_cpu(values.data(), t, leaf, params, connectivity, workspace, out.data(), &overflow);
      ASSERT_EQ(out, expected) << "t " << t << " leaf " << leaf << " round " << round;
    }
  }
}

TEST(TileBoundaryMatrix, RejectsSidesOutsideTheContract) {
  std::vector<PathLength> workspace;
  EXPECT_THROW(tile_boundary_workspace_entries(24, 8), Error);
  EXPECT_THROW(tile_boundary_workspace_entries(16, 32), Error);
  EXPECT_THROW(tile_boundary_workspace_entries(64, 2), Error);
}

TEST(MinPlusProduct, MatchesItsFormula) {
  std::mt19937_64 rng(run_seed() ^ 4);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  for (int round = 0; round < 500; ++round) {
    const std::uint32_t b = 1 + static_cast<std::uint32_t>(rng() % 70), k = 1 + static_cast<std::uint32_t>(rng() % 5);
    std::vector<PathLength> m(static_cast<std::size_t>(b) * b), x(static_cast<std::size_t>(k) * b), y(x.size());
    for (auto& e : m) e = rng() % 3 == 0 ? kUnreached : rng() % 100000;
    for (auto& e : x) e = rng() % 3 == 0 ? kUnreached : rng() % 100000;
    for (auto& e : y) e = rng() % 2 == 0 ? kUnreached : rng() % 200000;
    std::vector<PathLength> expected = y;
    for (std::uint32_t v = 0; v < k; ++v)
      for (std::uint32_t j = 0; j < b; ++j)
        for (std::uint32_t i = 0; i < b; ++i)
          expected[v * b + j] = std::min(expected[v * b + j], min_plus_add(x[v * b + i], m[i * b + j]));
    min_plus_product_cpu(m.data(), b, x.data(), k, y.data());
    ASSERT_EQ(y, expected) << "b " << b << " k " << k;
  }
}

// The product with the stored triangle (both entry widths, the AVX-512 kernel and its portable twin)
// equals min_plus_product_cpu with the whole matrix: random symmetric matrices with no-path entries
// and labels near the 2^57 bound, pending sets empty, single, all, clustered and wrapping the ring.
TEST(MinPlusTriangle, EqualsTheFullProductForEveryWidthAndPendingSet) {
  std::mt19937_64 rng(2026);
  int cases = 0, improved = 0;
  for (std::uint32_t b : {1u, 4u, 12u, 28u, 60u, 124u, 252u}) {
    for (int trial = 0; trial < 60; ++trial) {
      const bool wide = trial % 3 == 2;  // entries beyond 32 bits
      const PathLength top = wide ? (PathLength{1} << 56) : 0xFFFFFFF0u;
      std::vector<PathLength> full(static_cast<std::size_t>(b) * b);
      for (std::uint32_t i = 0; i < b; ++i)
        for (std::uint32_t j = i; j < b; ++j) {
          const PathLength v = i == j ? (rng() % 10 == 0 ? kUnreached : 0) : rng() % 7 == 0 ? kUnreached : rng() % top;
          full[static_cast<std::size_t>(i) * b + j] = full[static_cast<std::size_t>(j) * b + i] = v;
        }
      std::vector<std::uint32_t> tri32;
      std::vector<PathLength> tri64;
      for (std::uint32_t i = 0; i < b; ++i)
        for (std::uint32_t j = i; j < b; ++j) {
          const PathLength v = full[static_cast<std::size_t>(i) * b + j];
          tri64.push_back(v);
          tri32.push_back(v == kUnreached ? 0xFFFFFFFFu : static_cast<std::uint32_t>(v));
        }
      ASSERT_EQ(tri64.size(), triangle_entries(b));
      std::vector<PathLength> x(b, kUnreached);
      const int shape = trial % 6;
      for (std::uint32_t p = 0; p < b; ++p) {
        const bool pending = shape == 0 ? false
                             : shape == 1 ? p == rng() % b
                             : shape == 2 ? true
                             : shape == 3 ? (p >= b / 3 && p < b / 2)
                             : shape == 4 ? (p < 3 || p + 3 >= b)  // a corner: both ends of the ring
                                          : rng() % 2 == 0;
        if (pending) x[p] = rng() % 3 == 0 ? (PathLength{1} << 57) - 1 - rng() % 1000 : rng() % 1000000;
      }
      std::uint32_t lo = b, hi = 0;
      for (std::uint32_t p = 0; p < b; ++p)
        if (x[p] != kUnreached) {
          lo = std::min(lo, p);
          hi = p;
        }
      std::vector<PathLength> y(b);
      for (PathLength& v : y) v = rng() % 4 == 0 ? kUnreached : rng() % 2000000;
      std::vector<PathLength> want = y;
      min_plus_product_cpu(full.data(), b, x.data(), 1, want.data());
      std::vector<PathLength> got64 = y;
      min_plus_triangle_relax64(tri64.data(), b, x.data(), lo, hi, got64.data());
      EXPECT_EQ(got64, want) << "64-bit, b " << b << " trial " << trial;
      if (!wide) {
        std::vector<PathLength> got32 = y, portable = y;
        min_plus_triangle_relax32(tri32.data(), b, x.data(), lo, hi, got32.data());
        min_plus_triangle_relax32_portable(tri32.data(), b, x.data(), lo, hi, portable.data());
        EXPECT_EQ(got32, want) << "32-bit, b " << b << " trial " << trial;
        EXPECT_EQ(portable, want) << "32-bit portable, b " << b << " trial " << trial;
      }
      improved += want != y;
      ++cases;
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(improved, cases / 3) << "the products rarely improved anything: a test that cannot fail";
}

TEST(MinPlusRelaxRows, MatchesItsFormula) {
  std::mt19937_64 rng(run_seed() ^ 8);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(run_seed()));
  for (int round = 0; round < 500; ++round) {
    const std::uint32_t n = 1 + static_cast<std::uint32_t>(rng() % 70), count = static_cast<std::uint32_t>(rng() % 33);
    std::vector<PathLength> m(static_cast<std::size_t>(count + 1) * n), x(count + 1), y(n);
    for (auto& e : m) e = rng() % 3 == 0 ? kUnreached : rng() % (1ull << 50);
    for (auto& e : x) e = rng() % (1ull << 50);
    for (auto& e : y) e = rng() % 2 == 0 ? kUnreached : rng() % (1ull << 51);
    std::vector<const PathLength*> rows(count + 1);
    for (std::uint32_t r = 0; r < count; ++r) rows[r] = m.data() + static_cast<std::size_t>(r) * n;
    const bool self = count > 0 && rng() % 2;  // one of the rows is y itself, read as it was
    if (self) {
      rows[count - 1] = y.data();
      x[count - 1] = rng() % 3;
    }
    std::vector<PathLength> expected = y;
    for (std::uint32_t j = 0; j < n; ++j)
      for (std::uint32_t r = 0; r < count; ++r) expected[j] = std::min(expected[j], min_plus_add(x[r], rows[r][j]));
    min_plus_relax_rows(y.data(), rows.data(), x.data(), count, n);
    ASSERT_EQ(y, expected) << "n " << n << " count " << count << " self " << self;
  }
}

}  // namespace
}  // namespace terrazo
