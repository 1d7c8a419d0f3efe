// engine/flow/flow_links.h: the tiles' perimeter links of a D8 direction raster and their solve, the
// global step of out-of-core flow accumulation ([Barnes2017, sec. 3]: "the perimeter of each tile",
// solved once by the producer).
//
// Each tile keeps, for each cell of its perimeter (the cells of its extent on its first and last row
// and column), the cell's code, the last cell of its path inside the tile (kernels/flow/tile_d8.h:
// tile_d8_path_ends) and an amount. A perimeter cell whose flow leaves the tile for a cell of a
// neighbouring tile is an exit. The links are the edges exit -> the exit where the flow that enters
// the neighbouring tile leaves that tile in turn (none when the cell entered is nodata, or its path
// ends inside that tile: an outlet). They form a forest when the raster drains: solve_accumulation()
// visits it upstream first and makes each exit's amount (its accumulation inside its tile) its
// accumulation over the whole raster, F(e) = L(e) + sum of F over the exits linked to e; a loop of
// links is a loop of the directions across tiles, refused (UsageError naming a cell on it).
// Sums are integers, so the result does not depend on the order: the same for any tile size.
// Memory: bytes_per_cell() bytes per perimeter cell of every tile of the grid, held for the links'
// life, and 4 more during the solve (in-degrees).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/store/tile_store.h"
#include "kernels/common/memory_budget.h"
#include "kernels/flow/tile_d8.h"

namespace terrazo {

// What else makes a phase holding the links fit (MemoryPlan::other_remedy).
constexpr char kLinksRemedy[] = "use fewer --threads, or a larger --tile (the links take 13 bytes per perimeter cell)";

class FlowLinks {
 public:
  // The links' arrays of every tile of `grid` (all nodata until set_tile), reserved from `budget`.
  FlowLinks(const TileGrid& grid, MemoryBudget& budget);
  // Tile (tx, ty)'s perimeter from its ordered flow, its path ends and its amounts (t * t each).
  // `amount` null: 0 each. Safe from several threads at once for different tiles; a tile never set is nodata.
  void set_tile(std::uint32_t tx, std::uint32_t ty, const TileD8& flow, const std::uint32_t* end,
                const std::int64_t* amount);
  // Every exit's amount becomes its accumulation over the raster; UsageError for a loop across tiles,
  // Error naming `overflow_remedy` when a sum overflows int64. Holds its in-degrees from `budget`.
  void solve_accumulation(MemoryBudget& budget, const char* overflow_remedy);
  // After solve_accumulation: the sum of the accumulations of the exits of other tiles whose flow
  // enters cell `cell` (an in-tile index of a perimeter cell) of tile (tx, ty).
  std::int64_t inflow(std::uint32_t tx, std::uint32_t ty, std::uint32_t cell) const;

  // For watersheds: every exit's amount becomes the raster id (y * width + x) of the cell where its
  // flow ends (itself when the cell it enters is nodata; else the end of the path of the cell entered,
  // or that path's exit's end); UsageError for a loop across tiles. Holds its states from `budget`.
  void solve_outlets(MemoryBudget& budget);
  // After solve_outlets: the end of the flow of exit `cell` (an in-tile index) of tile (tx, ty).
  std::uint64_t outlet(std::uint32_t tx, std::uint32_t ty, std::uint32_t cell) const;
  // After solve_outlets: the ends of the flows that cross from one tile into another, sorted, unique:
  // the basins that span tiles.
  std::vector<std::uint64_t> crossing_outlets() const;

  std::uint64_t exits() const { return exits_; }                     // after solve
  std::uint64_t exits_into_nodata() const { return into_nodata_; }  // exits whose flow enters a nodata cell
  static std::uint64_t bytes_per_cell() { return 1 + 4 + 8; }
  static std::uint64_t most_perimeter_cells(const TileGrid& grid);
  static std::uint64_t solve_bytes_per_cell() { return 4; }

 private:
  struct Cell {
    std::uint64_t tile;
    std::uint32_t x, y;  // in the tile
  };
  static constexpr std::uint64_t kNoNode = ~std::uint64_t{0};
  std::uint64_t node(const Cell& cell) const;
  // True when perimeter cell `cell` is an exit: its flow enters `target`, a cell of another tile.
  bool exit_target(const Cell& cell, Cell& target) const;
  // The exit linked to exit `exit` (true), or none (false; `into_nodata` when the cell entered is nodata).
  bool linked_exit(const Cell& exit, Cell& next, bool& into_nodata) const;
  // Where the flow of exit `exit` goes on: true with the exit linked to it in `next`; false with
  // `end` the raster id of the cell where it ends.
  bool flow_on(const Cell& exit, Cell& next, std::uint64_t& end) const;
  std::uint64_t raster_id(const Cell& cell) const;
  void refuse_loop_at(const Cell& cell) const;
  void count_in_degrees(std::vector<std::uint32_t>& in_degree);
  void accumulate_chains(std::vector<std::uint32_t>& in_degree, const char* overflow_remedy);
  void refuse_loops(const std::vector<std::uint32_t>& in_degree) const;
  template <class Visit>
  void for_each_node(Visit&& visit) const;  // visit(const Cell&, node) in node order

  TileGrid grid_;
  std::vector<std::uint64_t> first_;  // by tile, and one past the last: its first node
  std::vector<std::uint8_t> code_;    // by node
  std::vector<std::uint32_t> end_;    // by node: its path's last in-tile cell, kNotACell at nodata
  std::vector<std::int64_t> amount_;  // by node
  MemoryBudget::Reservation reservation_;
  std::uint64_t exits_ = 0, into_nodata_ = 0;
  std::string overflow_remedy_;
};

// The index 0 .. n-1 of cell (x, y) of a w x h extent's perimeter (top row, bottom row, left column,
// right column, each corner once), and n.
std::uint32_t perimeter_position(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h);
std::uint32_t perimeter_cells(std::uint32_t w, std::uint32_t h);

// at(x, y) for each cell of a w x h extent's perimeter, row by row (each cell once).
template <class At>
void for_each_perimeter_cell(std::uint32_t w, std::uint32_t h, At&& at) {
  for (std::uint32_t y = 0; y < h; ++y) {
    if (y == 0 || y + 1 == h) {
      for (std::uint32_t x = 0; x < w; ++x) at(x, y);
    } else {
      at(0, y);
      if (w > 1) at(w - 1, y);
    }
  }
}

}  // namespace terrazo
