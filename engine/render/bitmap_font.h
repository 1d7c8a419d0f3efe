// engine/render/bitmap_font.h: a tiny built-in 5 x 7 bitmap font for the legend's numbers and units.
// Glyphs: the digits, ". - + e x", the letters of units and directions "m k d g f t E S W N", those
// of the edges legend "r s c l", and space; any other character draws nothing but takes its cell (6 pixels, one of spacing). A string
// is drawn from its top-left corner at (x, y); it is 6 n - 1 pixels wide and 7 high (scale 1).
#pragma once
#include <cstdint>
#include <string>

#include "engine/render/image.h"

namespace terrazo {

constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;

bool has_glyph(char c);
int text_width(const std::string& text);
void draw_text(Image& image, std::int64_t x, std::int64_t y, const std::string& text, Rgba colour);

}  // namespace terrazo
