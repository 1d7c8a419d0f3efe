// engine/render/line.h: straight lines and markers on the canvas.
//
// draw_line: Bresenham's integer line [Bresenham1965] from (x0, y0) to (x1, y1), both ends
// included, every pixel set exactly once per pass; `thickness` t > 1 repeats it shifted by
// -(t-1)/2 .. t/2 pixels across the line's minor axis (rows for a line flatter than 45 degrees,
// columns otherwise), so a horizontal line of thickness 2 at row y covers rows y and y+1.
// Pixels outside the canvas are clipped.
#pragma once
#include <cstdint>

#include "engine/render/image.h"

namespace terrazo {

void draw_line(Image& image, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, Rgba colour,
               int thickness = 1);

// A filled square of side 2 r + 1 centred at (x, y).
void fill_square(Image& image, std::int64_t x, std::int64_t y, int r, Rgba colour);

// A source marker: a black square of radius 4 with a white one of radius 2 inside, centred at (x, y).
void draw_source_marker(Image& image, std::int64_t x, std::int64_t y);

}  // namespace terrazo
