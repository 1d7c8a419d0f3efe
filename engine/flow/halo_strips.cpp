// engine/flow/halo_strips.cpp: HaloStrips (engine/flow/halo_strips.h).
#include "engine/flow/halo_strips.h"

#include <limits>

namespace terrazo {

HaloStrips::HaloStrips(const TileGrid& grid, std::uint32_t h)
    : grid_(grid), h_(h), per_strip_(std::uint64_t{h} * grid.tile),
      strips_(grid.tile_count() * 4 * per_strip_, std::numeric_limits<double>::quiet_NaN()) {}

void HaloStrips::add(std::uint32_t tx, std::uint32_t ty, const double* cells) {
  const std::uint64_t t = grid_.tile, tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
  double* top = strips_.data() + (tile * 4 + 0) * per_strip_;
  double* bottom = strips_.data() + (tile * 4 + 1) * per_strip_;
  double* left = strips_.data() + (tile * 4 + 2) * per_strip_;
  double* right = strips_.data() + (tile * 4 + 3) * per_strip_;
  for (std::uint64_t r = 0; r < h_; ++r)
    for (std::uint64_t i = 0; i < t; ++i) {
      top[r * t + i] = cells[r * t + i];
      bottom[r * t + i] = cells[(t - h_ + r) * t + i];
      left[r * t + i] = cells[i * t + r];
      right[r * t + i] = cells[i * t + t - h_ + r];
    }
}

// Cell (x, y) of tile (tx, ty), one of its outer h rows or columns; NaN outside the grid.
double HaloStrips::value(std::int64_t tx, std::int64_t ty, std::int64_t x, std::int64_t y) const {
  if (tx < 0 || ty < 0 || tx >= std::int64_t{grid_.tiles_x()} || ty >= std::int64_t{grid_.tiles_y()})
    return std::numeric_limits<double>::quiet_NaN();
  const std::int64_t t = grid_.tile, h = h_;
  const std::uint64_t tile = static_cast<std::uint64_t>(ty) * grid_.tiles_x() + static_cast<std::uint64_t>(tx);
  if (y < h) return strip(tile, 0)[y * t + x];
  if (y >= t - h) return strip(tile, 1)[(y - (t - h)) * t + x];
  if (x < h) return strip(tile, 2)[x * t + y];
  return strip(tile, 3)[(x - (t - h)) * t + y];
}

void HaloStrips::fill_halo(std::uint32_t tx, std::uint32_t ty, double* window) const {
  const std::int64_t t = grid_.tile, h = h_, s = t + 2 * h;
  for (std::int64_t wy = 0; wy < s; ++wy)
    for (std::int64_t wx = 0; wx < s; ++wx) {
      if (wx >= h && wx < t + h && wy >= h && wy < t + h) {
        wx = t + h - 1;  // skip the interior
        continue;
      }
      // The window cell's tile and position in it.
      const std::int64_t gx = wx - h, gy = wy - h;
      const std::int64_t dx = gx < 0 ? -1 : gx >= t ? 1 : 0, dy = gy < 0 ? -1 : gy >= t ? 1 : 0;
      window[wy * s + wx] = value(std::int64_t{tx} + dx, std::int64_t{ty} + dy, gx - dx * t, gy - dy * t);
    }
}

}  // namespace terrazo
