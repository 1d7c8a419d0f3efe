// engine/flow/spill_graph.cpp: SpillGraph (engine/flow/spill_graph.h).
#include "engine/flow/spill_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kernels/common/error.h"
#include "kernels/common/union_find.h"

namespace terrazo {
namespace {

constexpr std::uint32_t kTop = 0, kBottom = 1, kLeft = 2, kRight = 3;
// The graph has at most 4t + 1 nodes a tile, about 4 x cells / t over the raster: it shrinks with a
// larger tile, unlike the tiles' own work.
constexpr const char* kGraphRemedy = "raise --memory or --tile (the spill graph has about 4 nodes per cell of a tile's side)";
constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNoNode = 0xffffffffu;

}  // namespace

TilePerimeter TilePerimeter::of(const TileFloodInput& in, const TileFlood& flood) {
  const std::uint32_t t = in.t;
  TilePerimeter p;
  p.labels = flood.labels;
  p.edges = flood.edges;
  p.side_values.assign(4ull * t, std::nan(""));
  p.side_labels.assign(4ull * t, kNoLabel);
  auto take = [&](std::uint32_t side, std::uint32_t i, std::uint32_t x, std::uint32_t y) {
    const std::size_t cell = static_cast<std::size_t>(y) * t + x;
    p.side_values[side * t + i] = in.cells[cell];
    p.side_labels[side * t + i] = flood.label[cell];
  };
  for (std::uint32_t x = 0; x < in.width; ++x) take(kTop, x, x, 0), take(kBottom, x, x, in.height - 1);
  for (std::uint32_t y = 0; y < in.height; ++y) take(kLeft, y, 0, y), take(kRight, y, in.width - 1, y);
  return p;
}

std::uint64_t TilePerimeter::bytes() const {
  return side_values.size() * 8 + side_labels.size() * 4 + edges.size() * sizeof(SpillEdge) + 64;
}

SpillGraph::SpillGraph(const TileGrid& grid, Connectivity connectivity, bool nodata_outlets)
    : grid_(grid), connectivity_(connectivity), nodata_outlets_(nodata_outlets), tiles_(grid.tile_count()) {}

void SpillGraph::add_tile(std::uint32_t tx, std::uint32_t ty, TilePerimeter perimeter, MemoryBudget& budget) {
  reservations_.push_back(budget.reserve(perimeter.bytes(), "fill spill graph: tile perimeters", kGraphRemedy));
  tiles_[static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx] = std::move(perimeter);
}

std::uint64_t SpillGraph::node(std::uint64_t tile, std::uint32_t label) const {
  return label == kOceanLabel ? 0 : first_node_[tile] + (label - 2);
}

std::uint64_t SpillGraph::solve_bytes(std::uint64_t nodes, std::uint64_t edges) {
  // The edge list (16 bytes an edge, reserved once at its most), a node's parent, list link and list
  // tail (12 bytes) and its spill level (8).
  return edges * sizeof(Edge) + nodes * 20 + 4096;
}

// The edge between side cell i_a of tile a and side cell i_b of tile b (neighbours across their
// tiles' boundary): at the higher elevation when both are valid; an outlet edge of the valid one
// when the other is nodata and nodata cells are outlets (an absent tile is all nodata).
void SpillGraph::add_pair(std::vector<Edge>& edges, std::uint64_t tile_a, std::uint32_t side_a, std::uint32_t i_a,
                          std::uint64_t tile_b, std::uint32_t side_b, std::uint32_t i_b) const {
  const std::uint32_t t = grid_.tile;
  const TilePerimeter& a = tiles_[tile_a];
  const TilePerimeter& b = tiles_[tile_b];
  const double va = a.side_values.empty() ? std::nan("") : a.side_values[side_a * t + i_a];
  const double vb = b.side_values.empty() ? std::nan("") : b.side_values[side_b * t + i_b];
  const bool valid_a = !std::isnan(va), valid_b = !std::isnan(vb);
  if (valid_a && valid_b) {
    edges.push_back(Edge{static_cast<std::uint32_t>(node(tile_a, a.side_labels[side_a * t + i_a])),
                         static_cast<std::uint32_t>(node(tile_b, b.side_labels[side_b * t + i_b])), std::max(va, vb)});
  } else if (nodata_outlets_ && valid_a != valid_b) {
    edges.push_back(valid_a ? Edge{static_cast<std::uint32_t>(node(tile_a, a.side_labels[side_a * t + i_a])), 0, va}
                            : Edge{static_cast<std::uint32_t>(node(tile_b, b.side_labels[side_b * t + i_b])), 0, vb});
  }
}

// Every pair of neighbouring cells in two different tiles: across a vertical side (rows i of the
// left tile's right side and j of the right tile's left side, |i - j| <= 1 with 8 neighbours),
// across a horizontal side, and (8 neighbours) across a corner.
void SpillGraph::add_cross_edges(std::vector<Edge>& edges) const {
  const std::uint32_t t = grid_.tile;
  const int reach = connectivity_ == Connectivity::Four ? 0 : 1;
  for (std::uint32_t ty = 0; ty < grid_.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < grid_.tiles_x(); ++tx) {
      const std::uint64_t here = static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx;
      const std::uint32_t rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.height - std::uint64_t{ty} * t));
      const std::uint32_t cols = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.width - std::uint64_t{tx} * t));
      if (tx + 1 < grid_.tiles_x())
        for (std::uint32_t i = 0; i < rows; ++i)
          for (int d = -reach; d <= reach; ++d) {
            const int j = static_cast<int>(i) + d;
            if (j >= 0 && j < static_cast<int>(rows)) add_pair(edges, here, kRight, i, here + 1, kLeft, static_cast<std::uint32_t>(j));
          }
      if (ty + 1 < grid_.tiles_y())
        for (std::uint32_t i = 0; i < cols; ++i)
          for (int d = -reach; d <= reach; ++d) {
            const int j = static_cast<int>(i) + d;
            if (j >= 0 && j < static_cast<int>(cols))
              add_pair(edges, here, kBottom, i, here + grid_.tiles_x(), kTop, static_cast<std::uint32_t>(j));
          }
      if (reach && tx + 1 < grid_.tiles_x() && ty + 1 < grid_.tiles_y()) {
        add_pair(edges, here, kBottom, t - 1, here + grid_.tiles_x() + 1, kTop, 0);
        add_pair(edges, here + 1, kBottom, 0, here + grid_.tiles_x(), kTop, t - 1);
      }
    }
}

void SpillGraph::solve(MemoryBudget& budget) {
  first_node_.assign(tiles_.size(), 0);
  nodes_ = 1;
  std::uint64_t tile_edges = 0;
  for (std::size_t i = 0; i < tiles_.size(); ++i) {
    first_node_[i] = nodes_;
    if (tiles_[i].labels > 2) nodes_ += tiles_[i].labels - 2;
    tile_edges += tiles_[i].edges.size();
  }
  if (nodes_ >= kNoNode)
    throw Error("fill: the spill graph has " + std::to_string(nodes_) + " nodes, more than 4 G; give a larger --tile");
  const std::uint64_t most_edges = tile_edges + cross_edges_most(grid_);
  MemoryBudget::Reservation held = budget.reserve(solve_bytes(nodes_, most_edges), "fill spill graph: solve", kGraphRemedy);
  std::vector<Edge> edges;
  edges.reserve(most_edges);
  for (std::size_t i = 0; i < tiles_.size(); ++i)
    for (const SpillEdge& e : tiles_[i].edges)
      edges.push_back(Edge{static_cast<std::uint32_t>(node(i, e.a)), static_cast<std::uint32_t>(node(i, e.b)), e.level});
  add_cross_edges(edges);
  edge_count_ = edges.size();
  join_in_level_order(edges);
}

// A node's spill level is the least, over paths to the ocean, of the highest edge on the path: the
// level of the edge at which Kruskal's algorithm [Kruskal1956], taking the edges by rising level,
// first joins the node's component to the ocean's ([Barnes2016]'s graph as a minimum spanning forest).
// Each component keeps the list of its nodes (linked through `next`, its last in `tail` at its root),
// so that the nodes of a component that joins the ocean take that edge's level once each.
void SpillGraph::join_in_level_order(std::vector<Edge>& edges) {
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.level < y.level; });
  const std::uint32_t n = static_cast<std::uint32_t>(nodes_);
  std::vector<std::uint32_t> parent(n), next(n, kNoNode), tail(n);
  std::iota(parent.begin(), parent.end(), 0u);
  std::iota(tail.begin(), tail.end(), 0u);
  spill_.assign(nodes_, kNever);
  spill_[0] = -kNever;
  for (const Edge& e : edges) {
    std::uint32_t a = union_find_root(parent.data(), e.a), b = union_find_root(parent.data(), e.b);
    if (a == b) continue;
    if (b == 0) std::swap(a, b);  // the ocean's root is always node 0: nothing is linked above it
    if (a == 0) {
      for (std::uint32_t v = b; v != kNoNode; v = next[v]) spill_[v] = e.level;
      parent[b] = 0;
    } else {
      parent[b] = a;
      next[tail[a]] = b;
      tail[a] = tail[b];
    }
  }
}

double SpillGraph::spill_level(std::uint32_t tx, std::uint32_t ty, std::uint32_t label) const {
  return spill_[node(static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx, label)];
}

}  // namespace terrazo
