// engine/flow/halo_strips.h: every tile's border strips, kept so that a tile's window with a halo
// of `h` cells is made without reading its eight neighbours again (`terrazo flowdir` reads each
// tile once a pass, engine/flow/flowdir_phases.h).
//
// Contract: add(tx, ty, cells) keeps tile (tx, ty)'s outer h rows and columns (from several threads
// at once for different tiles); fill_halo(tx, ty, window) writes the (t + 2h)^2 window's halo from
// the neighbours' strips (NaN for nodata, absent tiles and outside the raster), leaving its interior
// alone: the same values as engine/sssp/halo_values.h, which reads the neighbours' whole tiles.
// Memory: 4 * h * t doubles a tile (strips_bytes), held for the run.
#pragma once
#include <cstdint>
#include <vector>

#include "io/store/tile_store.h"

namespace terrazo {

class HaloStrips {
 public:
  HaloStrips(const TileGrid& grid, std::uint32_t h);
  void add(std::uint32_t tx, std::uint32_t ty, const double* cells);
  void fill_halo(std::uint32_t tx, std::uint32_t ty, double* window) const;
  static std::uint64_t strips_bytes(const TileGrid& grid, std::uint32_t h) { return grid.tile_count() * 4ull * h * grid.tile * 8; }

 private:
  // Strip k of a tile (0 top rows, 1 bottom rows, 2 left columns, 3 right columns), h x t values:
  // rows top to bottom for 0 and 1, columns left to right for 2 and 3, each along the side.
  const double* strip(std::uint64_t tile, int k) const { return strips_.data() + (tile * 4 + k) * per_strip_; }
  double value(std::int64_t tx, std::int64_t ty, std::int64_t x, std::int64_t y) const;

  TileGrid grid_;
  std::uint32_t h_;
  std::uint64_t per_strip_;
  std::vector<double> strips_;
};

}  // namespace terrazo
