// engine/sssp/rank_window.h: the part of the raster one rank of a distributed resident exchange
// holds (docs/distributed.md "sssp: the resident exchange on ranks").
//
// A rank's resident solver covers a window of the raster: the bounding box of its own present tiles
// grown by `halo` cells (clipped to the raster). In it the rank holds the values of its own tiles and
// of the cells of other ranks' tiles within `halo` of its own (the halo strips: every edge with an
// end in its own tiles, knight's moves and the cells they cross included, lies in these cells); every
// other cell of the window is nodata to its solver.
//
// Shared cells: two ranks A and B both hold the cells of A's tiles within `halo` of B's and the cells
// of B's tiles within `halo` of A's. Their list is the same on both ranks, in one order: for every
// present tile T, ascending, owned by A or B, and each of its 8 neighbours U in direction order owned
// by the other, the cells of T within `halo` of U, row-major (a cell may be listed more than once).
// Each round the ranks trade their copies of these cells and keep the smaller (engine/sssp/
// resident_exchange.h); when no copy lowers, both hold the same distance for every shared cell.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "engine/run/tile_ownership.h"
#include "io/store/tile_store.h"

namespace terrazo {

struct RankWindow {
  // The window in raster cells; empty (width 0) when the rank owns no present tile.
  std::uint64_t x0 = 0, y0 = 0, width = 0, height = 0;
  std::vector<std::uint64_t> own_tiles;  // present, ascending
  // Per tile of another rank: the rectangles of it within `halo` of this rank's tiles.
  std::map<std::uint64_t, std::vector<TileWindow>> halo_strips;
  struct Neighbour {
    int rank = 0;
    std::vector<std::uint64_t> cells;  // shared cells, y * raster width + x, in the pair's order
  };
  std::vector<Neighbour> neighbours;  // ascending rank

  bool contains(const TileWindow& w) const {
    return w.x0 >= x0 && w.y0 >= y0 && w.x0 + w.w <= x0 + width && w.y0 + w.h <= y0 + height;
  }
  std::uint64_t shared_cells() const;
};

// ownership null: one process (the whole raster, every present tile its own, no neighbours).
RankWindow rank_window(const TileGrid& grid, const TileOwnership* ownership, int rank, std::uint32_t halo,
                       const std::function<bool(std::uint64_t)>& present);

}  // namespace terrazo
