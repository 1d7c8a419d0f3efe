// io/store/tile_grid.cpp: the tile grid's Z-order (Morton order) of io/store/tile_store.h.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "io/store/tile_store.h"

namespace terrazo {

// ---- Morton order ----------------------------------------------------------------------------

namespace {

std::uint64_t spread_bits(std::uint32_t v) {
  std::uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

std::uint32_t gather_bits(std::uint64_t x) {
  x &= 0x5555555555555555ull;
  x = (x | (x >> 1)) & 0x3333333333333333ull;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
  return static_cast<std::uint32_t>(x);
}

// Smallest power of two >= n (n >= 1).
std::uint64_t power_of_two_at_least(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Tiles of the grid inside the square [x0, x0+size) x [y0, y0+size).
std::uint64_t tiles_in_square(std::uint64_t x0, std::uint64_t y0, std::uint64_t size, std::uint64_t tiles_x,
                              std::uint64_t tiles_y) {
  if (x0 >= tiles_x || y0 >= tiles_y) return 0;
  return (std::min(x0 + size, tiles_x) - x0) * (std::min(y0 + size, tiles_y) - y0);
}

void append_z_order(std::uint64_t x0, std::uint64_t y0, std::uint64_t size, std::uint64_t tiles_x,
                    std::uint64_t tiles_y, std::vector<std::uint64_t>& out) {
  if (x0 >= tiles_x || y0 >= tiles_y) return;
  if (size == 1) {
    out.push_back(y0 * tiles_x + x0);
    return;
  }
  const std::uint64_t half = size / 2;
  // Quadrants in Morton order: x is the low bit, so (0,0), (1,0), (0,1), (1,1).
  append_z_order(x0, y0, half, tiles_x, tiles_y, out);
  append_z_order(x0 + half, y0, half, tiles_x, tiles_y, out);
  append_z_order(x0, y0 + half, half, tiles_x, tiles_y, out);
  append_z_order(x0 + half, y0 + half, half, tiles_x, tiles_y, out);
}

}  // namespace

std::uint64_t morton_encode(std::uint32_t tx, std::uint32_t ty) { return spread_bits(tx) | (spread_bits(ty) << 1); }

void morton_decode(std::uint64_t code, std::uint32_t* tx, std::uint32_t* ty) {
  *tx = gather_bits(code);
  *ty = gather_bits(code >> 1);
}

std::vector<std::uint64_t> TileGrid::z_order() const {
  std::vector<std::uint64_t> order;
  order.reserve(tile_count());
  append_z_order(0, 0, power_of_two_at_least(std::max<std::uint64_t>(tiles_x(), tiles_y())), tiles_x(), tiles_y(),
                 order);
  return order;
}

std::uint64_t TileGrid::z_rank(std::uint32_t tx, std::uint32_t ty) const {
  // Descend the quadtree of the enclosing power-of-two square; at each level add the tiles of the
  // grid in the quadrants that precede the one holding (tx, ty) in Morton order.
  const std::uint64_t nx = tiles_x(), ny = tiles_y();
  std::uint64_t size = power_of_two_at_least(std::max(nx, ny));
  std::uint64_t x0 = 0, y0 = 0, rank = 0;
  while (size > 1) {
    const std::uint64_t half = size / 2;
    const unsigned quadrant = (tx >= x0 + half ? 1u : 0u) | (ty >= y0 + half ? 2u : 0u);
    for (unsigned q = 0; q < quadrant; ++q)
      rank += tiles_in_square(x0 + (q & 1u) * half, y0 + (q >> 1) * half, half, nx, ny);
    x0 += (quadrant & 1u) * half;
    y0 += (quadrant >> 1) * half;
    size = half;
  }
  return rank;
}

}  // namespace terrazo
