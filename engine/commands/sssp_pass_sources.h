// engine/commands/sssp_pass_sources.h: the sources of one sssp pass (engine/commands/sssp_pass.cpp):
// the point sources located on INPUT's grid and set in their tiles, the source mask streamed tile by
// tile. Internal to the sssp pass; `scale` is the run's fixed point, `max_cost` the pass's maximum in it.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/commands/sssp_groups.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "engine/run/run_context.h"
#include "engine/sssp/exchange.h"
#include "io/gdal/gdal_raster.h"

namespace terrazo {

// The source mask reader's GDAL block cache.
constexpr std::uint64_t kMaskCacheBytes = 8ull << 20;

// The point sources (--source, then --sources-file, ids in that order), located on INPUT's grid; a
// group's pass keeps its own points (their ids stay those of the whole list).
std::vector<SourceCell> locate_pass_sources(const SsspOptions& options, const SsspPass& pass, const RasterInfo& info);

// The point sources set in their tiles, each start in fixed point, rounded as the weights are
// (docs/cost_models.md); a source on a nodata (or barrier) cell is refused.
void add_point_sources(const std::vector<SourceCell>& points, const TileGrid& grid, double scale, PathLength max_cost,
                       bool barred, SsspExchangeRun& exchange, SsspResult& result);

// The source mask (--source-raster) streamed tile by tile: cells with a positive integer id are
// sources starting at --source-initial; cells on INPUT's nodata are counted and skipped.
void add_mask_sources(const SsspOptions& options, RasterReader& mask, const TileGrid& grid, double scale,
                      SsspExchangeRun& exchange, RunContext& context, SsspResult& result);

}  // namespace terrazo
