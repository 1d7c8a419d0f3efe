// kernels/mst/block_reduce_cpu.cpp: the CPU twin of the forest reduction (contract: kernels/mst/block_reduce.h).
//
// Algorithm (Gerritsen 2012, Observations 3-4):
//  1. Degrees: every set bit d (0..3) of cell l is one forest edge between l and its neighbour in
//     direction d.
//  2. Dead ends: peel leaves iteratively. A non-boundary vertex of degree 1 loses its edge; its
//     neighbour's degree drops and, when that neighbour is a non-boundary leaf now, it is peeled too.
//     What remains of a tree with no boundary vertex is one isolated vertex; every leaf left is a
//     boundary vertex.
//  3. Kept vertices: remaining degree >= 1 and (boundary or degree >= 3). From each kept vertex, in
//     increasing local id, follow each remaining edge (directions E, SE, S, SW, W, NW, N, NE) through
//     degree-2 non-boundary vertices to the next kept vertex, erasing the edges walked and keeping
//     the largest key seen. A forest has no cycle, so every walk ends at a kept vertex.
//  4. Sort the summary edges by key (keys are distinct: each names a different forest edge).
// Size: the reduced forest has all leaves on the boundary (B <= 4t - 4 boundary vertices), hence at
// most B - 2 vertices of degree >= 3 and at most 2B - 3 < 8t edges (kMaxSummaryEdgesPerSide).
// Cost: O(t^2). Scratch: per calling thread, kept between calls: 2 t^2 bytes plus a stack of up to
// t^2 x 4 bytes (6 t^2 bytes; 384 KiB for t = 256).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/mst/block_reduce.h"

namespace terrazo {
namespace {

struct ReduceScratch {
  std::vector<std::uint8_t> work;    // remaining forest edges, owner bits 0..3
  std::vector<std::uint8_t> degree;  // remaining degree (<= 8)
  std::vector<std::uint32_t> stack;  // leaves to peel
};

// One remaining edge at v: the edge's owner cell and owned direction (0..3), the other end.
struct IncidentEdge {
  std::uint32_t owner = 0;
  int dir = 0;
  std::uint32_t other = 0;
};

class TileForest {
 public:
  TileForest(std::uint8_t* work, std::uint32_t t) : work_(work), t_(t) {}

  // Finds the first remaining edge of v in direction order E, SE, S, SW, W, NW, N, NE starting at
  // `first_dir`; returns the direction (or 8 when none) and fills *edge.
  int next_edge(std::uint32_t v, int first_dir, IncidentEdge* edge) const {
    const std::uint32_t vx = v % t_, vy = v / t_;
    for (int dir = first_dir; dir < 8; ++dir) {
      const std::int64_t nx = static_cast<std::int64_t>(vx) + kDirDx[dir];
      const std::int64_t ny = static_cast<std::int64_t>(vy) + kDirDy[dir];
      if (nx < 0 || ny < 0 || nx >= t_ || ny >= t_) continue;
      const std::uint32_t n = static_cast<std::uint32_t>(ny) * t_ + static_cast<std::uint32_t>(nx);
      const std::uint32_t owner = dir < 4 ? v : n;
      const int owned = dir < 4 ? dir : opposite(dir);
      if (work_[owner] & (1u << owned)) {
        *edge = IncidentEdge{owner, owned, n};
        return dir;
      }
    }
    return 8;
  }
  void erase(const IncidentEdge& edge) { work_[edge.owner] &= static_cast<std::uint8_t>(~(1u << edge.dir)); }

 private:
  std::uint8_t* work_;
  std::uint32_t t_;
};

}  // namespace

void block_reduce_cpu(const std::uint8_t* forest_bits, const double* values, std::uint32_t t,
                      const WeightParams& params, Connectivity connectivity, std::vector<TileSummaryEdge>* summary) {
  (void)connectivity;  // the forest bits already respect it
  summary->clear();
  if (t == 0) return;
  const std::size_t cells = static_cast<std::size_t>(t) * t;
  thread_local ReduceScratch scratch;
  scratch.work.assign(forest_bits, forest_bits + cells);
  scratch.degree.assign(cells, 0);
  scratch.stack.clear();
  std::uint8_t* work = scratch.work.data();
  std::uint8_t* degree = scratch.degree.data();
  TileForest forest(work, t);

  // 1. Degrees (bits 4..7 are not edges).
  for (std::uint32_t l = 0; l < cells; ++l) {
    work[l] &= 0x0fu;
    for (int dir = 0; dir < 4; ++dir) {
      if (!(work[l] & (1u << dir))) continue;
      const std::uint32_t m = l + static_cast<std::uint32_t>(kDirDy[dir]) * t + static_cast<std::uint32_t>(kDirDx[dir]);
      ++degree[l];
      ++degree[m];
    }
  }
  auto boundary = [t](std::uint32_t l) {
    const std::uint32_t x = l % t, y = l / t;
    return x == 0 || y == 0 || x == t - 1 || y == t - 1;
  };

  // 2. Peel non-boundary leaves.
  for (std::uint32_t l = 0; l < cells; ++l) {
    if (degree[l] == 1 && !boundary(l)) scratch.stack.push_back(l);
  }
  while (!scratch.stack.empty()) {
    const std::uint32_t v = scratch.stack.back();
    scratch.stack.pop_back();
    if (degree[v] != 1) continue;  // its last edge went with its partner
    IncidentEdge edge;
    forest.next_edge(v, 0, &edge);
    forest.erase(edge);
    degree[v] = 0;
    if (--degree[edge.other] == 1 && !boundary(edge.other)) scratch.stack.push_back(edge.other);
  }

  // 3. Walk the chains between kept vertices.
  auto kept = [&](std::uint32_t l) { return degree[l] >= 3 || (degree[l] >= 1 && boundary(l)); };
  auto key_of = [&](const IncidentEdge& e) {
    const std::uint32_t a = e.owner;
    const std::uint32_t b = a + static_cast<std::uint32_t>(kDirDy[e.dir]) * t + static_cast<std::uint32_t>(kDirDx[e.dir]);
    bool ignored = false;
    const Weight w = edge_weight(params, values[a], values[b], is_diagonal(e.dir), &ignored);
    return tile_edge_key(w, tile_edge_id(a, e.dir));
  };
  for (std::uint32_t v = 0; v < cells; ++v) {
    if (!kept(v)) continue;
    IncidentEdge edge;
    for (int dir = forest.next_edge(v, 0, &edge); dir < 8; dir = forest.next_edge(v, dir + 1, &edge)) {
      std::uint64_t max_key = key_of(edge);
      forest.erase(edge);
      std::uint32_t current = edge.other;
      while (!kept(current)) {
        IncidentEdge next;
        forest.next_edge(current, 0, &next);
        max_key = std::max(max_key, key_of(next));
        forest.erase(next);
        current = next.other;
      }
      summary->push_back(TileSummaryEdge{std::min(v, current), std::max(v, current), max_key});
    }
  }

  // 4. Key order.
  std::sort(summary->begin(), summary->end(),
            [](const TileSummaryEdge& x, const TileSummaryEdge& y) { return x.key < y.key; });
}

}  // namespace terrazo
