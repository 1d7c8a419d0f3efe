// engine/render/legend.cpp: the legend panel (engine/render/legend.h).
#include "engine/render/legend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/render/bitmap_font.h"
#include "engine/render/line.h"

namespace terrazo {
namespace {

const Rgba kInk(0, 0, 0);

}  // namespace

double nice_scale_length(double map_width_units) {
  const double limit = map_width_units / 4;
  if (!(limit > 0) || !std::isfinite(limit)) return 0.0;
  const double p = std::pow(10.0, std::floor(std::log10(limit)));
  double best = p;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p <= limit * (1 + 1e-12)) best = m * p;
  return best;
}

std::string legend_number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4g", v);
  std::string s(text);
  for (const char* from : {"e+0", "e+", "e-0"}) {
    const std::size_t at = s.find(from);
    if (at != std::string::npos) {
      s.replace(at, std::string(from).size(), std::string(from) == "e-0" ? "e-" : "e");
      break;
    }
  }
  return s;
}

namespace {

template <class ColourOf>
void draw_bar(Image& image, std::uint32_t map_h, double lo, double hi, ColourOf colour_of) {
  const int width = std::min<int>(256, static_cast<int>(image.width()) / 2 - 16);
  if (width < 16) return;
  const std::int64_t x0 = 8, y0 = map_h + 4;
  for (int k = 0; k < width; ++k) {
    const Rgba c = colour_of(k, width);
    for (int r = 0; r < kBarHeight; ++r) image.set(x0 + k, y0 + r, c);
  }
  const std::string lo_text = legend_number(lo), hi_text = legend_number(hi);
  draw_text(image, x0, y0 + kBarHeight + 3, lo_text, kInk);
  draw_text(image, x0 + width - text_width(hi_text), y0 + kBarHeight + 3, hi_text, kInk);
}

}  // namespace

void draw_colour_bar(Image& image, std::uint32_t map_h, ColourMap map, double lo, double hi) {
  draw_bar(image, map_h, lo, hi, [map](int k, int width) { return Rgba(colour_map(map, 256 * k / width)); });
}

void draw_terrain_bar(Image& image, std::uint32_t map_h, double lo, double hi) {
  draw_bar(image, map_h, lo, hi, [](int k, int width) { return Rgba(terrain_colour(static_cast<double>(k) / (width - 1))); });
}

void draw_direction_legend(Image& image, std::uint32_t map_h) {
  static const char* kNames[8] = {"E", "SE", "S", "SW", "W", "NW", "N", "NE"};
  std::int64_t x = 8;
  const std::int64_t y0 = map_h + 4;
  for (int d = 0; d < 8; ++d) {
    if (x + 12 > static_cast<std::int64_t>(image.width()) / 2) break;
    for (int r = 0; r < kBarHeight; ++r)
      for (int k = 0; k < 12; ++k) image.set(x + k, y0 + r, Rgba(direction_colour(d)));
    draw_text(image, x, y0 + kBarHeight + 3, kNames[d], kInk);
    x += 16;
  }
}

int draw_label_legend(Image& image, std::uint32_t map_h, std::uint64_t max_label) {
  std::int64_t x = 8;
  const std::int64_t y0 = map_h + 4;
  int shown = 0;
  for (std::uint64_t label = 1; label <= std::min<std::uint64_t>(12, max_label); ++label) {
    if (x + 12 > static_cast<std::int64_t>(image.width()) / 2) break;
    for (int r = 0; r < kBarHeight; ++r)
      for (int k = 0; k < 12; ++k) image.set(x + k, y0 + r, Rgba(categorical_colour(label)));
    draw_text(image, x, y0 + kBarHeight + 3, std::to_string(label), kInk);
    x += 16;
    ++shown;
  }
  if (shown > 0 && max_label > static_cast<std::uint64_t>(shown)) {
    const std::string more = "..." + std::to_string(max_label);
    if (x + text_width(more) <= static_cast<std::int64_t>(image.width()) / 2)
      draw_text(image, x, y0 + kBarHeight + 3, more, kInk);
  }
  return shown;
}

void draw_edge_legend(Image& image, std::uint32_t map_h, bool lines, Rgba ink, Rgba background) {
  const std::string label = lines ? "tree edges" : "edge cells";
  const std::int64_t x0 = 8, y0 = map_h + 4;
  if (x0 + std::max(16, text_width(label)) > static_cast<std::int64_t>(image.width()) / 2) return;
  for (int r = 0; r < kBarHeight; ++r)
    for (int k = 0; k < 16; ++k) image.set(x0 + k, y0 + r, !lines || r == kBarHeight / 2 ? ink : background);
  draw_text(image, x0, y0 + kBarHeight + 3, label, kInk);
}

ScaleBar draw_scale_bar(Image& image, std::uint32_t map_h, double pixel_size, const std::string& units) {
  ScaleBar bar;
  if (!(pixel_size > 0)) return bar;
  bar.length_units = nice_scale_length(pixel_size * image.width());
  bar.length_pixels = static_cast<std::int64_t>(std::llround(bar.length_units / pixel_size));
  const bool km = units == "m" && bar.length_units >= 1000;
  const std::string label = legend_number(km ? bar.length_units / 1000 : bar.length_units) +
                            (units.empty() ? "" : (km ? " km" : " " + units));
  if (bar.length_pixels < 1 || bar.length_pixels + 16 > static_cast<std::int64_t>(image.width())) return ScaleBar();
  bar.x0 = static_cast<std::int64_t>(image.width()) - 8 - bar.length_pixels;
  bar.y0 = map_h + 4;
  for (int r = 0; r < kScaleThickness; ++r)
    for (std::int64_t k = 0; k < bar.length_pixels; ++k) image.set(bar.x0 + k, bar.y0 + r, kInk);
  draw_text(image, std::max<std::int64_t>(0, bar.x0 + bar.length_pixels - text_width(label)), bar.y0 + kBarHeight + 3,
            label, kInk);
  return bar;
}

}  // namespace terrazo
