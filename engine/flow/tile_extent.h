// engine/flow/tile_extent.h: a tile of a grid as the flow kernels take it (kernels/flow/tile_flood.h,
// tile_d8.h): its side t, its valid extent and which of its sides are the raster's edge.
#pragma once
#include <cstdint>

#include "io/store/tile_store.h"
#include "kernels/flow/tile_d8.h"

namespace terrazo {

// Sets `in`'s t, width, height and raster_top/bottom/left/right for tile (tx, ty) of `grid`.
template <class TileKernelInput>
void set_tile_extent(TileKernelInput& in, const TileGrid& grid, std::uint32_t tx, std::uint32_t ty) {
  const TileWindow w = grid.window(tx, ty);
  in.t = grid.tile;
  in.width = w.w;
  in.height = w.h;
  in.raster_top = ty == 0;
  in.raster_left = tx == 0;
  in.raster_bottom = ty + 1 == grid.tiles_y();
  in.raster_right = tx + 1 == grid.tiles_x();
}

// Tile (tx, ty)'s D8 codes `codes` (t * t) as order_tile_d8 takes them.
inline TileD8Input tile_d8_input(const TileGrid& grid, std::uint32_t tx, std::uint32_t ty, const double* codes) {
  TileD8Input in;
  in.codes = codes;
  set_tile_extent(in, grid, tx, ty);
  in.x0 = std::uint64_t{tx} * grid.tile;
  in.y0 = std::uint64_t{ty} * grid.tile;
  return in;
}

}  // namespace terrazo
