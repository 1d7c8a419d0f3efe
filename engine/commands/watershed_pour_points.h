// engine/commands/watershed_pour_points.h: the pour points of `terrazo watershed` (engine/commands/
// watershed.h): located on INPUT's grid, then snapped to the largest accumulation nearby.
//
// Located as sssp locates its sources (engine/raster_inputs/sssp_sources.h): every --outlet (column,row,
// or map coordinates with --map-coords), then the points of --outlets-file (map coordinates in the
// file's CRS, transformed to INPUT's), with the same messages (a point outside the raster is a
// UsageError naming it).
// Snapped as ArcGIS's Snap Pour Point: each point moves to the cell of highest accumulation within
// the (2N+1) x (2N+1) window centred on it, clipped to the raster; ties go to the least y * width + x
// (the first in raster order); nodata cells of the accumulation are passed over, and a point whose
// window holds none stays. The window is read one row at a time through GDAL (RasterReader::read_window).
// Memory: snap_bytes(): a row of the window and the accumulation's GDAL block cache (8 MiB),
// planned as phase "watershed: snap" (plan_snap) before it runs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/commands/watershed.h"
#include "engine/run/memory_plan.h"
#include "kernels/common/memory_budget.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/raster_info.h"

namespace terrazo {

// The pour points of `options` (--outlet, then --outlets-file) on the raster `info` describes, in that
// order, snapped to themselves; none when no pour point is given. UsageError for a malformed or
// outside point, or an --outlets-file without points.
std::vector<WatershedPourPoint> locate_pour_points(const WatershedOptions& options, const RasterInfo& info);

// Declares phase "watershed: snap" in `plan`: a row of a window of side 2n + 1 on a raster `width`
// wide, and the accumulation reader's block cache and resident bytes.
void plan_snap(MemoryPlan& plan, std::uint32_t n, std::uint64_t width, const RasterReader& accumulation);

// Each point's snapped_x, snapped_y: the cell of highest value of `accumulation` within n cells of
// (x, y), as above, holding from `budget` what `plan` (planned: plan_snap) assigned. UsageError
// naming --accumulation (`path`) when it is not of `width` x `height` cells.
void snap_pour_points(RasterReader& accumulation, const std::string& path, std::uint64_t width, std::uint64_t height,
                      std::uint32_t n, MemoryBudget& budget, const MemoryPlan& plan,
                      std::vector<WatershedPourPoint>& points);

}  // namespace terrazo
