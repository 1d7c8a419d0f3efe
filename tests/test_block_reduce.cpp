// tests/test_block_reduce.cpp: the CPU block reduction (kernels/mst/block_reduce.h) on hundreds of
// random tiles:
//  - every summary vertex is a boundary vertex or has summary degree >= 3; every summary edge is a
//    forest path whose maximum key it carries; the summary paths cover exactly the forest edges that
//    are not dead ends, each once;
//  - the expansion rule: four tiles of a 2x2 raster, merged with the crossing edges between them by
//    plain Kruskal, give (forest bits + kept crossing edges - maximum edges of dropped summary edges)
//    = the reference MST of the whole raster, edge for edge.
#include <gtest/gtest.h>

#include <algorithm>
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

// Forest adjacency of one tile from its bits.
std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> forest_adjacency(const TileCase& c,
                                                                                   const std::vector<std::uint8_t>& bits) {
  std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> adj(bits.size());
  for (std::uint32_t l = 0; l < bits.size(); ++l) {
    for (int dir = 0; dir < 4; ++dir) {
      if (!(bits[l] & (1u << dir))) continue;
      const std::uint32_t m = neighbour(l, dir, c.t);
      bool overflow = false;
      const Weight w = edge_weight(c.params, c.values[l], c.values[m], is_diagonal(dir), &overflow);
      const std::uint64_t key = tile_edge_key(w, tile_edge_id(l, dir));
      adj[l].push_back({m, key});
      adj[m].push_back({l, key});
    }
  }
  return adj;
}

TEST(BlockReduceCpu, SummaryPropertiesOnRandomTiles) {
  for (std::uint64_t seed = 1000; seed < 1400; ++seed) {
    const TileCase c = random_tile(seed);
    const std::uint32_t t = c.t;
    std::vector<std::uint8_t> bits(static_cast<std::size_t>(t) * t);
    bool overflow = false;
    block_mst_cpu(c.values.data(), t, c.params, c.connectivity, bits.data(), &overflow);
    std::vector<TileSummaryEdge> summary;
    block_reduce_cpu(bits.data(), c.values.data(), t, c.params, c.connectivity, &summary);
    ASSERT_LE(summary.size(), static_cast<std::size_t>(kMaxSummaryEdgesPerSide) * t);
    const auto adj = forest_adjacency(c, bits);

    // Dead-end classification: an edge is a dead end when one of its sides holds no boundary vertex.
    std::vector<int> tree(bits.size(), -1);
    std::vector<std::uint32_t> order, parent(bits.size());
    std::vector<std::uint64_t> parent_key(bits.size());
    std::vector<int> boundary_in_tree;
    for (std::uint32_t root = 0; root < bits.size(); ++root) {
      if (tree[root] >= 0) continue;
      const int id = static_cast<int>(boundary_in_tree.size());
      boundary_in_tree.push_back(0);
      std::vector<std::uint32_t> stack = {root};
      tree[root] = id;
      parent[root] = root;
      while (!stack.empty()) {
        const std::uint32_t v = stack.back();
        stack.pop_back();
        order.push_back(v);
        if (c.values[v] == c.values[v] && on_boundary(v, t)) ++boundary_in_tree[id];
        for (auto [u, key] : adj[v]) {
          if (tree[u] >= 0) continue;
          tree[u] = id;
          parent[u] = v;
          parent_key[u] = key;
          stack.push_back(u);
        }
      }
    }
    std::vector<int> below(bits.size(), 0);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const std::uint32_t v = *it;
      if (c.values[v] == c.values[v] && on_boundary(v, t)) ++below[v];
      if (parent[v] != v) below[parent[v]] += below[v];
    }
    std::set<std::uint64_t> live_edges;  // keys of forest edges that are not dead ends
    for (std::uint32_t v = 0; v < bits.size(); ++v) {
      if (parent[v] == v) continue;
      if (below[v] > 0 && boundary_in_tree[tree[v]] - below[v] > 0) live_edges.insert(parent_key[v]);
    }

    // Each summary edge: a forest path from a to b through non-boundary vertices, its max key.
    std::map<std::uint32_t, int> summary_degree;
    std::multiset<std::uint64_t> covered;
    for (std::size_t i = 0; i < summary.size(); ++i) {
      const TileSummaryEdge& e = summary[i];
      ASSERT_LT(e.a, e.b) << "seed " << seed;
      if (i > 0) {
        ASSERT_LT(summary[i - 1].key, e.key) << "seed " << seed;
      }
      ++summary_degree[e.a];
      ++summary_degree[e.b];
      // Walk the tree path a -> b by climbing parents.
      ASSERT_EQ(tree[e.a], tree[e.b]);
      std::vector<std::uint64_t> path_a, path_b;
      std::vector<std::uint32_t> up_a = {e.a}, up_b = {e.b};
      std::set<std::uint32_t> ancestors_a;
      for (std::uint32_t v = e.a;; v = parent[v]) {
        ancestors_a.insert(v);
        if (parent[v] == v) break;
      }
      std::uint32_t meet = e.b;
      while (!ancestors_a.count(meet)) {
        path_b.push_back(parent_key[meet]);
        meet = parent[meet];
        up_b.push_back(meet);
      }
      for (std::uint32_t v = e.a; v != meet; v = parent[v]) {
        path_a.push_back(parent_key[v]);
        up_a.push_back(parent[v]);
      }
      std::uint64_t max_key = 0;
      for (auto k : path_a) max_key = std::max(max_key, k), covered.insert(k);
      for (auto k : path_b) max_key = std::max(max_key, k), covered.insert(k);
      ASSERT_EQ(max_key, e.key) << "seed " << seed;
      // Interior vertices: not boundary.
      std::set<std::uint32_t> interior(up_a.begin(), up_a.end());
      interior.insert(up_b.begin(), up_b.end());
      for (auto v : interior) {
        if (v == e.a || v == e.b) continue;
        ASSERT_FALSE(on_boundary(v, t)) << "seed " << seed << ": path through boundary vertex " << v;
      }
    }
    for (auto [v, degree] : summary_degree) {
      ASSERT_TRUE(on_boundary(v, t) || degree >= 3) << "seed " << seed << " vertex " << v << " degree " << degree;
    }
    ASSERT_EQ(covered.size(), live_edges.size()) << "seed " << seed;
    ASSERT_TRUE(std::equal(covered.begin(), covered.end(), live_edges.begin())) << "seed " << seed;
  }
}

TEST(BlockReduceCpu, HandMadePath) {
  // 4x4 tile: the 12 outer cells are boundary, 5, 6, 9, 10 are interior. Forest (max model):
  //   4 -E- 5 (w 5), 5 -E- 6 (w 7), 6 -E- 7 (w 7), 5 -S- 9 (w 5), 9 -S- 13 (w 2), 10 -E- 11 (w 1).
  // 10 is an interior leaf: 10-11 is a dead end and vanishes. 5 has degree 3 and is kept; 6 and 9
  // have degree 2 and are contracted. Summary, by key (weight, then edge id l*4 + rank):
  //   (4, 5)  key (5, id(4, E) = 16);  (5, 13) key (5, id(5, S) = 22);  (5, 7) key (7, id(6, E) = 24).
  const std::uint32_t t = 4;
  std::vector<double> values(16, 1.0);
  values[5] = 5.0;
  values[6] = 7.0;
  values[9] = 2.0;
  std::vector<std::uint8_t> bits(16, 0);
  bits[4] |= 1u << kEast;
  bits[5] |= 1u << kEast;
  bits[6] |= 1u << kEast;
  bits[5] |= 1u << kSouth;
  bits[9] |= 1u << kSouth;
  bits[10] |= 1u << kEast;
  WeightParams p;
  std::vector<TileSummaryEdge> summary;
  block_reduce_cpu(bits.data(), values.data(), t, p, Connectivity::Eight, &summary);
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[0].a, 4u);
  EXPECT_EQ(summary[0].b, 5u);
  EXPECT_EQ(summary[0].key, tile_edge_key(5, tile_edge_id(4, kEast)));
  EXPECT_EQ(summary[1].a, 5u);
  EXPECT_EQ(summary[1].b, 13u);
  EXPECT_EQ(summary[1].key, tile_edge_key(5, tile_edge_id(5, kSouth)));
  EXPECT_EQ(summary[2].a, 5u);
  EXPECT_EQ(summary[2].b, 7u);
  EXPECT_EQ(summary[2].key, tile_edge_key(7, tile_edge_id(6, kEast)));
}

// The expansion rule on a raster of 2x2 tiles (the right and bottom tiles cut by the raster edge).
TEST(BlockReduceCpu, ExpansionRuleReconstructsTheMst) {
  for (std::uint64_t seed = 5000; seed < 5300; ++seed) {
    std::mt19937_64 rng(seed);
    static constexpr std::uint32_t kSizes[] = {2, 4, 8, 16};
    const std::uint32_t t = kSizes[rng() % 4];
    const std::uint64_t width = t + 1 + rng() % t, height = t + 1 + rng() % t;
    const double holes = (rng() % 3 == 0) ? 0.0 : (rng() % 2 ? 0.1 : 0.4);
    std::vector<double> values = random_raster(rng, width, height, static_cast<int>(rng() % 4), holes);
    const int model = static_cast<int>(rng() % 3);
    if (model == 2) make_costs(values);
    const WeightParams params = params_for(model, values);
    const Connectivity connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;

    // Kruskal candidates: summary edges (ends a, b; key = their representative edge) and crossing edges.
    struct Candidate {
      Weight w;
      std::uint64_t rep_owner;  // the representative (or crossing) edge: owner cell, direction, other end
      int rep_dir;
      std::uint64_t rep_other;
      std::uint64_t a, b;  // the ends Kruskal joins
      bool summary;
    };
    std::vector<Candidate> candidates;
    std::vector<std::uint8_t> result(width * height, 0);
    for (std::uint32_t ty = 0; ty < 2; ++ty) {
      for (std::uint32_t tx = 0; tx < 2; ++tx) {
        std::vector<double> tile(static_cast<std::size_t>(t) * t, kNaN);
        for (std::uint32_t ly = 0; ly < t; ++ly)
          for (std::uint32_t lx = 0; lx < t; ++lx) {
            const std::uint64_t x = tx * t + lx, y = ty * t + ly;
            if (x < width && y < height) tile[ly * t + lx] = values[y * width + x];
          }
        std::vector<std::uint8_t> bits(tile.size());
        bool overflow = false;
        block_mst_cpu(tile.data(), t, params, connectivity, bits.data(), &overflow);
        ASSERT_FALSE(overflow);
        std::vector<TileSummaryEdge> summary;
        block_reduce_cpu(bits.data(), tile.data(), t, params, connectivity, &summary);
        auto global = [&](std::uint32_t l) { return (ty * t + l / t) * width + tx * t + l % t; };
        for (std::uint32_t l = 0; l < tile.size(); ++l)
          if (bits[l]) result[global(l)] |= bits[l];
        for (const auto& e : summary) {
          const std::uint32_t id = static_cast<std::uint32_t>(e.key);
          const std::uint64_t owner = global(tile_edge_owner(id));
          const int dir = tile_edge_direction(id);
          const std::uint64_t other = (owner / width + kDirDy[dir]) * width + owner % width + kDirDx[dir];
          candidates.push_back(Candidate{static_cast<Weight>(e.key >> 32), owner, dir, other, global(e.a),
                                         global(e.b), true});
        }
      }
    }
    // Crossing edges between different tiles.
    for (std::uint64_t y = 0; y < height; ++y)
      for (std::uint64_t x = 0; x < width; ++x)
        for (int dir = 0; dir < 4; ++dir) {
          if (!testing::reference_edge_exists(values, width, height, x, y, dir, connectivity)) continue;
          const std::uint64_t nx = x + kDirDx[dir], ny = y + kDirDy[dir];
          if (x / t == nx / t && y / t == ny / t) continue;
          bool overflow = false;
          const std::uint64_t a = y * width + x, b = ny * width + nx;
          const Weight w = edge_weight(params, values[a], values[b], is_diagonal(dir), &overflow);
          candidates.push_back(Candidate{w, a, dir, b, a, b, false});
        }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& p, const Candidate& q) {
      return std::tie(p.w, p.rep_owner, p.rep_other) < std::tie(q.w, q.rep_owner, q.rep_other);
    });
    std::vector<std::uint64_t> parent(width * height);
    std::iota(parent.begin(), parent.end(), std::uint64_t{0});
    auto find = [&](std::uint64_t v) {
      while (parent[v] != v) v = parent[v] = parent[parent[v]];
      return v;
    };
    std::vector<std::pair<std::uint64_t, int>> out;
    for (const Candidate& cand : candidates) {
      const std::uint64_t ra = find(cand.a), rb = find(cand.b);
      if (ra != rb) {
        parent[ra] = rb;
        if (!cand.summary) result[cand.rep_owner] |= static_cast<std::uint8_t>(1u << cand.rep_dir);
      } else if (cand.summary) {
        out.push_back({cand.rep_owner, cand.rep_dir});
      }
    }
    for (auto [owner, dir] : out) result[owner] &= static_cast<std::uint8_t>(~(1u << dir));
    const auto ref = testing::reference_mst(values, width, height, params, connectivity);
    for (std::uint64_t i = 0; i < result.size(); ++i) {
      const std::uint8_t expected = ref.bits[i] == 255 ? 0 : ref.bits[i];
      ASSERT_EQ(result[i], expected) << "seed " << seed << " t " << t << " " << width << "x" << height << " cell " << i;
    }
  }
}


}  // namespace
}  // namespace terrazo
