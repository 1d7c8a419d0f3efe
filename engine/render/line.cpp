// engine/render/line.cpp: draw_line, fill_square, draw_source_marker (engine/render/line.h).
#include "engine/render/line.h"

#include <cstdlib>

namespace terrazo {
namespace {

void bresenham(Image& image, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, Rgba colour) {
  const std::int64_t dx = std::llabs(x1 - x0), dy = -std::llabs(y1 - y0);
  const std::int64_t sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  std::int64_t err = dx + dy;
  for (;;) {
    image.set(x0, y0, colour);
    if (x0 == x1 && y0 == y1) break;
    const std::int64_t e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

}  // namespace

void draw_line(Image& image, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, Rgba colour,
               int thickness) {
  if (thickness < 1) thickness = 1;
  // Clip far-away endpoints cheaply: a line wholly left/right/above/below the canvas draws nothing.
  const std::int64_t pad = thickness;
  if ((x0 < -pad && x1 < -pad) || (y0 < -pad && y1 < -pad) || (x0 > image.width() + pad && x1 > image.width() + pad) ||
      (y0 > image.height() + pad && y1 > image.height() + pad))
    return;
  const bool flat = std::llabs(x1 - x0) >= std::llabs(y1 - y0);
  for (int k = -(thickness - 1) / 2; k <= thickness / 2; ++k) {
    if (flat) bresenham(image, x0, y0 + k, x1, y1 + k, colour);
    else bresenham(image, x0 + k, y0, x1 + k, y1, colour);
  }
}

void fill_square(Image& image, std::int64_t x, std::int64_t y, int r, Rgba colour) {
  for (std::int64_t v = y - r; v <= y + r; ++v)
    for (std::int64_t u = x - r; u <= x + r; ++u) image.set(u, v, colour);
}

void draw_source_marker(Image& image, std::int64_t x, std::int64_t y) {
  fill_square(image, x, y, 4, Rgba(0, 0, 0));
  fill_square(image, x, y, 2, Rgba(255, 255, 255));
}

}  // namespace terrazo
