// kernels/common/walk_tile.h: the valid cells of a tile of packed walk cells (pack_walk_cell of
// kernels/common/edge_weight.h: elevation and friction in one double; NaN: nodata) and every pair of
// valid neighbours in it once, unpacked: what a scan of a walk tile's weights visits (the weight
// scan of engine/cost_models/walk_weights.cpp, the bucket shape of kernels/sssp/block_sssp_cpu.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/common/edge_weight.h"
#include "kernels/common/tile_geometry.h"

namespace terrazo {

// For each valid cell (x, y) of the side x side tile `values`, in row-major order: cell(x, y, h, f),
// then pair(x, y, d, h, f, hn, fn) for each valid neighbour in direction d = E, SE, S, SW (so every
// pair once) inside the tile, h and f the elevation and friction of each end. A pair that returns
// false ends the scan: false; else true.
template <class Cell, class Pair>
bool scan_walk_tile_pairs(const double* values, std::uint32_t side, Cell&& cell, Pair&& pair) {
  for (std::uint32_t y = 0; y < side; ++y)
    for (std::uint32_t x = 0; x < side; ++x) {
      const double a = values[static_cast<std::size_t>(y) * side + x];
      if (a != a) continue;
      double h, f;
      unpack_walk_cell(a, &h, &f);
      cell(x, y, h, f);
      for (int d = 0; d < 4; ++d) {
        const std::int64_t nx = static_cast<std::int64_t>(x) + kDirDx[d], ny = static_cast<std::int64_t>(y) + kDirDy[d];
        if (nx < 0 || nx >= static_cast<std::int64_t>(side) || ny >= static_cast<std::int64_t>(side)) continue;
        const double b = values[static_cast<std::size_t>(ny) * side + static_cast<std::size_t>(nx)];
        if (b != b) continue;
        double hn, fn;
        unpack_walk_cell(b, &hn, &fn);
        if (!pair(x, y, d, h, f, hn, fn)) return false;
      }
    }
  return true;
}

}  // namespace terrazo
