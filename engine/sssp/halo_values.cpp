// engine/sssp/halo_values.cpp: the halo's values from the neighbouring tiles (engine/sssp/halo_values.h).
#include "engine/sssp/halo_values.h"

#include <algorithm>
#include <limits>

namespace terrazo {

void fill_halo_values(const TileInput& input, std::uint32_t tx, std::uint32_t ty, std::uint32_t h, double* window,
                      std::vector<double>& scratch) {
  const TileGrid& grid = input.grid();
  const std::int64_t t = grid.tile, s = t + 2 * static_cast<std::int64_t>(h), hh = h;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * static_cast<std::uint64_t>(t);
  scratch.resize(cells);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (dx == 0 && dy == 0) continue;
      const std::int64_t ntx = static_cast<std::int64_t>(tx) + dx, nty = static_cast<std::int64_t>(ty) + dy;
      const bool inside = ntx >= 0 && nty >= 0 && ntx < static_cast<std::int64_t>(grid.tiles_x()) &&
                          nty < static_cast<std::int64_t>(grid.tiles_y());
      if (inside && input.tile_present(static_cast<std::uint32_t>(ntx), static_cast<std::uint32_t>(nty)))
        input.read_tile(static_cast<std::uint32_t>(ntx), static_cast<std::uint32_t>(nty), scratch.data());
      else
        std::fill(scratch.begin(), scratch.end(), nan);
      // The neighbour's cells (nx, ny) inside this window: at (nx + dx*t + h, ny + dy*t + h).
      const std::int64_t xa = dx < 0 ? t - hh : 0, xb = dx > 0 ? hh : t;
      const std::int64_t ya = dy < 0 ? t - hh : 0, yb = dy > 0 ? hh : t;
      for (std::int64_t ny = ya; ny < yb; ++ny)
        for (std::int64_t nx = xa; nx < xb; ++nx)
          window[(ny + dy * t + hh) * s + nx + dx * t + hh] = scratch[static_cast<std::size_t>(ny * t + nx)];
    }
}

}  // namespace terrazo
