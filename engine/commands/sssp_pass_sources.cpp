// engine/commands/sssp_pass_sources.cpp: the sources of one sssp pass (engine/commands/sssp_pass_sources.h).
#include "engine/commands/sssp_pass_sources.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "kernels/common/error.h"

namespace terrazo {

// The point sources (--source, then --sources-file, ids in that order), located on INPUT's grid; a
// group's pass keeps its own points (their ids stay those of the whole list).
std::vector<SourceCell> locate_pass_sources(const SsspOptions& options, const SsspPass& pass, const RasterInfo& info) {
  std::string crs;
  if (!options.source_crs.empty()) crs = crs_to_wkt(options.source_crs, "--source-crs");
  std::vector<SourcePoint> flag_points = options.sources;
  for (SourcePoint& p : flag_points) {
    p.start = options.source_initial;
    p.multiplier = options.source_multiplier;
  }
  std::vector<SourceCell> points =
      locate_source_points(flag_points, info, options.map_coords || !options.source_crs.empty(), crs, 1, "--source");
  if (!options.sources_file.empty()) {
    std::string file_crs;
    const std::vector<SourcePoint> file_points =
        read_source_points(options.sources_file, &file_crs, source_file_fields(options));
    if (file_points.empty())
      throw UsageError("--sources-file '" + options.sources_file + "' holds no point");
    // A vector file's points are map coordinates (pixel coordinates only with a CRS-less file and
    // no --map-coords would be ambiguous: a file without CRS is read in the raster's CRS).
    const auto located = locate_source_points(file_points, info, true, file_crs,
                                              static_cast<std::uint32_t>(points.size() + 1), "--sources-file");
    points.insert(points.end(), located.begin(), located.end());
  }
  if (pass.filter) {
    const auto key = group_key(pass.multiplier, pass.max_cost);
    points.erase(std::remove_if(points.begin(), points.end(),
                                [&](const SourceCell& c) { return group_key(c.multiplier, c.max_cost) != key; }),
                 points.end());
  }
  return points;
}

// The point sources set in their tiles, each start in fixed point, rounded as the weights are
// (docs/cost_models.md); a source on a nodata (or barrier) cell is refused.
void add_point_sources(const std::vector<SourceCell>& points, const TileGrid& grid, double scale, PathLength max_cost,
                       bool barred, SsspExchangeRun& exchange, SsspResult& result) {
  const std::uint32_t t = grid.tile;
  std::map<std::uint64_t, std::vector<TileSource>> by_tile;
  std::map<std::pair<std::uint64_t, std::uint32_t>, const SourceCell*> by_local;
  for (const SourceCell& s : points) {
    const std::uint64_t x = s.cell % grid.width, y = s.cell / grid.width;
    const std::uint64_t tile = (y / t) * grid.tiles_x() + x / t;
    const auto local = static_cast<std::uint32_t>((y % t) * t + x % t);
    const double fixed = std::nearbyint(s.start * scale);
    if (!(fixed < 9.2e18))
      throw UsageError(s.text + ": the initial cost " + format_value(s.start) + " does not fit the fixed point at scale " +
                       format_value(scale));
    const PathLength start_fixed = static_cast<PathLength>(fixed);
    if (start_fixed > max_cost) ++result.sources_beyond_max_cost;
    by_tile[tile].push_back(TileSource{local, s.id, start_fixed});
    by_local.emplace(std::make_pair(tile, local), &s);
  }
  for (const auto& [tile, list] : by_tile) {
    const auto rejected = exchange.add_sources(static_cast<std::uint32_t>(tile % grid.tiles_x()),
                                               static_cast<std::uint32_t>(tile / grid.tiles_x()), list);
    if (!rejected.empty())
      throw UsageError(by_local.at({tile, rejected.front()})->text + " is on a nodata cell" +
                       (barred ? std::string(" (or a --barrier-raster cell)") : std::string()) +
                       "; move it onto valid data");
  }
  result.sources = points.size();
}

// The source mask (--source-raster) streamed tile by tile: cells with a positive integer id are
// sources starting at --source-initial; cells on INPUT's nodata are counted and skipped.
void add_mask_sources(const SsspOptions& options, RasterReader& mask, const TileGrid& grid, double scale,
                      SsspExchangeRun& exchange, RunContext& context, SsspResult& result) {
  const double fixed = std::nearbyint(options.source_initial * scale);
  if (!(fixed < 9.2e18))
    throw UsageError("--source-initial " + format_value(options.source_initial) +
                     " does not fit the fixed point at scale " + format_value(scale));
  const PathLength mask_start = static_cast<PathLength>(fixed);
  const RasterInfo& mi = mask.info();
  if (mi.width != grid.width || mi.height != grid.height)
    throw UsageError("--source-raster '" + options.source_raster + "' is " + std::to_string(mi.width) + " x " +
                     std::to_string(mi.height) + " cells, INPUT is " + std::to_string(grid.width) + " x " +
                     std::to_string(grid.height) + "; they must match cell for cell");
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  MemoryBudget& budget = context.budget();
  auto reservation = budget.reserve(tile_cells * 8 + mask.resident_bytes(t), "sssp source mask window");
  GdalCacheLimit mask_cache(budget, kMaskCacheBytes);
  std::vector<double> window(tile_cells);
  std::vector<TileSource> list;
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty) {
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
      const TileWindow in = grid.window(tx, ty);
      const std::uint64_t x0 = in.x0, y0 = in.y0;
      const std::uint32_t w = in.w, h = in.h;
      mask.read_window(x0, y0, w, h, window.data());
      list.clear();
      for (std::uint32_t y = 0; y < h; ++y)
        for (std::uint32_t x = 0; x < w; ++x) {
          const double v = window[static_cast<std::size_t>(y) * w + x];
          if (v != v || v == 0) continue;
          if (!(v >= 1 && v <= 4294967294.0 && v == std::floor(v)))
            throw UsageError("--source-raster '" + options.source_raster + "' has the value " + format_value(v) +
                             " at " + std::to_string(x0 + x) + "," + std::to_string(y0 + y) +
                             "; source ids must be positive integers (0 or nodata: not a source)");
          list.push_back(TileSource{y * t + x, static_cast<std::uint32_t>(v), mask_start});
        }
      if (list.empty()) continue;
      const auto rejected = exchange.add_sources(tx, ty, list);
      result.mask_cells_on_nodata += rejected.size();
      result.sources += list.size() - rejected.size();
    }
    context.progress().update("sssp: sources", ty + 1, grid.tiles_y());
  }
  result.bytes_read += mask.bytes_read();
  if (result.sources == 0)
    throw UsageError("--source-raster '" + options.source_raster + "' marks no source on a valid INPUT cell" +
                     (result.mask_cells_on_nodata ? " (" + std::to_string(result.mask_cells_on_nodata) +
                                                        " marked cells are nodata in INPUT)"
                                                  : std::string()));
}

}  // namespace terrazo
