// engine/commands/render_command.cpp: parse_render_options, render_usage, run_render_command (engine/commands/render_command.h).
#include "engine/commands/render_command.h"

#include <gdal.h>
#include <ogr_srs_api.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "engine/commands/output_paths.h"
#include "engine/render/colormaps.h"
#include "engine/render/contours.h"
#include "engine/render/hillshade.h"
#include "engine/render/image.h"
#include "engine/render/legend.h"
#include "engine/render/line.h"
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

// The usage text; each "{flags SECTION}" line becomes that section's flags (engine/commands/flag_table.h).
const char kUsage[] =
    "Usage: terrazo render [options] INPUT OUT.png\n"
    "\n"
    "A quick-look picture of a terrazo input or output: a DEM, a cost surface, a backlink raster,\n"
    "allocation zones or clump labels, an MST edge raster; paths and sources drawn on top; a legend\n"
    "and a scale bar in a panel under the map. The raster is read at the picture's size (GDAL's\n"
    "decimated read, from overviews when the file has them: `gdaladdo` makes them), so rasters far\n"
    "larger than --memory draw quickly in memory proportional to the picture.\n"
    "\n"
    "Kinds (--kind; auto: UInt32 -> labels, Float with nodata -1 (what `terrazo sssp` writes) ->\n"
    "cost, Byte with nodata 255 -> choose backlink or edges, anything else -> dem):\n"
    "  dem       terrain colours under a hillshade (sun from the north-west, 45 degrees up)\n"
    "  cost      viridis colour map (perceptually uniform) and contour lines, over a hillshade of\n"
    "            --terrain when given\n"
    "  backlink  one colour per direction to the predecessor (E, SE, S, SW, W, NW, N, NE); a knight's\n"
    "            move (--connectivity 16) halfway between the two directions it lies between\n"
    "  labels    a 12-colour categorical palette: clump labels, sssp --allocation zones\n"
    "  edges     MST edge raster: tree edges as lines between cell centres (when the picture has a\n"
    "            pixel per cell or more), else the cells that own an edge\n"
    "Nodata is transparent.\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "Examples:\n"
    "  terrazo render dem.tif dem.png\n"
    "  terrazo render --terrain dem.tif --paths paths.geojson --source 120,45 cost.tif cost.png\n"
    "  terrazo render --kind edges --width 800 edges.tif edges.png\n"
    "  terrazo render --kind labels --terrain dem.tif nearest.tif zones.png\n";

bool ends_with_png(const std::string& path) { return file_extension(path) == ".png"; }

RenderKind parse_kind(const std::string& text) {
  for (RenderKind k : {RenderKind::Auto, RenderKind::Dem, RenderKind::Cost, RenderKind::Backlink, RenderKind::Labels,
                       RenderKind::Edges})
    if (text == to_string(k)) return k;
  throw UsageError("--kind '" + text + "': expected auto, dem, cost, backlink, labels or edges");
}

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

const char* to_string(RenderKind kind) {
  switch (kind) {
    case RenderKind::Auto: return "auto";
    case RenderKind::Dem: return "dem";
    case RenderKind::Cost: return "cost";
    case RenderKind::Backlink: return "backlink";
    case RenderKind::Labels: return "labels";
    case RenderKind::Edges: return "edges";
  }
  return "?";
}

const char* render_usage() {
  static const std::string text = usage_with_flags("render", kUsage);
  return text.c_str();
}

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

RenderCommandResult run_render_command(const RenderCommandOptions& options, Progress& progress) {
  Stopwatch clock;
  check_input_file(options.input);
  if (!options.terrain.empty()) check_input_file(options.terrain);
  for (const std::string& p : options.paths) check_input_file(p);
  check_output_file(options.output, {options.input});
  std::vector<NamedPath> inputs{{"INPUT", options.input}, {"--terrain", options.terrain}};
  for (const std::string& p : options.paths) inputs.push_back({"--paths", p});
  check_distinct_paths(inputs, {{"OUT.png", options.output}});

  MemoryBudget budget(options.common.memory_bytes, MemoryBudget::kRaiseMemory);  // it has no --tile
  RenderCommandResult r;
  r.options = options;
  const RasterInfo info = probe_raster(options.input, options.band, budget);
  r.raster_width = info.width;
  r.raster_height = info.height;
  r.kind = resolve_kind(options.kind, info, options.input);
  const std::uint32_t out_w = options.width;
  const double exact_h = static_cast<double>(out_w) * info.height / info.width;
  if (exact_h > 16384)
    throw UsageError("--width " + std::to_string(out_w) + ": the map would be " + std::to_string(std::llround(exact_h)) +
                     " rows high (the raster is " + std::to_string(info.width) + " x " + std::to_string(info.height) +
                     "); at most 16384: give a smaller --width");
  const std::uint32_t out_h = static_cast<std::uint32_t>(std::max<long long>(1, std::llround(exact_h)));
  r.map_height = out_h;
  r.width = out_w;
  r.height = out_h + (options.legend ? kPanelHeight : 0);
  auto picture_bytes = budget.reserve(static_cast<std::uint64_t>(r.width) * r.height * 4 +
                                          static_cast<std::uint64_t>(out_w) * out_h * 5,
                                      "render: picture, hillshade, contour mask");

  const bool continuous = r.kind == RenderKind::Dem || r.kind == RenderKind::Cost;
  const Resampling resampling = continuous ? Resampling::Average : Resampling::Nearest;
  r.resampling = continuous ? "average" : "nearest";
  const bool edge_lines = r.kind == RenderKind::Edges && out_w >= info.width && out_h >= info.height;
  r.edge_lines = edge_lines;
  const std::uint32_t grid_w = edge_lines ? static_cast<std::uint32_t>(info.width) : out_w;
  const std::uint32_t grid_h = edge_lines ? static_cast<std::uint32_t>(info.height) : out_h;
  DecimatedRaster grid = read_decimated(options.input, options.band, grid_w, grid_h, resampling, budget, progress);
  r.read_by_gdal = grid.via_gdal;
  const Georef georef = describe_crs(info);

  // Hillshade: of INPUT for a DEM, of --terrain for the other kinds.
  std::vector<float> shading;
  DecimatedRaster terrain;  // --terrain at the picture's size (edges: its colours under the tree)
  double terrain_lo = 0, terrain_hi = 0;
  if (r.kind == RenderKind::Dem || !options.terrain.empty()) {
    double dx, dy;
    ground_spacing(info, georef, out_w, out_h, &dx, &dy);
    if (r.kind == RenderKind::Dem) {
      shading = hillshade(grid.cells, out_w, out_h, dx, dy);
    } else {
      const RasterInfo t = probe_raster(options.terrain, 0, budget);
      if (t.width != info.width || t.height != info.height)
        throw UsageError("--terrain " + options.terrain + " is " + std::to_string(t.width) + " x " +
                         std::to_string(t.height) + " cells, INPUT is " + std::to_string(info.width) + " x " +
                         std::to_string(info.height) + ": give the DEM INPUT was computed from");
      terrain = read_decimated(options.terrain, 0, out_w, out_h, Resampling::Average, budget, progress);
      shading = hillshade(terrain.cells, out_w, out_h, dx, dy);
      std::tie(terrain_lo, terrain_hi) = value_range(terrain.cells);
    }
  }
  auto shade_at = [&](std::size_t k, double floor_share) {
    if (shading.empty() || std::isnan(shading[k])) return 1.0;
    return floor_share + (1.0 - floor_share) * shading[k];
  };

  progress.update("draw", 0, 1);
  Image image(r.width, r.height);
  if (options.legend)
    for (std::uint32_t y = out_h; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x) image.set(x, y, Rgba(255, 255, 255));
  const ColourMap cmap = options.magma ? ColourMap::Magma : ColourMap::Viridis;
  std::uint64_t max_label = 0;  // labels: the largest label in the picture (its legend)

  if (continuous) {
    const auto range = value_range(grid.cells);
    r.lo = options.range_lo ? *options.range_lo : range.first;
    r.hi = options.range_hi ? *options.range_hi : range.second;
    r.has_range = true;
    for (std::uint32_t y = 0; y < out_h; ++y)
      for (std::uint32_t x = 0; x < out_w; ++x) {
        const std::size_t k = static_cast<std::size_t>(y) * out_w + x;
        const double v = grid.cells[k];
        if (std::isnan(v)) continue;
        Rgb c;
        if (r.kind == RenderKind::Cost) {
          c = shade(colour_map(cmap, colour_map_index(v, r.lo, r.hi)), shade_at(k, 0.45));
        } else {
          const double t = r.hi > r.lo ? (v - r.lo) / (r.hi - r.lo) : 0.0;
          c = shade(terrain_colour(t), shade_at(k, 0.3));
        }
        image.set(x, y, Rgba(c));
      }
    const unsigned levels = options.contours ? *options.contours : (r.kind == RenderKind::Cost ? 10u : 0u);
    r.contour_interval = nice_interval(r.lo, r.hi, levels);
    if (r.contour_interval > 0) {
      const auto mask = contour_mask(grid.cells, out_w, out_h, r.contour_interval);
      for (std::uint32_t y = 0; y < out_h; ++y)
        for (std::uint32_t x = 0; x < out_w; ++x)
          if (mask[static_cast<std::size_t>(y) * out_w + x]) image.blend(x, y, Rgba(0, 0, 0), 0.6);
    }
  } else if (r.kind == RenderKind::Backlink || r.kind == RenderKind::Labels) {
    if (r.kind == RenderKind::Labels) {
      const double top = value_range(grid.cells).second;  // the largest label drawn (NaN: none)
      max_label = top >= 1 ? static_cast<std::uint64_t>(top) : 0;
    }
    for (std::uint32_t y = 0; y < out_h; ++y)
      for (std::uint32_t x = 0; x < out_w; ++x) {
        const std::size_t k = static_cast<std::size_t>(y) * out_w + x;
        const double v = grid.cells[k];
        if (std::isnan(v)) continue;
        Rgb c;
        if (r.kind == RenderKind::Backlink) c = (v >= 0 && v <= 15) ? direction_colour(static_cast<int>(v)) : Rgb{128, 128, 128};
        else c = categorical_colour(v >= 0 ? static_cast<std::uint64_t>(v) : 0);
        image.set(x, y, Rgba(shade(c, shade_at(k, 0.45))));
      }
  } else {  // edges
    // Background: the valid cells in light grey, or in the terrain colours of --terrain under its
    // hillshade; nodata transparent.
    for (std::uint32_t y = 0; y < out_h; ++y)
      for (std::uint32_t x = 0; x < out_w; ++x) {
        const std::size_t k = static_cast<std::size_t>(y) * out_w + x;
        const std::uint64_t cx = edge_lines ? static_cast<std::uint64_t>(x) * info.width / out_w : x;
        const std::uint64_t cy = edge_lines ? static_cast<std::uint64_t>(y) * info.height / out_h : y;
        const double v = grid.cells[static_cast<std::size_t>(cy) * grid_w + cx];
        if (std::isnan(v)) continue;
        if (terrain.cells.empty() || std::isnan(terrain.cells[k])) {
          image.set(x, y, Rgba(shade(kEdgeBackground, shade_at(k, 0.45))));
        } else {
          const double t = terrain_hi > terrain_lo ? (terrain.cells[k] - terrain_lo) / (terrain_hi - terrain_lo) : 0.0;
          image.set(x, y, Rgba(shade(terrain_colour(t), shade_at(k, 0.3))));
        }
      }
    const Rgba ink = kEdgeInk;
    if (edge_lines) {
      const double sx = static_cast<double>(out_w) / info.width, sy = static_cast<double>(out_h) / info.height;
      static const int kDx[4] = {1, 1, 0, -1}, kDy[4] = {0, 1, 1, 1};
      for (std::uint32_t y = 0; y < grid_h; ++y)
        for (std::uint32_t x = 0; x < grid_w; ++x) {
          const double v = grid.cells[static_cast<std::size_t>(y) * grid_w + x];
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
    } else {
      for (std::uint32_t y = 0; y < out_h; ++y)
        for (std::uint32_t x = 0; x < out_w; ++x) {
          const double v = grid.cells[static_cast<std::size_t>(y) * out_w + x];
          if (!std::isnan(v) && (static_cast<unsigned>(v) & 15u) != 0) image.set(x, y, ink);
        }
    }
  }

  // Paths and sources on top, in raster pixel space scaled to the picture.
  const double px_per_col = static_cast<double>(out_w) / info.width, px_per_row = static_cast<double>(out_h) / info.height;
  if (!options.paths.empty()) {
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
  if (!options.sources.empty()) {
    std::string crs;
    const auto cells = locate_source_points(options.sources, info, options.map_coords, crs, 1, "--source");
    for (const SourceCell& s : cells) {
      const std::uint64_t cx = s.cell % info.width, cy = s.cell / info.width;
      draw_source_marker(image, static_cast<std::int64_t>((cx + 0.5) * px_per_col),
                         static_cast<std::int64_t>((cy + 0.5) * px_per_row));
    }
    r.sources = cells.size();
  }

  if (options.legend) {
    if (r.kind == RenderKind::Cost) draw_colour_bar(image, out_h, cmap, r.lo, r.hi);
    else if (r.kind == RenderKind::Dem) draw_terrain_bar(image, out_h, r.lo, r.hi);
    else if (r.kind == RenderKind::Backlink) draw_direction_legend(image, out_h);
    else if (r.kind == RenderKind::Labels) draw_label_legend(image, out_h, max_label);
    else if (r.kind == RenderKind::Edges) draw_edge_legend(image, out_h, edge_lines, kEdgeInk, kEdgeBackground);
    if (info.has_geotransform) {
      const double pixel_size = std::hypot(info.geotransform[1], info.geotransform[4]) * info.width / out_w;
      const ScaleBar bar = draw_scale_bar(image, out_h, pixel_size, georef.units);
      r.scale_bar_units = bar.length_units;
      r.scale_bar_pixels = bar.length_pixels;
    }
  }
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
  JsonObject j;
  j.add("command", "render")
      .add("input", options.input)
      .add("output", options.output)
      .add("kind", to_string(kind))
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
