// tests/test_block_mst.cpp: the CPU block MST (kernels/mst/block_mst.h) against the in-memory
// Kruskal reference, on hundreds of random tiles: forest bits identical to the reference MST of the
// tile alone; hand-made tiles; weight overflow reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "kernels/mst/block_mst.h"
#include "kernels/mst/block_reduce.h"
#include "tests/support/mst_reference.h"
#include "tests/support/random_tiles.h"

namespace terrazo {
namespace {

using namespace terrazo::testing;

TEST(BlockMstCpu, MatchesReferenceOnRandomTiles) {
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const TileCase c = random_tile(seed);
    std::vector<std::uint8_t> bits(static_cast<std::size_t>(c.t) * c.t, 0xAA);
    bool overflow = false;
    block_mst_cpu(c.values.data(), c.t, c.params, c.connectivity, bits.data(), &overflow);
    ASSERT_FALSE(overflow) << "seed " << seed;
    const auto ref = testing::reference_mst(c.values, c.t, c.t, c.params, c.connectivity);
    for (std::size_t l = 0; l < bits.size(); ++l) {
      const std::uint8_t expected = ref.bits[l] == 255 ? 0 : ref.bits[l];
      ASSERT_EQ(bits[l], expected) << "seed " << seed << " t " << c.t << " cell " << l;
    }
  }
}

// The CPU block MST of the 2 x 2 tile `values` under the default weights (the max model).
struct TinyForest {
  std::array<std::uint8_t, 4> bits{};
  bool overflow = false;
};

TinyForest tiny_forest(const std::vector<double>& values, Connectivity connectivity) {
  TinyForest f;
  block_mst_cpu(values.data(), 2, WeightParams{}, connectivity, f.bits.data(), &f.overflow);
  return f;
}

TEST(BlockMstCpu, HandMadeTile) {
  // 2x2 tile, max model: values 1 2 / 3 4. Edges: E(0-1)=2, SE(0-3)=4, S(0-2)=3, SW(1-2)=3,
  // S(1-3)=4, E(2-3)=4. Kruskal: 0-1 (2), then weight 3: S(0-2) key id 0*4+2 before SW(1-2) 1*4+1?
  // No: (3, min 0, max 2) < (3, min 1, max 2), so S(0-2) joins 2, SW(1-2) closes a cycle; weight 4:
  // SE(0-3) id 0*4+3 = 3 is the smallest key and joins 3.
  const std::vector<double> values = {1, 2, 3, 4};
  const TinyForest eight = tiny_forest(values, Connectivity::Eight);
  EXPECT_EQ(eight.bits[0], (1u << kEast) | (1u << kSouth) | (1u << kSouthEast));
  EXPECT_EQ(eight.bits[1], 0u);
  EXPECT_EQ(eight.bits[2], 0u);
  EXPECT_EQ(eight.bits[3], 0u);
  EXPECT_FALSE(eight.overflow);
  // 4-connectivity: 0-1 (2), S(0-2) (3), then S(1-3) key (4, 1, 3) < E(2-3) (4, 2, 3).
  const TinyForest four = tiny_forest(values, Connectivity::Four);
  EXPECT_EQ(four.bits[0], (1u << kEast) | (1u << kSouth));
  EXPECT_EQ(four.bits[1], 1u << kSouth);
  EXPECT_FALSE(four.overflow);
}

TEST(BlockMstCpu, ReportsOverflow) {
  EXPECT_TRUE(tiny_forest({1e12, 2.0, 3.0, 4.0}, Connectivity::Eight).overflow);
}


}  // namespace
}  // namespace terrazo
