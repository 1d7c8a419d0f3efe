// kernels/flow/d8_tile.h: D8 flow directions of one tile, the block step of `terrazo flowdir`
// (engine/flow/flowdir_phases.h; docs/flow.md).
//
// Contract. The tile's valid cells (not NaN) are classified from a window with a halo of two cells
// (the neighbouring tiles' values; NaN for nodata and outside the raster):
//   - an outlet is a valid cell on the raster's edge (`edge_outlets`) or with a nodata neighbour
//     inside the raster (`nodata_outlets`), of its 8 neighbours: the outlets of `terrazo fill`;
//   - a cell with a strictly lower valid neighbour flows to the steepest one: the greatest drop
//     z(c) - z(n), a diagonal drop times 1/sqrt(2), both in IEEE double (correctly rounded, no
//     fused multiply-add), the first in kD8Steps order on ties (the same code on any IEEE machine);
//   - an outlet with no lower neighbour gets kD8NoFlow (its water leaves the raster there);
//   - every other valid cell is a flat cell (kernels/flow/flat_gradient.h).
// The halo's first ring is classified too, so a flat cell knows which neighbours drain at its
// elevation and which neighbours across the tile's sides are flat. The tile's flats that reach no
// flat cell outside the tile are resolved here ([Barnes2014b]); the cells of the others (`crossing`,
// in row-major order inside the tile, with their `low` and `high` bits) are left to the caller,
// their code kD8NoFlow meanwhile. Nodata and padding get kD8Nodata.
// Everything depends only on the window's values, so a tile's result is the same in every pass.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/flow/flat_gradient.h"

namespace terrazo {

struct D8TileInput {
  const double* window = nullptr;  // (t + 4)^2 values, row-major; cell (x, y) of the tile at (x + 2, y + 2)
  std::uint32_t t = 0;
  std::int64_t x0 = 0, y0 = 0;                     // the tile's first cell in the raster
  std::uint64_t raster_width = 0, raster_height = 0;
  bool edge_outlets = true, nodata_outlets = true;
};

struct D8Tile {
  std::vector<std::uint8_t> code;             // t * t
  std::vector<std::uint32_t> crossing;        // cells (y * t + x) of flats that leave the tile
  std::vector<std::uint8_t> crossing_low;     // their `low` bits
  std::vector<std::uint8_t> crossing_high;    // their `high` bits
  std::uint64_t valid_cells = 0, flat_cells = 0, outlet_cells = 0;  // outlets that keep kD8NoFlow
  FlatStats flats;                            // of the flats resolved here
  // Working memory, reused between calls.
  std::vector<std::uint8_t> state;            // (t + 4)^2
  std::vector<std::uint32_t> index;           // t * t
  FlatCells cells;
  FlatScratch scratch;
  std::vector<std::uint8_t> flat_codes;
};

void d8_tile(const D8TileInput& in, D8Tile& out);

// The bytes d8_tile holds for a tile of side t in the worst case (every cell flat), for budgets.
std::uint64_t d8_tile_bytes(std::uint32_t t);

}  // namespace terrazo
