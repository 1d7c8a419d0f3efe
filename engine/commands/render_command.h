// engine/commands/render_command.h: `terrazo render` as a library entry point (GDAL-utility style:
// docs/architecture.md "Commands"): a quick-look PNG of any terrazo input or output (docs/render.md).
//
// The raster is read at the picture's size (io/gdal/decimated_read.h: GDAL's decimated RasterIO, from
// overviews when the file has them), so the picture of a raster far larger than --memory needs
// memory in proportion to the picture only. Kinds:
//   dem       terrain colour ramp under a hillshade of the DEM itself (average resampling)
//   cost      viridis (or --colour-map magma) with contour lines, over a hillshade of --terrain
//   backlink  eight direction colours (nearest)
//   labels    a categorical palette: clump labels, allocation zones (nearest)
//   edges     MST edge rasters: each tree edge a line between cell centres when the picture has at
//             least one pixel per cell, else the cells that own an edge (nearest)
// Paths (GeoJSON LineStrings of `terrazo path`) and source points are drawn on top; a panel under
// the map holds the legend (colour bar with min and max, or the direction swatches) and a scale bar.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

enum class RenderKind { Auto, Dem, Cost, Backlink, Labels, Edges };
const char* to_string(RenderKind kind);

struct RenderCommandOptions {
  std::string input, output;
  RenderKind kind = RenderKind::Auto;     // --kind
  std::uint32_t width = 1024;             // --width: picture width in pixels (the map's; 1..16384)
  std::string terrain;                    // --terrain DEM: hillshade under cost/backlink/labels/edges
  std::vector<std::string> paths;         // --paths FILE (repeatable)
  std::vector<SourcePoint> sources;       // --source x,y (repeatable; --sources is the same flag)
  bool map_coords = false;                // --map-coords: --source values in INPUT's CRS
  std::optional<unsigned> contours;       // --contours N (default 10 for cost, 0 otherwise)
  std::optional<double> range_lo, range_hi;  // --range MIN,MAX of the colour map
  bool magma = false;                     // --colour-map magma
  bool legend = true;                     // --no-legend
  std::uint32_t band = 0;                 // --band
  CommonOptions common;
};

RenderCommandOptions parse_render_options(const std::vector<std::string>& args);
const char* render_usage();

struct RenderCommandResult {
  RenderCommandOptions options;
  RenderKind kind = RenderKind::Auto;     // the kind drawn (auto resolved)
  std::uint64_t raster_width = 0, raster_height = 0;
  std::uint32_t width = 0, height = 0;    // of the PNG
  std::uint32_t map_height = 0;           // rows of the map (the panel below takes the rest)
  std::string resampling;                 // "average" | "nearest"
  bool read_by_gdal = false;              // GDAL RasterIO (overviews possible) or terrazo's row reader
  bool has_range = false;
  double lo = 0, hi = 0;                  // colour map range (cost, dem)
  double contour_interval = 0;            // 0: none
  bool edge_lines = false;                // edges drawn as lines (else as owner cells)
  std::uint64_t path_lines = 0, path_features_skipped = 0, sources = 0;
  double scale_bar_units = 0;             // 0: no scale bar
  std::int64_t scale_bar_pixels = 0;
  std::uint64_t memory_budget_bytes = 0, peak_reserved_bytes = 0;
  double seconds = 0;
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

RenderCommandResult run_render_command(const RenderCommandOptions& options, Progress& progress);

}  // namespace terrazo
