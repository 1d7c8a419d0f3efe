// tests/test_render.cpp: `terrazo render` (engine/commands/render_command.h): exact pixels on small synthetic
// rasters (colour-map entries of a known ramp, nodata transparent, path and source pixels, contour
// positions, backlink and label colours, edges as lines, the hillshade of a flat DEM), the scale bar's
// length from the geotransform, the decimated read against averages and nearest cells computed here,
// the picture's size from --width and the aspect, and refusals of bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/render/bitmap_font.h"
#include "engine/render/colormaps.h"
#include "engine/render/hillshade.h"
#include "engine/render/legend.h"
#include "engine/render/line.h"
#include "engine/commands/mst_command.h"
#include "engine/raster_inputs/raster_io.h"
#include "engine/commands/render_command.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "kernels/common/error.h"
#include "io/gdal/decimated_read.h"
#include "io/gdal/png_writer.h"
#include "tests/support/random_values.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Picture {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
  Rgba at(std::uint32_t x, std::uint32_t y) const {
    const std::uint8_t* p = &rgba[(static_cast<std::size_t>(y) * width + x) * 4];
    return Rgba(p[0], p[1], p[2], p[3]);
  }
};

Picture load(const std::string& path) {
  Picture p;
  read_png(path, &p.width, &p.height, &p.rgba);
  return p;
}

RenderCommandResult render(const std::vector<std::string>& args) {
  return run_render_command(parse_render_options(args), Progress::silent());
}

// A projected georeference: origin (x0, y0), square cells of `cell` metres, UTM 11N.
RasterInfo utm(double x0, double y0, double cell) { return testing::georef("EPSG:32611", x0, y0, cell, -cell); }

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string expect_colour_text(Rgba c) {
  return std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + "," + std::to_string(c.a);
}

#define EXPECT_PIXEL(pic, x, y, colour) \
  EXPECT_EQ(expect_colour_text((pic).at(x, y)), expect_colour_text(colour)) << "pixel " << (x) << "," << (y)

// Reference colour-map index, stated independently: the 256 equal bins of [lo, hi], hi in the last.
int reference_index(double v, double lo, double hi) {
  const int k = static_cast<int>(std::floor((v - lo) / (hi - lo) * 256.0));
  return k < 0 ? 0 : (k > 255 ? 255 : k);
}

// A w x h ramp, each cell's value its column, written to `path` (Float32, nodata -1: a cost surface).
std::vector<double> write_ramp(const std::string& path, std::uint64_t w, std::uint64_t h) {
  std::vector<double> v(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) v[y * w + x] = static_cast<double>(x);
  testing::write_raster_values(path, w, h, v, CellType::Float32, -1);
  return v;
}

TEST(Render, CostRampGivesColourMapEntries) {
  testing::TempDir dir;
  const std::uint64_t w = 256, h = 4;
  const std::string in = dir.file("ramp.tif"), out = dir.file("ramp.png");
  const std::vector<double> v = write_ramp(in, w, h);  // a cost surface: the colour map's auto choice
  for (const char* map : {"viridis", "magma"}) {
    const auto r = render({"--width", "256", "--contours", "0", "--no-legend", "--colour-map", map, in, out});
    EXPECT_EQ(r.kind, RenderKind::Cost);
    EXPECT_EQ(r.lo, 0);
    EXPECT_EQ(r.hi, 255);
    const Picture p = load(out);
    ASSERT_EQ(p.width, 256u);
    ASSERT_EQ(p.height, 4u);
    const Rgb* table = std::string(map) == "magma" ? kMagma : kViridis;
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) EXPECT_PIXEL(p, x, y, Rgba(table[reference_index(x, 0, 255)]));
  }
  // Known entries of the published tables [Smith2015]: viridis starts at (68, 1, 84), ends at (253, 231, 37).
  EXPECT_PIXEL(load(dir.file("ramp.png")), 0, 0, Rgba(kMagma[0]));
  EXPECT_EQ(expect_colour_text(Rgba(kViridis[0])), "68,1,84,255");
  EXPECT_EQ(expect_colour_text(Rgba(kViridis[255])), "253,231,37,255");
  // With the legend: the colour bar under the map, min(256, 256 / 2 - 16) = 112 columns from x = 8,
  // column k the entry floor(256 k / 112), 4 rows below the map.
  const auto legend = render({"--width", "256", "--contours", "0", in, out});
  EXPECT_EQ(legend.height, h + kPanelHeight);
  const Picture withbar = load(out);
  for (std::uint32_t k = 0; k < 112; ++k)
    for (std::uint32_t row = 0; row < static_cast<std::uint32_t>(kBarHeight); ++row)
      EXPECT_PIXEL(withbar, 8 + k, h + 4 + row, Rgba(kViridis[256 * k / 112]));
  EXPECT_PIXEL(withbar, 8 + 112, h + 4, Rgba(255, 255, 255));
  EXPECT_PIXEL(withbar, 7, h + 4, Rgba(255, 255, 255));
  // --range: values beyond it clamp to the end entries.
  render({"--width", "256", "--contours", "0", "--no-legend", "--range", "64,191", in, out});
  const Picture p = load(out);
  EXPECT_PIXEL(p, 10, 0, Rgba(kViridis[0]));
  EXPECT_PIXEL(p, 250, 0, Rgba(kViridis[255]));
  EXPECT_PIXEL(p, 128, 0, Rgba(kViridis[reference_index(128, 64, 191)]));
}

TEST(Render, NodataIsTransparent) {
  testing::TempDir dir;
  const std::uint64_t w = 40, h = 30;
  std::mt19937_64 rng(7);
  const std::vector<double> v = testing::random_values(rng, w * h, 0.2, 0, 1000);
  const std::string in = dir.file("holes.tif"), out = dir.file("holes.png");
  testing::write_raster_values(in, w, h, v, CellType::Float32, -9999);
  for (const char* kind : {"dem", "cost", "labels"}) {
    render({"--kind", kind, "--width", "40", "--no-legend", in, out});
    const Picture p = load(out);
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x)
        EXPECT_EQ(p.at(x, y).a, std::isnan(v[y * w + x]) ? 0 : 255) << kind << " " << x << "," << y;
  }
}

TEST(Render, ContourLinesWhereTheBandChanges) {
  testing::TempDir dir;
  const std::uint64_t w = 100, h = 3;
  const std::string in = dir.file("ramp.tif"), out = dir.file("ramp.png");
  const std::vector<double> v = write_ramp(in, w, h);
  const auto r = render({"--width", "100", "--contours", "10", "--no-legend", in, out});
  EXPECT_EQ(r.contour_interval, 10);  // 99 / 10 = 9.9 -> the next nice step
  const Picture p = load(out);
  for (std::uint32_t x = 0; x < w; ++x) {
    const Rgba plain(kViridis[reference_index(x, 0, 99)]);
    const bool on_contour = x % 10 == 9 && x + 1 < w;  // floor(x / 10) != floor((x + 1) / 10)
    if (on_contour) {
      Image expected(1, 1, plain);
      expected.blend(0, 0, Rgba(0, 0, 0), 0.6);
      EXPECT_PIXEL(p, x, 1, expected.get(0, 0));
    } else {
      EXPECT_PIXEL(p, x, 1, plain);
    }
  }
}

TEST(Render, PathAndSourcesDrawnWhereExpected) {
  testing::TempDir dir;
  const std::uint64_t w = 100, h = 50;
  std::vector<double> v(w * h, 500.0);
  const std::string in = dir.file("flat.tif"), out = dir.file("path.png"), paths = dir.file("paths.geojson");
  testing::write_raster_values(in, w, h, v, CellType::Float32, -9999, utm(1000, 2000, 10));
  // A horizontal path along the middle of row 25 and a diagonal from cell (10, 10) to cell (40, 40)
  // (map coordinates of the cells' centres), in the raster's CRS.
  write_text(paths,
             "{\"type\":\"FeatureCollection\",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"urn:ogc:def:crs:EPSG::32611\"}},"
             "\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"LineString\","
             "\"coordinates\":[[1005,1745],[1995,1745]]}},"
             "{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"LineString\","
             "\"coordinates\":[[1105,1895],[1405,1595]]}},"
             "{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1005,1745]}}]}");
  const auto r = render({"--kind", "dem", "--width", "100", "--no-legend", "--paths", paths, "--source", "70,5", in, out});
  EXPECT_EQ(r.path_lines, 2u);
  EXPECT_EQ(r.path_features_skipped, 1u);
  EXPECT_EQ(r.sources, 1u);
  const Picture p = load(out);
  const Rgba red(220, 20, 20), white(255, 255, 255);
  const Rgba ground = p.at(90, 45);  // far from everything drawn
  for (std::uint32_t x = 0; x < w; ++x) {
    if (x >= 8 && x <= 43) continue;  // where the diagonal crosses row 25's halo
    EXPECT_PIXEL(p, x, 25, red);
    EXPECT_PIXEL(p, x, 26, red);
    EXPECT_PIXEL(p, x, 24, white);
    EXPECT_PIXEL(p, x, 27, white);
    EXPECT_PIXEL(p, x, 22, ground);
  }
  for (std::uint32_t k = 10; k <= 40; ++k) EXPECT_PIXEL(p, k, k, red);
  // The source marker at cell (70, 5): white centre, black ring.
  EXPECT_PIXEL(p, 70, 5, white);
  EXPECT_PIXEL(p, 72, 5, white);
  EXPECT_PIXEL(p, 73, 5, Rgba(0, 0, 0));
  EXPECT_PIXEL(p, 70, 9, Rgba(0, 0, 0));
  EXPECT_PIXEL(p, 70, 10, ground);
  // Half the width: the same path on row 12 (floor(25.5 / 2)).
  render({"--kind", "dem", "--width", "50", "--no-legend", "--paths", paths, in, out});
  const Picture half = load(out);
  EXPECT_PIXEL(half, 30, 12, red);
  EXPECT_PIXEL(half, 30, 13, red);
  EXPECT_PIXEL(half, 30, 11, white);
}

TEST(Render, ScaleBarLengthFollowsTheGeotransform) {
  testing::TempDir dir;
  const std::uint64_t w = 200, h = 100;
  std::vector<double> v(w * h, 100.0);
  const std::string in = dir.file("dem.tif"), out = dir.file("dem.png");
  testing::write_raster_values(in, w, h, v, CellType::Float32, -9999, utm(500000, 4000000, 30));
  // 100 pixels for 200 cells of 30 m: 60 m per pixel, 6000 m across; a quarter is 1500 -> 1000 m,
  // round(1000 / 60) = 17 pixels.
  const auto r = render({"--width", "100", in, out});
  EXPECT_EQ(r.scale_bar_units, 1000);
  EXPECT_EQ(r.scale_bar_pixels, 17);
  const Picture p = load(out);
  ASSERT_EQ(p.height, 50u + kPanelHeight);
  const std::uint32_t row = 50 + 4 + 1;  // the bar's middle row
  std::uint32_t first = 0, count = 0;
  for (std::uint32_t x = 50; x < 100; ++x)
    if (p.at(x, row) == Rgba(0, 0, 0)) {
      if (count++ == 0) first = x;
    }
  EXPECT_EQ(count, 17u);
  EXPECT_EQ(first, 100u - 8 - 17);
  // 400 pixels: 15 m per pixel, a quarter of 6000 m -> 1000 m, 67 pixels (66.67 rounded).
  const auto wide = render({"--width", "400", in, out});
  EXPECT_EQ(wide.scale_bar_pixels, 67);
  EXPECT_EQ(nice_scale_length(6000), 1000);
  EXPECT_EQ(nice_scale_length(9000), 2000);
  EXPECT_EQ(nice_scale_length(25), 5);
}

TEST(Render, DecimatedReadEqualsReferenceAverageAndNearest) {
  testing::TempDir dir;
  const std::uint64_t w = 64, h = 48;
  std::mt19937_64 rng(11);
  std::vector<double> v = testing::random_values(rng, w * h, 0.1, 0, 4096);
  for (std::uint64_t x = 4; x < 8; ++x)
    for (std::uint64_t y = 8; y < 12; ++y) v[y * w + x] = kNaN;  // one all-nodata box of the 4 x 4 reads
  const std::string in = dir.file("random.tif");
  testing::write_raster_values(in, w, h, v, CellType::Float32, -9999);
  MemoryBudget budget(64ull << 20);
  // Factor 4 on both axes.
  const DecimatedRaster avg = read_decimated(in, 0, 16, 12, Resampling::Average, budget, Progress::silent());
  ASSERT_TRUE(avg.via_gdal);
  for (std::uint32_t j = 0; j < 12; ++j)
    for (std::uint32_t i = 0; i < 16; ++i) {
      double sum = 0;
      int n = 0;
      for (std::uint64_t y = 4 * j; y < 4 * j + 4; ++y)
        for (std::uint64_t x = 4 * i; x < 4 * i + 4; ++x)
          if (!std::isnan(v[y * w + x])) sum += v[y * w + x], ++n;
      const double got = avg.cells[j * 16 + i];
      if (n == 0) EXPECT_TRUE(std::isnan(got)) << i << "," << j;
      else EXPECT_EQ(got, static_cast<double>(static_cast<float>(sum / n))) << i << "," << j;  // a Float32 band: its type's rounding
    }
  // Nearest, factor 4 and a fractional factor (64 -> 10 columns, 48 -> 7 rows): the cell under each
  // output cell's centre, floor((k + 0.5) N / n).
  for (auto [ow, oh] : {std::pair<std::uint32_t, std::uint32_t>{16, 12}, {10, 7}}) {
    const DecimatedRaster near = read_decimated(in, 0, ow, oh, Resampling::Nearest, budget, Progress::silent());
    for (std::uint32_t j = 0; j < oh; ++j)
      for (std::uint32_t i = 0; i < ow; ++i) {
        const std::uint64_t x = static_cast<std::uint64_t>((i + 0.5) * w / ow), y = static_cast<std::uint64_t>((j + 0.5) * h / oh);
        const double want = v[y * w + x], got = near.cells[j * ow + i];
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << ow << ": " << i << "," << j;
        else EXPECT_EQ(got, want) << ow << ": " << i << "," << j;
      }
  }
}

TEST(Render, LabelsAndBacklinksTakeTheirColoursFromNearestCells) {
  testing::TempDir dir;
  const std::uint64_t w = 64, h = 32;
  std::vector<double> labels(w * h), back(w * h);
  std::mt19937_64 rng(3);
  for (std::size_t k = 0; k < labels.size(); ++k) {
    labels[k] = rng() % 7 == 0 ? kNaN : static_cast<double>(1 + rng() % 100000);
    back[k] = rng() % 9 == 0 ? kNaN : static_cast<double>(rng() % 16);  // 8..15: knight's moves
  }
  const std::string lab = dir.file("labels.tif"), bl = dir.file("back.tif"), out = dir.file("o.png");
  testing::write_raster_values(lab, w, h, labels, CellType::UInt32, 0);
  testing::write_raster_values(bl, w, h, back, CellType::UInt8, 255);
  const auto r = render({"--width", "16", "--no-legend", lab, out});  // UInt32: labels (auto)
  EXPECT_EQ(r.kind, RenderKind::Labels);
  Picture p = load(out);
  ASSERT_EQ(p.width, 16u);
  ASSERT_EQ(p.height, 8u);
  for (std::uint32_t j = 0; j < 8; ++j)
    for (std::uint32_t i = 0; i < 16; ++i) {
      const double v = labels[(4 * j + 2) * w + 4 * i + 2];
      if (std::isnan(v)) EXPECT_EQ(p.at(i, j).a, 0);
      else EXPECT_PIXEL(p, i, j, Rgba(categorical_colour(static_cast<std::uint64_t>(v))));
    }
  // Each of the 16 directions has its own colour.
  for (int a = 0; a < 16; ++a)
    for (int b = a + 1; b < 16; ++b) EXPECT_NE(Rgba(direction_colour(a)), Rgba(direction_colour(b))) << a << " " << b;
  // Neighbouring labels never share a colour.
  for (std::uint64_t l = 0; l < 100; ++l) EXPECT_NE(Rgba(categorical_colour(l)), Rgba(categorical_colour(l + 1)));
  // Byte with nodata 255 is ambiguous for auto; --kind backlink colours each direction.
  EXPECT_THROW(render({bl, out}), UsageError);
  render({"--kind", "backlink", "--width", "64", "--no-legend", bl, out});
  p = load(out);
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) {
      const double v = back[y * w + x];
      if (std::isnan(v)) EXPECT_EQ(p.at(x, y).a, 0);
      else EXPECT_PIXEL(p, x, y, Rgba(direction_colour(static_cast<int>(v))));
    }
}

TEST(Render, MstEdgesAsLinesBetweenCellCentres) {
  testing::TempDir dir;
  // 4 x 3 cells: cell (0,0) owns E and S, cell (1,1) owns SE, cell (3,0) owns SW, (3,2) nodata.
  const std::uint64_t w = 4, h = 3;
  std::vector<double> e(w * h, 0.0);
  e[0] = 1 | 4;
  e[1 * w + 1] = 2;
  e[3] = 8;
  e[2 * w + 3] = kNaN;
  const std::string in = dir.file("edges.tif"), out = dir.file("edges.png");
  testing::write_raster_values(in, w, h, e, CellType::UInt8, 255);
  const auto r = render({"--kind", "edges", "--width", "40", "--no-legend", in, out});
  EXPECT_TRUE(r.edge_lines);
  const Picture p = load(out);
  ASSERT_EQ(p.height, 30u);
  const Rgba ink(20, 20, 60), ground(235, 235, 235);
  for (std::uint32_t x = 5; x <= 15; ++x) EXPECT_PIXEL(p, x, 5, ink);   // (0,0) E -> (1,0)
  for (std::uint32_t y = 5; y <= 15; ++y) EXPECT_PIXEL(p, 5, y, ink);   // (0,0) S -> (0,1)
  for (std::uint32_t k = 0; k <= 10; ++k) EXPECT_PIXEL(p, 15 + k, 15 + k, ink);  // (1,1) SE -> (2,2)
  for (std::uint32_t k = 0; k <= 10; ++k) EXPECT_PIXEL(p, 35 - k, 5 + k, ink);   // (3,0) SW -> (2,1)
  EXPECT_PIXEL(p, 25, 5, ground);
  EXPECT_PIXEL(p, 16, 5, ground);
  EXPECT_EQ(p.at(35, 25).a, 0);  // nodata cell
  // Fewer pixels than cells: the owners of an edge, nearest cell per pixel.
  const auto small = render({"--kind", "edges", "--width", "2", "--no-legend", in, out});
  EXPECT_FALSE(small.edge_lines);
}

// The legend of labels: the palette's swatches of labels 1, 2, ... at x = 8 + 16 (L - 1), 12 pixels
// wide, kBarHeight rows from 4 rows under the map, white between them; with more labels than
// swatches, "..." and the largest label after them. Of MST edges: a 16-pixel swatch at x = 8, grey
// with the ink line on its middle row (edges as lines) or all ink (edge cells).
TEST(Render, LegendOfLabelsAndEdges) {
  testing::TempDir dir;
  const std::uint64_t w = 100, h = 20;
  std::vector<double> labels(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) labels[y * w + x] = static_cast<double>(1 + x / 20);  // 1..5
  const std::string lab = dir.file("labels.tif"), out = dir.file("o.png");
  testing::write_raster_values(lab, w, h, labels, CellType::UInt32, 0);
  const auto r = render({"--width", "200", lab, out});
  ASSERT_EQ(r.kind, RenderKind::Labels);
  ASSERT_EQ(r.map_height, 40u);
  Picture p = load(out);
  ASSERT_EQ(p.height, 40u + kPanelHeight);
  const std::uint32_t y0 = 40 + 4;
  for (std::uint64_t label = 1; label <= 5; ++label) {
    const std::uint32_t x0 = static_cast<std::uint32_t>(8 + 16 * (label - 1));
    for (std::uint32_t row = 0; row < static_cast<std::uint32_t>(kBarHeight); ++row)
      for (std::uint32_t k = 0; k < 12; ++k) EXPECT_PIXEL(p, x0 + k, y0 + row, Rgba(categorical_colour(label)));
    EXPECT_PIXEL(p, x0 + 12, y0, Rgba(255, 255, 255));  // the gap
    // The label's number under its swatch: the font's glyph pixels in black.
    Image expected(16, kGlyphHeight, Rgba(255, 255, 255));
    draw_text(expected, 0, 0, std::to_string(label), Rgba(0, 0, 0));
    for (int gy = 0; gy < kGlyphHeight; ++gy)
      for (int gx = 0; gx < kGlyphWidth; ++gx) {
        const Rgba e = expected.get(gx, gy);
        EXPECT_PIXEL(p, x0 + gx, y0 + kBarHeight + 3 + gy, e);
      }
  }
  EXPECT_PIXEL(p, 8 + 16 * 5, y0, Rgba(255, 255, 255));  // no sixth swatch: label 5 is the largest
  // 40 labels: 12 swatches and "...40" after them (x = 200 + 29 pixels <= 480 / 2).
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) labels[y * w + x] = static_cast<double>(1 + (y * w + x) % 40);
  testing::write_raster_values(lab, w, h, labels, CellType::UInt32, 0);
  render({"--width", "480", lab, out});
  p = load(out);
  const std::uint32_t y1 = 96 + 4;
  EXPECT_PIXEL(p, 8 + 16 * 11, y1, Rgba(categorical_colour(12)));
  EXPECT_PIXEL(p, 8 + 16 * 12, y1, Rgba(255, 255, 255));
  Image more(64, kGlyphHeight, Rgba(255, 255, 255));
  draw_text(more, 0, 0, "...40", Rgba(0, 0, 0));
  for (int gy = 0; gy < kGlyphHeight; ++gy)
    for (int gx = 0; gx < text_width("...40"); ++gx) EXPECT_PIXEL(p, 8 + 16 * 12 + gx, y1 + kBarHeight + 3 + gy, more.get(gx, gy));

  // Edges: 4 x 3 cells drawn as lines, then 200 x 150 cells as edge cells; 160 pixels wide (the
  // label, 59 pixels from x = 8, fits the left half).
  std::vector<double> e(4 * 3, 1.0);
  const std::string edges = dir.file("edges.tif");
  testing::write_raster_values(edges, 4, 3, e, CellType::UInt8, 255);
  const auto lines = render({"--kind", "edges", "--width", "160", edges, out});
  ASSERT_TRUE(lines.edge_lines);
  p = load(out);
  const Rgba ink(20, 20, 60), ground(235, 235, 235);
  for (std::uint32_t row = 0; row < static_cast<std::uint32_t>(kBarHeight); ++row)
    for (std::uint32_t k = 0; k < 16; ++k)
      EXPECT_PIXEL(p, 8 + k, 120 + 4 + row, row == static_cast<std::uint32_t>(kBarHeight) / 2 ? ink : ground);
  EXPECT_PIXEL(p, 8 + 16, 120 + 4, Rgba(255, 255, 255));
  Image words(64, kGlyphHeight, Rgba(255, 255, 255));
  draw_text(words, 0, 0, "tree edges", Rgba(0, 0, 0));
  EXPECT_EQ(words.get(1, 0), Rgba(0, 0, 0));  // 't' has a pixel at (1, 0)
  for (int gy = 0; gy < kGlyphHeight; ++gy)
    for (int gx = 0; gx < text_width("tree edges"); ++gx) EXPECT_PIXEL(p, 8 + gx, 120 + 4 + kBarHeight + 3 + gy, words.get(gx, gy));
  std::vector<double> big(200 * 150, 1.0);
  testing::write_raster_values(edges, 200, 150, big, CellType::UInt8, 255);
  const auto cells = render({"--kind", "edges", "--width", "160", edges, out});
  ASSERT_FALSE(cells.edge_lines);
  p = load(out);
  for (std::uint32_t row = 0; row < static_cast<std::uint32_t>(kBarHeight); ++row)
    for (std::uint32_t k = 0; k < 16; ++k) EXPECT_PIXEL(p, 8 + k, 120 + 4 + row, ink);
}

TEST(Render, FlatDemIsShadedByTheSunAt45Degrees) {
  testing::TempDir dir;
  const std::uint64_t w = 20, h = 10;
  std::vector<double> flat(w * h, 250.0), tilted(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) tilted[y * w + x] = 10.0 * (static_cast<double>(x) + static_cast<double>(y));
  const std::string a = dir.file("flat.tif"), b = dir.file("tilted.tif"), out = dir.file("o.png");
  testing::write_raster_values(a, w, h, flat, CellType::Float32, -9999, utm(0, 0, 10));
  testing::write_raster_values(b, w, h, tilted, CellType::Float32, -9999, utm(0, 0, 10));
  render({"--width", "20", "--no-legend", a, out});
  const Picture p = load(out);
  const Rgba want(shade(terrain_colour(0), 0.3 + 0.7 * static_cast<float>(std::cos(3.14159265358979323846 / 4))));
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) EXPECT_PIXEL(p, x, y, want);
  // A plane rising to the south-east faces the north-west sun: brighter than flat; the opposite
  // plane is darker; the hillshade of both, away from the border, is the same everywhere.
  const auto lit = hillshade(tilted, w, h, 10, 10);
  std::vector<double> away(w * h);
  for (std::size_t k = 0; k < away.size(); ++k) away[k] = -tilted[k];
  const auto dark = hillshade(away, w, h, 10, 10);
  const float level = static_cast<float>(std::cos(3.14159265358979323846 / 4));
  for (std::uint32_t y = 1; y + 1 < h; ++y)
    for (std::uint32_t x = 1; x + 1 < w; ++x) {
      EXPECT_GT(lit[y * w + x], level);
      EXPECT_LT(dark[y * w + x], level);
      EXPECT_EQ(lit[y * w + x], lit[w + 1]);
    }
  // Slope atan(sqrt(2)) towards the sun: cos(45) cos(s) + sin(45) sin(s) = cos(45 - s) degrees.
  const double s = std::atan(std::sqrt(2.0));
  EXPECT_NEAR(lit[w + 1], std::cos(3.14159265358979323846 / 4 - s), 1e-6);
}

TEST(Render, PictureSizeFromWidthAndAspect) {
  testing::TempDir dir;
  const std::uint64_t w = 300, h = 100;
  const std::string in = dir.file("wide.tif"), out = dir.file("wide.png");
  testing::write_raster_values(in, w, h, std::vector<double>(w * h, 1.0), CellType::Float32, -9999);
  struct Case {
    std::vector<std::string> args;
    std::uint32_t width, height;
  };
  for (const Case& c : {Case{{"--width", "150"}, 150, 50 + kPanelHeight}, Case{{"--width", "150", "--no-legend"}, 150, 50},
                        Case{{"--width", "7", "--no-legend"}, 7, 2}, Case{{"--width", "1", "--no-legend"}, 1, 1},
                        Case{{"--width", "900", "--no-legend"}, 900, 300}, Case{{"--no-legend"}, 1024, 341}}) {
    std::vector<std::string> args = c.args;
    args.push_back(in);
    args.push_back(out);
    const auto r = render(args);
    EXPECT_EQ(r.width, c.width);
    EXPECT_EQ(r.height, c.height);
    const Picture p = load(out);
    EXPECT_EQ(p.width, c.width);
    EXPECT_EQ(p.height, c.height);
  }
}

TEST(Render, RealDemAndTileStoreRead) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif", out = dir.file("dem.png");
  const auto r = render({"--width", "120", dem, out});
  EXPECT_EQ(r.kind, RenderKind::Dem);
  EXPECT_TRUE(r.read_by_gdal);
  EXPECT_GT(r.scale_bar_pixels, 0);  // geographic: degrees
  const Picture p = load(out);
  EXPECT_EQ(p.width, 120u);
  EXPECT_EQ(p.height, static_cast<std::uint32_t>(std::llround(120.0 * 359 / 367)) + kPanelHeight);
  // Transparent exactly where the average over the pixel's box has no valid cell.
  MemoryBudget budget(64ull << 20);
  const DecimatedRaster grid = read_decimated(dem, 0, 120, r.map_height, Resampling::Average, budget, Progress::silent());
  for (std::uint32_t y = 0; y < r.map_height; ++y)
    for (std::uint32_t x = 0; x < 120; ++x) EXPECT_EQ(p.at(x, y).a, std::isnan(grid.cells[y * 120 + x]) ? 0 : 255);
  // The gzip ASCII grid goes through terrazo's row reader: nearest equals the plain grid's via GDAL.
  const std::string gz = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc.gz";
  const std::string asc = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc";
  const DecimatedRaster a = read_decimated(gz, 0, 37, 23, Resampling::Nearest, budget, Progress::silent());
  const DecimatedRaster b = read_decimated(asc, 0, 37, 23, Resampling::Nearest, budget, Progress::silent());
  EXPECT_FALSE(a.via_gdal);
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t k = 0; k < a.cells.size(); ++k) {
    if (std::isnan(b.cells[k])) EXPECT_TRUE(std::isnan(a.cells[k])) << k;
    else EXPECT_EQ(a.cells[k], b.cells[k]) << k;
  }
}

// The README's MST picture (datasets/make_readme_pictures.sh, its second command pair) made again
// here equals the committed docs/img/mst_hugo_site.png byte for byte: the picture is reproducible by
// its command (the cost picture's 13 M-cell cost run is too long for the suite; the script makes it).
TEST(Render, ReadmeMstPictureIsReproducible) {
  testing::TempDir dir;
  const std::string root = std::string(TERRAZO_DATASETS) + "/..";
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc", edges = dir.file("edges.tif");
  run_mst_command(parse_mst_options({"-q", dem, edges}), Progress::silent());
  const std::string out = dir.file("mst_hugo_site.png");
  render({"-q", "--kind", "edges", "--terrain", dem, "--width", "608", edges, out});
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string committed = bytes(root + "/docs/img/mst_hugo_site.png");
  ASSERT_FALSE(committed.empty());
  EXPECT_TRUE(bytes(out) == committed) << "docs/img/mst_hugo_site.png differs from `terrazo render` of it: run "
                                          "datasets/make_readme_pictures.sh";
}

TEST(Render, TileStoreReadByRowsEqualsReferenceBoxes) {
  testing::TempDir dir;
  const std::uint64_t w = 150, h = 70;  // 3 x 2 tiles of 64, the last ones partial
  std::vector<double> v(w * h);
  std::mt19937_64 rng(5);
  for (auto& x : v) x = rng() % 8 == 0 ? kNaN : static_cast<double>(rng() % 1000) / 4;
  const std::string tif = dir.file("random.tif"), tzs = dir.file("random.tzs");
  testing::write_raster_values(tif, w, h, v, CellType::Float32, -9999);
  MemoryBudget budget(64ull << 20);
  ImportOptions import;
  import.input = tif;
  import.output = tzs;
  import.tile = 64;
  run_import(import, budget, Progress::silent());
  // Fractional factors (150 -> 40 columns, 70 -> 17 rows) and an upsampling (70 -> 90 rows).
  for (auto [ow, oh] : {std::pair<std::uint32_t, std::uint32_t>{40, 17}, {150, 90}, {7, 3}}) {
    const DecimatedRaster avg = read_decimated(tzs, 0, ow, oh, Resampling::Average, budget, Progress::silent());
    const DecimatedRaster near = read_decimated(tzs, 0, ow, oh, Resampling::Nearest, budget, Progress::silent());
    EXPECT_FALSE(avg.via_gdal);
    for (std::uint32_t j = 0; j < oh; ++j)
      for (std::uint32_t i = 0; i < ow; ++i) {
        const std::uint64_t x0 = i * w / ow, x1 = std::max<std::uint64_t>(x0 + 1, (i + 1) * w / ow);
        const std::uint64_t y0 = j * h / oh, y1 = std::max<std::uint64_t>(y0 + 1, (j + 1) * h / oh);
        double sum = 0;
        int n = 0;
        for (std::uint64_t y = y0; y < y1; ++y)
          for (std::uint64_t x = x0; x < x1; ++x)
            if (!std::isnan(v[y * w + x])) sum += v[y * w + x], ++n;
        const double got = avg.cells[j * ow + i];
        if (n == 0) EXPECT_TRUE(std::isnan(got));
        else EXPECT_DOUBLE_EQ(got, sum / n) << ow << "x" << oh << ": " << i << "," << j;
        const std::uint64_t nx = static_cast<std::uint64_t>((i + 0.5) * w / ow), ny = static_cast<std::uint64_t>((j + 0.5) * h / oh);
        const double want = v[ny * w + nx];
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(near.cells[j * ow + i]));
        else EXPECT_EQ(near.cells[j * ow + i], want) << ow << "x" << oh << ": " << i << "," << j;
      }
  }
}

TEST(Render, BadInputIsRefused) {
  testing::TempDir dir;
  const std::string in = dir.file("in.tif"), out = dir.file("o.png"), small = dir.file("small.tif");
  testing::write_raster_values(in, 20, 10, std::vector<double>(200, 1.0), CellType::Float32, -1);
  testing::write_raster_values(small, 5, 5, std::vector<double>(25, 1.0), CellType::Float32, -9999);
  write_text(dir.file("junk.geojson"), "this is not json");
  EXPECT_THROW(parse_render_options({in, dir.file("o.jpg")}), UsageError);
  EXPECT_THROW(parse_render_options({"--width", "0", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--width", "20000", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--kind", "pretty", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--range", "5,1", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--range", "5", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--contours", "-1", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--colour-map", "jet", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--source", "1;2", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({"--frobnicate", in, out}), UsageError);
  EXPECT_THROW(parse_render_options({in}), UsageError);
  EXPECT_THROW(render({dir.file("missing.tif"), out}), Error);
  EXPECT_THROW(render({"--terrain", small, in, out}), UsageError);
  EXPECT_THROW(render({"--paths", dir.file("junk.geojson"), in, out}), UsageError);
  EXPECT_THROW(render({"--source", "50,2", in, out}), UsageError);  // outside the raster
  testing::write_raster_values(dir.file("tall.tif"), 10, 100, std::vector<double>(1000, 1.0), CellType::Float32, -9999);
  EXPECT_THROW(render({"--width", "2000", "--no-legend", dir.file("tall.tif"), out}), UsageError);  // 20000 rows
  EXPECT_THROW(render({in, in + ".png", "--memory", "1K"}), Error);  // budget too small
  // Nothing was published and no partial file is left.
  EXPECT_FALSE(std::ifstream(out).good());
  EXPECT_TRUE(testing::partial_files_of(out).empty());
  EXPECT_NE(std::string(render_usage()).find("Usage: terrazo render"), std::string::npos);
}

}  // namespace
}  // namespace terrazo
