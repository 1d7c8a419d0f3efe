// engine/raster_inputs/region_sites.cpp: read_region_sites (engine/raster_inputs/region_sites.h).
#include "engine/raster_inputs/region_sites.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "io/gdal/gdal_raster.h"

namespace terrazo {
RegionSites read_region_sites(const std::string& path, const TileGrid& grid, MemoryBudget& budget) {
  check_input_file(path);
  auto mask = RasterReader::open(path);
  const RasterInfo& mi = mask->info();
  if (mi.width != grid.width || mi.height != grid.height)
    throw UsageError("--sites-raster '" + path + "' is " + std::to_string(mi.width) + " x " + std::to_string(mi.height) +
                     " cells, INPUT is " + std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                     "; they must match cell for cell");
  const std::uint64_t window_cells = static_cast<std::uint64_t>(grid.tile) * grid.tile;
  const std::uint64_t mask_cache_bytes = 8ull << 20;
  RegionSites out;
  std::map<std::uint64_t, std::vector<std::uint64_t>> regions;
  std::uint64_t cells = 0, reserved_cells = 0;
  {
    auto reservation = budget.reserve(window_cells * 8 + mask->resident_bytes(grid.tile), "sites raster window");
    GdalCacheLimit cache(budget, mask_cache_bytes);
    std::vector<double> window(window_cells);
    for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty)
      for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
        const TileWindow in = grid.window(tx, ty);
        mask->read_window(in.x0, in.y0, in.w, in.h, window.data());
        for (std::uint32_t y = 0; y < in.h; ++y)
          for (std::uint32_t x = 0; x < in.w; ++x) {
            const double v = window[static_cast<std::size_t>(y) * in.w + x];
            if (v != v || v == 0) continue;
            if (!(v >= 1 && v <= 4294967294.0 && v == std::floor(v)))
              throw UsageError("--sites-raster '" + path + "' has the value " + format_value(v) + " at " +
                               std::to_string(in.x0 + x) + "," + std::to_string(in.y0 + y) +
                               "; region ids must be positive integers (0 or nodata: no region)");
            if (++cells > reserved_cells) {  // room for the next million cells of the lists (and map nodes)
              out.reservations.push_back(budget.reserve((1ull << 20) * 16, "region site cells"));
              reserved_cells += 1ull << 20;
            }
            regions[static_cast<std::uint64_t>(v)].push_back((in.y0 + y) * grid.width + in.x0 + x);
          }
      }
  }
  if (regions.empty())
    throw UsageError("--sites-raster '" + path + "' holds no region: every cell is 0 or nodata; region ids are positive integers");
  for (auto& [id, list] : regions) {
    std::sort(list.begin(), list.end());  // tile order to row-major order
    out.ids.push_back(id);
    out.sites.push_back(OdSite{std::move(list), "--sites-raster region " + std::to_string(id)});
  }
  return out;
}

}  // namespace terrazo
