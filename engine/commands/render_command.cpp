// engine/commands/render_command.cpp: parse_render_options, render_usage, run_render_command (engine/commands/render_command.h).
#include "engine/commands/render_command.h"

#include <gdal.h>
#include <ogr_srs_api.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "engine/commands/command_result.h"
#include "engine/commands/output_paths.h"
#include "engine/render/colormaps.h"
#include "engine/render/contours.h"
#include "engine/render/hillshade.h"
#include "engine/render/image.h"
#include "engine/render/legend.h"
#include "engine/render/line.h"
#include "kernels/common/enum_names.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/timer.h"
#include "io/gdal/decimated_read.h"
#include "io/gdal/gdal_session.h"
#include "io/gdal/png_writer.h"
#include "io/gdal/vector_lines.h"

namespace terrazo {

namespace {

bool ends_with_png(const std::string& path) { return file_extension(path) == ".png"; }

constexpr EnumName<RenderKind> kRenderKindNames[] = {
    {RenderKind::Auto, "auto"},         {RenderKind::Dem, "dem"},       {RenderKind::Cost, "cost"},
    {RenderKind::Backlink, "backlink"}, {RenderKind::Labels, "labels"}, {RenderKind::Edges, "edges"}};

RenderKind parse_kind(const std::string& text) { return parse_named(kRenderKindNames, "--kind", text); }

RenderKind resolve_kind(RenderKind asked, const RasterInfo& info, const std::string& input) {
  if (asked != RenderKind::Auto) return asked;
  if (info.type == CellType::UInt32) return RenderKind::Labels;
  if (info.type == CellType::UInt8 && info.has_nodata && info.nodata == 255)
    throw UsageError("--kind auto: '" + input +
                     "' is a Byte raster with nodata 255, a backlink or an MST edge raster: give --kind backlink "
                     "or --kind edges");
  if ((info.type == CellType::Float32 || info.type == CellType::Float64) && info.has_nodata && info.nodata == -1)
    return RenderKind::Cost;
  return RenderKind::Dem;
}

struct Georef {
  bool geographic = false;
  std::string units;  // of the scale bar: "m", "ft", "deg", or "" (unknown: the number alone)
};

Georef describe_crs(const RasterInfo& info) {
  Georef g;
  if (!info.has_geotransform) return g;
  if (info.crs_wkt.empty()) return g;
  ensure_gdal();
  OGRSpatialReferenceH srs = OSRNewSpatialReference(info.crs_wkt.c_str());
  if (srs) {
    if (OSRIsGeographic(srs)) {
      g.geographic = true;
      g.units = "deg";
    } else {
      char* name = nullptr;
      const double to_metre = OSRGetLinearUnits(srs, &name);
      if (std::fabs(to_metre - 1.0) < 1e-9) g.units = "m";
      else if (std::fabs(to_metre - 0.3048) < 1e-4) g.units = "ft";
    }
    OSRDestroySpatialReference(srs);
  }
  return g;
}

bool same_crs(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return true;
  OGRSpatialReferenceH x = OSRNewSpatialReference(a.c_str()), y = OSRNewSpatialReference(b.c_str());
  const bool same = x && y && OSRIsSame(x, y);
  if (x) OSRDestroySpatialReference(x);
  if (y) OSRDestroySpatialReference(y);
  return same;
}

// Ground spacing of the picture's grid in metres (geographic: degrees at the raster's middle
// latitude), for the hillshade.
void ground_spacing(const RasterInfo& info, const Georef& georef, std::uint32_t out_w, std::uint32_t out_h, double* dx,
                    double* dy) {
  double cx = 1, cy = 1;
  if (info.has_geotransform) {
    cx = std::hypot(info.geotransform[1], info.geotransform[4]);
    cy = std::hypot(info.geotransform[2], info.geotransform[5]);
    if (georef.geographic) {
      const double lat = info.geotransform[3] + info.geotransform[5] * info.height / 2.0;
      cx *= 111320.0 * std::cos(lat * 3.14159265358979323846 / 180.0);
      cy *= 110540.0;
    }
  }
  *dx = cx * static_cast<double>(info.width) / out_w;
  *dy = cy * static_cast<double>(info.height) / out_h;
}

// MST edges: the ink of the tree edges and the grey of the valid cells under them (legend alike).
constexpr Rgb kEdgeBackground{235, 235, 235};
constexpr Rgba kEdgeInk(20, 20, 60);

std::pair<double, double> value_range(const std::vector<double>& v) {
  double lo = 0, hi = 0;
  bool any = false;
  for (double x : v)
    if (!std::isnan(x)) {
      if (!any || x < lo) lo = x;
      if (!any || x > hi) hi = x;
      any = true;
    }
  return {lo, hi};
}

}  // namespace

const char* to_string(RenderKind kind) { return name_of(kRenderKindNames, kind); }

RenderCommandOptions parse_render_options(const std::vector<std::string>& arguments) {
  ArgParser args("render", arguments);
  RenderCommandOptions o;
  o.common = parse_common_options(args);
  o.band = parse_band_option(args);
  if (auto k = args.value("--kind")) o.kind = parse_kind(*k);
  if (auto w = args.int_value("--width")) {
    if (*w < 1 || *w > 16384) throw UsageError("--width " + std::to_string(*w) + ": expected 1..16384 pixels");
    o.width = static_cast<std::uint32_t>(*w);
  }
  if (auto t = args.value("--terrain")) o.terrain = *t;
  o.paths = args.values("--paths");
  for (const std::string& text : args.values("--source")) o.sources.push_back(parse_source_point(text, "--source"));
  for (const std::string& text : args.values("--sources")) o.sources.push_back(parse_source_point(text, "--sources"));
  o.map_coords = args.flag("--map-coords");
  if (auto c = args.int_value("--contours")) {
    if (*c < 0 || *c > 1000) throw UsageError("--contours " + std::to_string(*c) + ": expected 0..1000 levels");
    o.contours = static_cast<unsigned>(*c);
  }
  if (auto r = args.value("--range")) {
    const std::size_t comma = r->find(',');
    if (comma == std::string::npos) throw UsageError("--range '" + *r + "': expected MIN,MAX");
    o.range_lo = parse_finite_double("--range", r->substr(0, comma));
    o.range_hi = parse_finite_double("--range", r->substr(comma + 1));
    if (!(*o.range_hi > *o.range_lo)) throw UsageError("--range '" + *r + "': MAX must be greater than MIN");
  }
  if (auto m = args.value("--colour-map")) {
    if (*m == "magma") o.magma = true;
    else if (*m != "viridis") throw UsageError("--colour-map '" + *m + "': expected viridis or magma");
  }
  o.legend = !args.flag("--no-legend");
  const auto files = args.positionals(2, 2, "INPUT OUT.png");
  o.input = files[0];
  o.output = files[1];
  if (!ends_with_png(o.output)) throw UsageError("OUT.png '" + o.output + "': the picture is a PNG, name it *.png");
  return o;
}

namespace {

// The picture's map and the cells drawn on it: the map is out_w x out_h pixels above the legend
// panel; the cells are read at the map's size (average for the continuous kinds, nearest for the
// categorical ones), or at the raster's own size for MST edges drawn as lines (edge_lines).
struct RenderCanvas {
  RasterInfo info;
  std::uint32_t out_w = 0, out_h = 0;
  bool continuous = false;
  bool edge_lines = false;
  std::uint32_t grid_w = 0, grid_h = 0;
  DecimatedRaster grid;
  Georef georef;
};

// The hillshade under the colours: of INPUT for a DEM, of --terrain for the other kinds (empty:
// none), and --terrain at the picture's size with its value range (edges: its colours under the tree).
struct RenderShading {
  std::vector<float> shading;
  DecimatedRaster terrain;
  double terrain_lo = 0, terrain_hi = 0;

  // The brightness of pixel k: 1 without a hillshade, else from `floor_share` (fully shaded) to 1.
  double at(std::size_t k, double floor_share) const {
    if (shading.empty() || std::isnan(shading[k])) return 1.0;
    return floor_share + (1.0 - floor_share) * shading[k];
  }
};

// The input and output files exist (or can be written) and are distinct.
void check_render_paths(const RenderCommandOptions& options) {
  check_input_file(options.input);
  if (!options.terrain.empty()) check_input_file(options.terrain);
  for (const std::string& p : options.paths) check_input_file(p);
  check_output_file(options.output, {options.input});
  std::vector<NamedPath> inputs{{"INPUT", options.input}, {"--terrain", options.terrain}};
  for (const std::string& p : options.paths) inputs.push_back({"--paths", p});
  check_distinct_paths(inputs, {{"OUT.png", options.output}});
}

// Everything render holds at once, checked before any cell is read: the picture with its shading
// and contour mask, the grid read from INPUT and --terrain's (8 bytes a cell each), and the least a
// read needs beside them (GDAL's cache of 1 MiB; a row of INPUT, 8 bytes a column, through a terrazo
// tile store). A budget that cannot hold them is refused naming each, the --memory that would and the
// --width remedy.
void check_render_plan(const RenderCommandResult& r, std::uint64_t grid_w, std::uint64_t grid_h, bool terrain,
                       std::uint64_t input_width, const MemoryBudget& budget) {
  const std::uint64_t map_cells = static_cast<std::uint64_t>(r.width) * r.map_height;
  const std::uint64_t picture = static_cast<std::uint64_t>(r.width) * r.height * 4 + map_cells * 5;
  const std::uint64_t grids = grid_w * grid_h * 8 + (terrain ? map_cells * 8 : 0);
  const std::uint64_t reading = std::max<std::uint64_t>(1ull << 20, input_width * 8 + grid_w * 16);
  const std::uint64_t need = picture + grids + reading;
  if (need <= budget.available()) return;
  const std::uint64_t held = budget.total() - budget.available();
  throw BudgetError("memory budget too small for render: a " + std::to_string(r.width) + " x " +
                    std::to_string(r.height) + " picture needs " + MemoryBudget::format_size(need) + " (picture, shading and contours " +
                    MemoryBudget::format_size(picture) + ", grids read from the raster" + (terrain ? "s " : " ") +
                    MemoryBudget::format_size(grids) + ", reading " + MemoryBudget::format_size(reading) + ") but only " +
                    MemoryBudget::format_size(budget.available()) + " of --memory " +
                    MemoryBudget::format_size(budget.total()) + " is left; raise --memory to " +
                    MemoryBudget::format_size(held + need) + " at least or give a smaller --width");
}

// The picture's size: --width pixels wide, the raster's aspect ratio (at most 16384 rows), the
// legend panel below; the picture, hillshade and contour mask reserved.
MemoryBudget::Reservation size_picture(const RenderCommandOptions& options, MemoryBudget& budget, RenderCanvas& canvas,
                                       RenderCommandResult& r) {
  const RasterInfo& info = canvas.info;
  const std::uint32_t out_w = options.width;
  const double exact_h = static_cast<double>(out_w) * info.height / info.width;
  if (exact_h > 16384)
    throw UsageError("--width " + std::to_string(out_w) + ": the map would be " + std::to_string(std::llround(exact_h)) +
                     " rows high (the raster is " + std::to_string(info.width) + " x " + std::to_string(info.height) +
                     "); at most 16384: give a smaller --width");
  const std::uint32_t out_h = static_cast<std::uint32_t>(std::max<long long>(1, std::llround(exact_h)));
  canvas.out_w = out_w;
  canvas.out_h = out_h;
  r.map_height = out_h;
  r.width = out_w;
  r.height = out_h + (options.legend ? kPanelHeight : 0);
  // The grid read from INPUT: every cell for edges drawn as lines, else the picture's size.
  canvas.edge_lines = r.kind == RenderKind::Edges && out_w >= info.width && out_h >= info.height;
  canvas.grid_w = canvas.edge_lines ? static_cast<std::uint32_t>(info.width) : out_w;
  canvas.grid_h = canvas.edge_lines ? static_cast<std::uint32_t>(info.height) : out_h;
  check_render_plan(r, canvas.grid_w, canvas.grid_h, r.kind != RenderKind::Dem && !options.terrain.empty(), info.width,
                    budget);
  return budget.reserve(static_cast<std::uint64_t>(r.width) * r.height * 4 + static_cast<std::uint64_t>(out_w) * out_h * 5,
                        "render: picture, hillshade, contour mask");
}

// INPUT's cells at the canvas's grid size.
void read_cells(const RenderCommandOptions& options, MemoryBudget& budget, Progress& progress, RenderCanvas& canvas,
                RenderCommandResult& r) {
  const RasterInfo& info = canvas.info;
  canvas.continuous = r.kind == RenderKind::Dem || r.kind == RenderKind::Cost;
  const Resampling resampling = canvas.continuous ? Resampling::Average : Resampling::Nearest;
  r.resampling = canvas.continuous ? "average" : "nearest";
  r.edge_lines = canvas.edge_lines;
  canvas.grid = read_decimated(options.input, options.band, canvas.grid_w, canvas.grid_h, resampling, budget, progress);
  r.read_by_gdal = canvas.grid.via_gdal;
  canvas.georef = describe_crs(info);
}

// The hillshade of INPUT (a DEM) or of --terrain, which must be INPUT's size.
RenderShading shade_terrain(const RenderCommandOptions& options, const RenderCanvas& canvas, RenderKind kind,
                            MemoryBudget& budget, Progress& progress) {
  RenderShading s;
  if (kind != RenderKind::Dem && options.terrain.empty()) return s;
  const RasterInfo& info = canvas.info;
  double dx, dy;
  ground_spacing(info, canvas.georef, canvas.out_w, canvas.out_h, &dx, &dy);
  if (kind == RenderKind::Dem) {
    s.shading = hillshade(canvas.grid.cells, canvas.out_w, canvas.out_h, dx, dy);
    return s;
  }
  const RasterInfo t = probe_raster(options.terrain, 0, budget);
  if (t.width != info.width || t.height != info.height)
    throw UsageError("--terrain " + options.terrain + " is " + std::to_string(t.width) + " x " +
                     std::to_string(t.height) + " cells, INPUT is " + std::to_string(info.width) + " x " +
                     std::to_string(info.height) + ": give the DEM INPUT was computed from");
  s.terrain = read_decimated(options.terrain, 0, canvas.out_w, canvas.out_h, Resampling::Average, budget, progress);
  s.shading = hillshade(s.terrain.cells, canvas.out_w, canvas.out_h, dx, dy);
  std::tie(s.terrain_lo, s.terrain_hi) = value_range(s.terrain.cells);
  return s;
}

// DEM and cost: colours over the value range (--range, else the cells'), hillshaded, and contours
// (--contours levels; cost: 10 by default).
void draw_continuous(const RenderCommandOptions& options, const RenderCanvas& canvas, const RenderShading& shading,
                     ColourMap cmap, Image& image, RenderCommandResult& r) {
  const std::uint32_t out_w = canvas.out_w, out_h = canvas.out_h;
  const std::vector<double>& cells = canvas.grid.cells;
  const auto range = value_range(cells);
  r.lo = options.range_lo ? *options.range_lo : range.first;
  r.hi = options.range_hi ? *options.range_hi : range.second;
  r.has_range = true;
  for (std::uint32_t y = 0; y < out_h; ++y)
    for (std::uint32_t x = 0; x < out_w; ++x) {
      const std::size_t k = static_cast<std::size_t>(y) * out_w + x;
      const double v = cells[k];
      if (std::isnan(v)) continue;
      Rgb c;
      if (r.kind == RenderKind::Cost) {
        c = shade(colour_map(cmap, colour_map_index(v, r.lo, r.hi)), shading.at(k, 0.45));
      } else {
        const double t = r.hi > r.lo ? (v - r.lo) / (r.hi - r.lo) : 0.0;
        c = shade(terrain_colour(t), shading.at(k, 0.3));
      }
      image.set(x, y, Rgba(c));
    }
  const unsigned levels = options.contours ? *options.contours : (r.kind == RenderKind::Cost ? 10u : 0u);
  r.contour_interval = nice_interval(r.lo, r.hi, levels);
  if (r.contour_interval > 0) {
    const auto mask = contour_mask(cells, out_w, out_h, r.contour_interval);
    for (std::uint32_t y = 0; y < out_h; ++y)
      for (std::uint32_t x = 0; x < out_w; ++x)
        if (mask[static_cast<std::size_t>(y) * out_w + x]) image.blend(x, y, Rgba(0, 0, 0), 0.6);
  }
}

// Backlinks (a colour per direction) and labels (a colour per label); returns the largest label
// drawn (its legend; 0 for backlinks or none).
std::uint64_t draw_categories(const RenderCanvas& canvas, const RenderShading& shading, RenderKind kind, Image& image) {
  std::uint64_t max_label = 0;
  if (kind == RenderKind::Labels) {
    const double top = value_range(canvas.grid.cells).second;  // the largest label drawn (NaN: none)
    max_label = top >= 1 ? static_cast<std::uint64_t>(top) : 0;
  }
  for (std::uint32_t y = 0; y < canvas.out_h; ++y)
    for (std::uint32_t x = 0; x < canvas.out_w; ++x) {
      const std::size_t k = static_cast<std::size_t>(y) * canvas.out_w + x;
      const double v = canvas.grid.cells[k];
      if (std::isnan(v)) continue;
      Rgb c;
      if (kind == RenderKind::Backlink) c = (v >= 0 && v <= 15) ? direction_colour(static_cast<int>(v)) : Rgb{128, 128, 128};
      else c = categorical_colour(v >= 0 ? static_cast<std::uint64_t>(v) : 0);
      image.set(x, y, Rgba(shade(c, shading.at(k, 0.45))));
    }
  return max_label;
}

// MST edges: the background (the valid cells in light grey, or in the terrain colours of --terrain
// under its hillshade; nodata transparent), then the tree: lines between cell centres when the
// picture has a pixel per cell or more, else the pixels of cells with an edge.
void draw_edges(const RenderCanvas& canvas, const RenderShading& shading, Image& image) {
  const RasterInfo& info = canvas.info;
  const std::uint32_t out_w = canvas.out_w, out_h = canvas.out_h, grid_w = canvas.grid_w, grid_h = canvas.grid_h;
  const bool edge_lines = canvas.edge_lines;
  const std::vector<double>& cells = canvas.grid.cells;
  const std::vector<double>& terrain = shading.terrain.cells;
  for (std::uint32_t y = 0; y < out_h; ++y)
    for (std::uint32_t x = 0; x < out_w; ++x) {
      const std::size_t k = static_cast<std::size_t>(y) * out_w + x;
      const std::uint64_t cx = edge_lines ? static_cast<std::uint64_t>(x) * info.width / out_w : x;
      const std::uint64_t cy = edge_lines ? static_cast<std::uint64_t>(y) * info.height / out_h : y;
      const double v = cells[static_cast<std::size_t>(cy) * grid_w + cx];
      if (std::isnan(v)) continue;
      if (terrain.empty() || std::isnan(terrain[k])) {
        image.set(x, y, Rgba(shade(kEdgeBackground, shading.at(k, 0.45))));
      } else {
        const double lo = shading.terrain_lo, hi = shading.terrain_hi;
        const double t = hi > lo ? (terrain[k] - lo) / (hi - lo) : 0.0;
        image.set(x, y, Rgba(shade(terrain_colour(t), shading.at(k, 0.3))));
      }
    }
  const Rgba ink = kEdgeInk;
  if (!edge_lines) {
    for (std::uint32_t y = 0; y < out_h; ++y)
      for (std::uint32_t x = 0; x < out_w; ++x) {
        const double v = cells[static_cast<std::size_t>(y) * out_w + x];
        if (!std::isnan(v) && (static_cast<unsigned>(v) & 15u) != 0) image.set(x, y, ink);
      }
    return;
  }
  const double sx = static_cast<double>(out_w) / info.width, sy = static_cast<double>(out_h) / info.height;
  static const int kDx[4] = {1, 1, 0, -1}, kDy[4] = {0, 1, 1, 1};
  for (std::uint32_t y = 0; y < grid_h; ++y)
    for (std::uint32_t x = 0; x < grid_w; ++x) {
      const double v = cells[static_cast<std::size_t>(y) * grid_w + x];
      if (std::isnan(v)) continue;
      const unsigned bits = static_cast<unsigned>(v);
      for (int d = 0; d < 4; ++d)
        if (bits & (1u << d)) {
          const std::int64_t x0 = static_cast<std::int64_t>((x + 0.5) * sx), y0 = static_cast<std::int64_t>((y + 0.5) * sy);
          const std::int64_t x1 = static_cast<std::int64_t>((x + kDx[d] + 0.5) * sx);
          const std::int64_t y1 = static_cast<std::int64_t>((y + kDy[d] + 0.5) * sy);
          draw_line(image, x0, y0, x1, y1, ink);
        }
    }
}

// --paths: the lines of each file (INPUT's CRS), from map coordinates to picture pixels, drawn
// white under red.
void draw_paths(const RenderCommandOptions& options, const RenderCanvas& canvas, Image& image, RenderCommandResult& r) {
  if (options.paths.empty()) return;
  const RasterInfo& info = canvas.info;
  const double px_per_col = static_cast<double>(canvas.out_w) / info.width;
  const double px_per_row = static_cast<double>(canvas.out_h) / info.height;
  double inv[6];
  if (info.has_geotransform) {
    if (!GDALInvGeoTransform(const_cast<double*>(info.geotransform.data()), inv))
      throw UsageError("--paths: INPUT's geotransform cannot be inverted");
  } else {
    inv[0] = 0, inv[1] = 1, inv[2] = 0, inv[3] = 0, inv[4] = 0, inv[5] = 1;
  }
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> drawn;
  for (const std::string& file : options.paths) {
    const VectorLines lines = read_vector_lines(file, "--paths");
    if (!same_crs(lines.crs_wkt, info.crs_wkt))
      throw UsageError("--paths " + file + " is in another CRS than INPUT: reproject it first (ogr2ogr -t_srs)");
    r.path_features_skipped += lines.skipped;
    for (const auto& line : lines.lines) {
      std::vector<std::pair<std::int64_t, std::int64_t>> pixels;
      for (const auto& [mx, my] : line) {
        const double col = inv[0] + inv[1] * mx + inv[2] * my, row = inv[3] + inv[4] * mx + inv[5] * my;
        pixels.emplace_back(static_cast<std::int64_t>(std::floor(col * px_per_col)),
                            static_cast<std::int64_t>(std::floor(row * px_per_row)));
      }
      drawn.push_back(std::move(pixels));
    }
  }
  r.path_lines = drawn.size();
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& pixels : drawn)
      for (std::size_t k = 0; k + 1 < pixels.size() || (k == 0 && pixels.size() == 1); ++k) {
        const auto a = pixels[k], b = pixels[std::min(k + 1, pixels.size() - 1)];
        if (pass == 0) draw_line(image, a.first, a.second, b.first, b.second, Rgba(255, 255, 255), 4);
        else draw_line(image, a.first, a.second, b.first, b.second, Rgba(220, 20, 20), 2);
      }
}

// --source points: a marker at each source cell's centre.
void draw_sources(const RenderCommandOptions& options, const RenderCanvas& canvas, Image& image, RenderCommandResult& r) {
  if (options.sources.empty()) return;
  const RasterInfo& info = canvas.info;
  const double px_per_col = static_cast<double>(canvas.out_w) / info.width;
  const double px_per_row = static_cast<double>(canvas.out_h) / info.height;
  std::string crs;
  const auto cells = locate_source_points(options.sources, info, options.map_coords, crs, 1, "--source");
  for (const SourceCell& s : cells) {
    const std::uint64_t cx = s.cell % info.width, cy = s.cell / info.width;
    draw_source_marker(image, static_cast<std::int64_t>((cx + 0.5) * px_per_col),
                       static_cast<std::int64_t>((cy + 0.5) * px_per_row));
  }
  r.sources = cells.size();
}

// The legend panel below the map: the kind's legend, and a scale bar on a georeferenced raster.
void draw_legend(const RenderCanvas& canvas, ColourMap cmap, std::uint64_t max_label, Image& image,
                 RenderCommandResult& r) {
  const RasterInfo& info = canvas.info;
  const std::uint32_t out_h = canvas.out_h;
  if (r.kind == RenderKind::Cost) draw_colour_bar(image, out_h, cmap, r.lo, r.hi);
  else if (r.kind == RenderKind::Dem) draw_terrain_bar(image, out_h, r.lo, r.hi);
  else if (r.kind == RenderKind::Backlink) draw_direction_legend(image, out_h);
  else if (r.kind == RenderKind::Labels) draw_label_legend(image, out_h, max_label);
  else if (r.kind == RenderKind::Edges) draw_edge_legend(image, out_h, canvas.edge_lines, kEdgeInk, kEdgeBackground);
  if (info.has_geotransform) {
    const double pixel_size = std::hypot(info.geotransform[1], info.geotransform[4]) * info.width / canvas.out_w;
    const ScaleBar bar = draw_scale_bar(image, out_h, pixel_size, canvas.georef.units);
    r.scale_bar_units = bar.length_units;
    r.scale_bar_pixels = bar.length_pixels;
  }
}

}  // namespace

RenderCommandResult run_render_command(const RenderCommandOptions& options, Progress& progress) {
  Stopwatch clock;
  check_render_paths(options);

  MemoryBudget budget(options.common.memory_bytes, MemoryBudget::kRaiseMemory);  // it has no --tile
  RenderCommandResult r;
  r.options = options;
  RenderCanvas canvas;
  canvas.info = probe_raster(options.input, options.band, budget);
  r.raster_width = canvas.info.width;
  r.raster_height = canvas.info.height;
  r.kind = resolve_kind(options.kind, canvas.info, options.input);
  auto picture_bytes = size_picture(options, budget, canvas, r);
  read_cells(options, budget, progress, canvas, r);
  const RenderShading shading = shade_terrain(options, canvas, r.kind, budget, progress);

  progress.update("draw", 0, 1);
  Image image(r.width, r.height);
  if (options.legend)
    for (std::uint32_t y = canvas.out_h; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x) image.set(x, y, Rgba(255, 255, 255));
  const ColourMap cmap = options.magma ? ColourMap::Magma : ColourMap::Viridis;
  std::uint64_t max_label = 0;  // labels: the largest label in the picture (its legend)
  if (canvas.continuous) draw_continuous(options, canvas, shading, cmap, image, r);
  else if (r.kind == RenderKind::Backlink || r.kind == RenderKind::Labels) max_label = draw_categories(canvas, shading, r.kind, image);
  else draw_edges(canvas, shading, image);
  // Paths and sources on top, in raster pixel space scaled to the picture.
  draw_paths(options, canvas, image, r);
  draw_sources(options, canvas, image, r);
  if (options.legend) draw_legend(canvas, cmap, max_label, image, r);
  progress.update("draw", 1, 1);

  progress.update("write", 0, 1);
  write_png(options.output, image.width(), image.height(), image.bytes());
  progress.update("write", 1, 1);
  r.memory_budget_bytes = budget.total();
  r.peak_reserved_bytes = budget.peak_reserved();
  r.seconds = clock.seconds();
  return r;
}

std::string RenderCommandResult::summary() const {
  std::string s = format_line("render: %s (%s) %llu x %llu cells -> %s, %u x %u pixels (%s resampling%s)",
                              options.input.c_str(), to_string(kind), static_cast<unsigned long long>(raster_width),
                              static_cast<unsigned long long>(raster_height), options.output.c_str(), width, height,
                              resampling.c_str(), edge_lines ? ", edges as lines" : "");
  if (has_range) s += format_line("\n  colours %.6g .. %.6g", lo, hi);
  if (contour_interval > 0) s += format_line(", contours every %.6g", contour_interval);
  if (path_lines) s += format_line("\n  %llu path line(s)", static_cast<unsigned long long>(path_lines));
  if (sources) s += format_line("\n  %llu source(s)", static_cast<unsigned long long>(sources));
  return s;
}

std::string RenderCommandResult::to_json() const {
  JsonObject j = json_head("render", options.input, options.output);
  j.add("kind", to_string(kind))
      .add("raster_width", raster_width)
      .add("raster_height", raster_height)
      .add("width", width)
      .add("height", height)
      .add("map_height", map_height)
      .add("resampling", resampling)
      .add("read_by_gdal", read_by_gdal)
      .add("edge_lines", edge_lines)
      .add("contour_interval", contour_interval)
      .add("path_lines", path_lines)
      .add("path_features_skipped", path_features_skipped)
      .add("sources", sources)
      .add("scale_bar_units", scale_bar_units)
      .add("scale_bar_pixels", scale_bar_pixels)
      .add("memory_budget_bytes", memory_budget_bytes)
      .add("peak_reserved_bytes", peak_reserved_bytes)
      .add("seconds", seconds);
  if (has_range) j.add("min", lo).add("max", hi);
  else j.add_null("min").add_null("max");
  return j.str();
}

}  // namespace terrazo
