// tests/support/sssp_files_reference.cpp: the file helpers of tests/support/sssp_reference.h
// (GDAL-backed), kept apart so the Dijkstra oracle itself builds without GDAL (GPU machine checks).
#include <algorithm>
#include <cmath>

#include "engine/raster_inputs/sssp_sources.h"
#include "io/gdal/gdal_raster.h"
#include "tests/support/sssp_reference.h"

namespace terrazo::testing {

std::vector<double> read_raster_values(const std::string& path, RasterInfo* info) {
  auto reader = RasterReader::open(path);
  const RasterInfo& i = reader->info();
  if (info) *info = i;
  std::vector<double> values(i.width * i.height);
  // Windows of 256 rows (a row of terrazo's blocks): a reader holds one decoded block, so reading
  // row by row decoded every block once per row of it.
  for (std::uint64_t y = 0; y < i.height; y += 256) {
    const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(256, i.height - y));
    reader->read_window(0, y, static_cast<std::uint32_t>(i.width), rows, &values[y * i.width]);
  }
  return values;
}

RasterInfo georef(const std::string& crs, double x0, double y0, double dx, double dy) {
  RasterInfo info;
  info.has_geotransform = true;
  info.geotransform = {x0, dx, 0, y0, 0, dy};
  if (!crs.empty()) info.crs_wkt = crs_to_wkt(crs, "test");
  return info;
}

void write_raster_values(const std::string& path, std::uint64_t width, std::uint64_t height,
                         const std::vector<double>& values, CellType type, double nodata, const RasterInfo& georef) {
  GeoTiffWriter writer(path, width, height, type, georef, true, nodata, 256);
  writer.write_window(0, 0, static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), values.data());
  writer.finish();
}

std::vector<PathLength> fixed_distances(const std::vector<double>& cost, double scale) {
  std::vector<PathLength> d(cost.size());
  for (std::size_t i = 0; i < cost.size(); ++i)
    d[i] = cost[i] != cost[i] ? kUnreached : static_cast<PathLength>(std::llround(cost[i] * scale));
  return d;
}

}  // namespace terrazo::testing
