// engine/flow/spill_graph.h: the graph of the tiles' flood labels and its solve, the global step of
// out-of-core depression filling ([Barnes2016] "the spill graph").
//
// Each tile's flood (kernels/flow/tile_flood.h) leaves labels, spill edges between its labels, and
// its perimeter cells with their labels. The graph's nodes are the ocean (every tile's kOceanLabel)
// and each tile's other labels; its edges are the tiles' spill edges, and between neighbouring
// perimeter cells of adjacent tiles (across a side or a corner, by the connectivity) an edge at the
// higher of their elevations; a perimeter cell whose neighbour across the tile's side is nodata is an
// outlet when nodata cells are: an edge to the ocean at its elevation. solve() gives each node its
// spill level: the least, over paths to the ocean, of the highest edge on the path (-inf for the
// ocean, +inf for a node with no path: a region with no outlet). A cell's filled elevation is then
// the higher of its tile's flood level and its label's spill level.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/types.h"
#include "kernels/flow/tile_flood.h"
#include "io/store/tile_store.h"

namespace terrazo {

// What the graph keeps of one tile's flood: its label count, its edges, its perimeter (the four sides,
// t cells each, top and bottom left to right, left and right top to bottom; NaN and kNoLabel where
// there is no valid cell).
struct TilePerimeter {
  std::uint32_t labels = 0;
  std::vector<SpillEdge> edges;
  std::vector<double> side_values;          // 4 * t: top, bottom, left, right
  std::vector<std::uint32_t> side_labels;   // 4 * t
  static TilePerimeter of(const TileFloodInput& in, const TileFlood& flood);
  std::uint64_t bytes() const;
};

class SpillGraph {
 public:
  SpillGraph(const TileGrid& grid, Connectivity connectivity, bool nodata_outlets);
  // Tile (tx, ty)'s perimeter, its bytes reserved from `budget` for the graph's life; every tile with
  // a valid cell once, in any order, before solve().
  void add_tile(std::uint32_t tx, std::uint32_t ty, TilePerimeter perimeter, MemoryBudget& budget);
  // Builds the edges and solves the spill levels; `budget` holds the graph's bytes meanwhile.
  void solve(MemoryBudget& budget);
  // The spill level of label `label` of tile (tx, ty), after solve().
  double spill_level(std::uint32_t tx, std::uint32_t ty, std::uint32_t label) const;
  std::uint64_t nodes() const { return nodes_; }
  std::uint64_t edges() const { return edge_count_; }
  // What solve() holds beside the perimeters: the edge list, the forest and the member lists.
  static std::uint64_t solve_bytes(std::uint64_t nodes, std::uint64_t edges);
  // The most edges between neighbouring tiles' cells: three per perimeter cell.
  static std::uint64_t cross_edges_most(const TileGrid& grid) { return grid.tile_count() * 4ull * grid.tile * 3; }
  // The tiles' own spill edges for the plan: 4 a label (a bound for regions' adjacencies on the
  // plane, diagonal crossings included), at most 4t + 1 labels a tile. The edges themselves are
  // reserved as they come, whatever their count.
  static std::uint64_t tile_edges_most(const TileGrid& grid) { return grid.tile_count() * 4ull * (4ull * grid.tile + 1); }
  // A tile's perimeter arrays (its edges come on top): for the plan.
  static std::uint64_t perimeter_bytes(std::uint32_t t) { return 4ull * t * 12 + 64; }

 private:
  struct Edge {
    std::uint32_t a, b;  // nodes (solve() refuses a graph of 2^32 nodes or more)
    double level;
  };
  std::uint64_t node(std::uint64_t tile, std::uint32_t label) const;
  void add_cross_edges(std::vector<Edge>& edges) const;
  void join_in_level_order(std::vector<Edge>& edges);
  void add_pair(std::vector<Edge>& edges, std::uint64_t tile_a, std::uint32_t side_a, std::uint32_t i_a,
                std::uint64_t tile_b, std::uint32_t side_b, std::uint32_t i_b) const;

  TileGrid grid_;
  Connectivity connectivity_;
  bool nodata_outlets_;
  std::vector<TilePerimeter> tiles_;       // by tile index (ty * tiles_x + tx)
  std::vector<std::uint64_t> first_node_;  // by tile: the node of its label 2
  std::vector<double> spill_;              // by node; node 0 is the ocean
  std::vector<MemoryBudget::Reservation> reservations_;
  std::uint64_t nodes_ = 1, edge_count_ = 0;
};

}  // namespace terrazo
