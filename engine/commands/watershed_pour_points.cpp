// engine/commands/watershed_pour_points.cpp: locate_pour_points, plan_snap, snap_pour_points
// (engine/commands/watershed_pour_points.h).
#include "engine/commands/watershed_pour_points.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kSnapCacheBytes = 8ull << 20;
constexpr char kSnapPhase[] = "watershed: snap";
constexpr char kRowPart[] = "a row of the snap window";
constexpr char kReaderPart[] = "the --accumulation reader";
constexpr char kCachePart[] = "the --accumulation GDAL block cache";

std::uint64_t window_row_cells(std::uint32_t n, std::uint64_t width) {
  return std::min<std::uint64_t>(2ull * n + 1, width);
}

// The cell of highest value within n cells of (x, y), the first in raster order among equals; (x, y)
// when the window holds no valid value.
void snap_one(RasterReader& accumulation, std::uint64_t width, std::uint64_t height, std::uint32_t n,
              std::vector<double>& row, WatershedPourPoint& p) {
  const std::uint64_t x0 = p.x >= n ? p.x - n : 0, y0 = p.y >= n ? p.y - n : 0;
  const std::uint64_t x1 = std::min<std::uint64_t>(p.x + n, width - 1), y1 = std::min<std::uint64_t>(p.y + n, height - 1);
  const auto w = static_cast<std::uint32_t>(x1 - x0 + 1);
  p.snapped_x = p.x;
  p.snapped_y = p.y;
  bool found = false;
  double best = 0;
  for (std::uint64_t y = y0; y <= y1; ++y) {
    accumulation.read_window(x0, y, w, 1, row.data());
    for (std::uint32_t i = 0; i < w; ++i) {
      const double v = row[i];
      if (std::isnan(v) || (found && !(v > best))) continue;
      found = true;
      best = v;
      p.snapped_x = x0 + i;
      p.snapped_y = y;
    }
  }
}

}  // namespace

std::vector<WatershedPourPoint> locate_pour_points(const WatershedOptions& options, const RasterInfo& info) {
  std::vector<SourceCell> cells = locate_source_points(options.outlets, info, options.map_coords, "", 1, "--outlet");
  if (!options.outlets_file.empty()) {
    std::string file_crs;
    const std::vector<SourcePoint> file_points =
        read_source_points(options.outlets_file, &file_crs, SourceFields{}, "--outlets-file");
    if (file_points.empty()) throw UsageError("--outlets-file '" + options.outlets_file + "' holds no point");
    const std::vector<SourceCell> located = locate_source_points(file_points, info, true, file_crs, 1, "--outlets-file");
    cells.insert(cells.end(), located.begin(), located.end());
  }
  std::vector<WatershedPourPoint> points;
  points.reserve(cells.size());
  for (const SourceCell& c : cells) {
    WatershedPourPoint p;
    p.text = c.text;
    p.x = p.snapped_x = c.cell % info.width;
    p.y = p.snapped_y = c.cell / info.width;
    points.push_back(std::move(p));
  }
  return points;
}

void plan_snap(MemoryPlan& plan, std::uint32_t n, std::uint64_t width, const RasterReader& accumulation) {
  plan.need(kSnapPhase, kRowPart, window_row_cells(n, width) * 8);
  plan.need(kSnapPhase, kReaderPart, accumulation.resident_bytes(1));
  plan.need(kSnapPhase, kCachePart, kSnapCacheBytes);
}

void snap_pour_points(RasterReader& accumulation, const std::string& path, std::uint64_t width, std::uint64_t height,
                      std::uint32_t n, MemoryBudget& budget, const MemoryPlan& plan,
                      std::vector<WatershedPourPoint>& points) {
  const RasterInfo& info = accumulation.info();
  if (info.width != width || info.height != height)
    throw UsageError("--accumulation '" + path + "' is " + std::to_string(info.width) + " x " +
                     std::to_string(info.height) + " cells, INPUT " + std::to_string(width) + " x " +
                     std::to_string(height) + ": give terrazo flowacc's output on the same directions");
  const MemoryBudget::Reservation held = budget.reserve(
      plan.assigned(kSnapPhase, kRowPart) + plan.assigned(kSnapPhase, kReaderPart), "watershed snap window");
  const GdalCacheLimit cache(budget, plan.assigned(kSnapPhase, kCachePart));
  std::vector<double> row(window_row_cells(n, width));
  for (WatershedPourPoint& p : points) snap_one(accumulation, width, height, n, row, p);
}

}  // namespace terrazo
