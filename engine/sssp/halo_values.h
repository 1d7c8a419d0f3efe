// engine/sssp/halo_values.h: the values of a tile window's halo from the neighbouring tiles.
//
// With 16 neighbours (kernels/sssp/knight.h) a knight's move weighs the two cells it crosses, which
// may be halo cells nobody has reached (yet): the ring of the distance store carries values only
// with labels, so the exchange and the output phase read the halo's values from the input.
// Contract:
//   in     input, tile (tx, ty), halo width h <= t; window: (t+2h)^2 values, row-major
//   out    every halo cell of window = its value in the raster (NaN: nodata, padding, outside the
//          raster); the interior is left alone. scratch: t*t doubles (resized).
//   cost   reads the up to 8 neighbouring tiles (t*t each) of which h rows or columns are used.
//          Not thread-safe in the input (it reads tiles other threads may read): call it from one
//          thread at a time.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/tile_inputs/tile_input.h"

namespace terrazo {

void fill_halo_values(const TileInput& input, std::uint32_t tx, std::uint32_t ty, std::uint32_t h, double* window,
                      std::vector<double>& scratch);

}  // namespace terrazo
