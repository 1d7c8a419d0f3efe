// engine/render/legend.h: the panel under the map: a colour bar with its min and max values, or the
// backlink direction swatches, and a scale bar (docs/render.md "Legend and scale bar").
//
// The panel is kPanelHeight pixels high, white, below the map (rows map_h .. map_h + kPanelHeight).
// Colour bar (cost: the colour map; dem: the terrain ramp): from x = 8, kBarHeight rows from panel row 4, min(256, width / 2 - 16) pixels wide;
// column k shows the map entry floor(256 k / bar width); the min value is written under its left end,
// the max value under its right end ("%.4g").
// Scale bar: a length L = 1, 2 or 5 x 10^k map units, the largest such at most a quarter of the map's
// width in map units; it is round(L / pixel size) pixels long (pixel size = map units per map pixel),
// kScaleThickness rows from panel row 4, ending 8 pixels from the right edge, with "L units" under it
// (metres of 1000 and more as km).
#pragma once
#include <cstdint>
#include <string>

#include "engine/render/colormaps.h"
#include "engine/render/image.h"

namespace terrazo {

constexpr std::uint32_t kPanelHeight = 24;
constexpr int kBarHeight = 6, kScaleThickness = 3;

// The scale bar's length in map units for a map `map_width_units` wide.
double nice_scale_length(double map_width_units);
// "%.4g", with "e+0X" shortened to "eX" (the font has no other letters).
std::string legend_number(double v);

struct ScaleBar {
  double length_units = 0;
  std::int64_t length_pixels = 0, x0 = 0, y0 = 0;  // where it was drawn
};

void draw_colour_bar(Image& image, std::uint32_t map_h, ColourMap map, double lo, double hi);
// The same bar with the terrain ramp (column k: terrain_colour(k / (bar width - 1))), for DEMs.
void draw_terrain_bar(Image& image, std::uint32_t map_h, double lo, double hi);
void draw_direction_legend(Image& image, std::uint32_t map_h);
// Labels (clump labels, allocation zones): the palette's swatches of labels 1, 2, ..., n, 12 pixels
// wide at x = 8 + 16 (L - 1), each with its number under it, n = min(12, max_label) and as many as fit
// in the left half (as the direction swatches); when max_label > n, "..." and max_label follow.
// Returns n.
int draw_label_legend(Image& image, std::uint32_t map_h, std::uint64_t max_label);
// MST edges: a 16 x kBarHeight swatch at x = 8, as the map draws edges: `lines`, the valid cells' grey
// with a one-pixel line of `ink` across its middle row (row kBarHeight / 2), labelled "tree edges";
// else (the picture has fewer pixels than cells) filled with `ink`, labelled "edge cells".
void draw_edge_legend(Image& image, std::uint32_t map_h, bool lines, Rgba ink, Rgba background);
// `pixel_size`: map units per map pixel; `units`: "m", "ft", "deg" ... Draws nothing (and returns a
// zero bar) when the bar would not fit.
ScaleBar draw_scale_bar(Image& image, std::uint32_t map_h, double pixel_size, const std::string& units);

}  // namespace terrazo
