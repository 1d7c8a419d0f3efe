// engine/commands/corridor.h: the least-cost corridor between two cost surfaces (`terrazo corridor`), streamed
// strip by strip. The library entry point; tools/cli/cmd_corridor.cpp is a thin main over it.
//
// Source: ArcGIS Spatial Analyst "Corridor" [ArcGIS-DistanceAccumulation]: the sum of two
// accumulated cost surfaces made from the same cost raster; a cell's sum is the cost of the
// cheapest path from source A through that cell to source B (docs/corridor.md).
// Contract:
//   out(c) = A(c) + B(c) where both are valid (not nodata, not NaN); nodata (NaN, written as -1)
//   where either is nodata. With a threshold T, cells whose sum exceeds T are nodata too:
//     --threshold C   T = C (cost units)
//     --percent P     T = m * (1 + P / 100) * (1 + 1e-12), m the smallest sum over the raster (a first
//                     pass); the slack keeps every cell of the least-cost path at P = 0, whose sums
//                     (two doubles rounded from fixed point) may exceed m in the last bits
//   A and B must have the same width and height and, when both are georeferenced, the same
//   geotransform (to 1e-9 relative); otherwise UsageError (exit 2). Negative values other than
//   the nodata value are accepted as they are (a cost surface has none; terrazo writes -1 as nodata).
// Memory: a piece of kCorridorStripRows rows of both inputs and the output (24 bytes per cell), GDAL's
// block cache and the output's blocks in flight (16 MiB; a half of what is left below 32 MiB, 4 MiB
// at least), each input's decoded block, all from the budget. A piece is the whole width when the
// budget holds it (each input block decoded once), else the widest multiple of 256 columns that
// fits: any width runs in about 6.5 MiB (the pieces of a striped input then re-read its strips, once
// per piece). A budget below that is refused before
// any cell is read, naming each need. One pass over both inputs (two with --percent).
// Output: Float64 (or Float32) GeoTIFF georeferenced like A, nodata -1, written atomically.
#pragma once
#include <cstdint>
#include <string>

#include "engine/run/run_context.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/gdal/geotiff_options.h"
#include "io/store/raster_info.h"

namespace terrazo {

struct CorridorOptions {
  std::string a, b;          // cost surfaces (e.g. from two `terrazo sssp` runs over the same friction)
  std::string output;        // corridor GeoTIFF
  double threshold = -1;     // --threshold (cost units); < 0: none
  double percent = -1;       // --percent (>= 0); < 0: none
  CellType type = CellType::Float64;  // --ot
  GeoTiffOptions geotiff;
};

struct CorridorResult {
  std::uint64_t width = 0, height = 0;
  std::uint64_t valid_cells = 0;      // cells where both surfaces are valid
  std::uint64_t corridor_cells = 0;   // valid cells within the threshold (all valid cells without one)
  double min_sum = 0, max_sum = 0;    // over valid cells (0 when none)
  double threshold = -1;              // the threshold applied (-1: none)
  double seconds = 0;
  std::uint64_t bytes_read = 0, bytes_written = 0, peak_rss_bytes = 0;
};

constexpr std::uint32_t kCorridorStripRows = 256;
constexpr double kCorridorPercentSlack = 1e-12;

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
CorridorResult run_corridor(const CorridorOptions& options, RunContext& context);

}  // namespace terrazo
