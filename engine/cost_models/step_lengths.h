// engine/cost_models/step_lengths.h: the step lengths of `--distance cells|map|geodesic` (sssp; path's lengths), from a
// raster's geotransform and CRS, as the StepLengths of kernels/common/edge_weight.h.
//
// Source: docs/weights.md "Step lengths"; geodesics by [Karney2013] through PROJ's geod_inverse.
// Modes (the length L of a step between two cell centres):
//   cells     1 orthogonal, sqrt(2) diagonal (the default; today's weights bit for bit)
//   map       |dx| east-west, |dy| north-south, sqrt(dx^2 + dy^2) diagonal, from the geotransform, in
//             the CRS's linear unit. Refused (UsageError) without a geotransform, with a rotated one,
//             and on a geographic CRS (degrees are no length: use geodesic).
//   geodesic  on a geographic (lon/lat) CRS: per row y, the geodesic on the CRS's ellipsoid between
//             the cell centres (x, y) and (x + 1, y) (east-west), (x, y) and (x, y + 1) (north-south) and
//             (x, y) and (x + 1, y + 1) (diagonal), in metres: a north-up lon/lat grid is symmetric
//             under rotation about the polar axis and reflection in a meridian, so these three numbers
//             hold for every step of the row (pair), whatever x and direction. Refused without a CRS,
//             with a projected CRS (use map), without a geotransform or with a rotated one.
// Memory: the geodesic table is 24 bytes per raster row (reserved by the caller).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/edge_weight.h"
#include "io/store/raster_info.h"

namespace terrazo {

enum class DistanceMode { Cells, Map, Geodesic };

DistanceMode parse_distance_mode(const std::string& text);  // cells|map|geodesic, UsageError otherwise
const char* to_string(DistanceMode mode);

struct StepTable {
  DistanceMode mode = DistanceMode::Cells;
  StepLengths lengths;                        // lengths.rows points into *rows (geodesic)
  std::shared_ptr<const std::vector<double>> rows;  // geodesic: 3 per raster row (edge_weight.h)
  std::string unit = "cell";                  // "cell", the CRS's linear unit name, or "metre"
};

// The step lengths of `mode` on a raster with `info` (its geotransform and CRS). UsageError (exit 2)
// for the refusals above, naming --distance.
StepTable make_step_table(DistanceMode mode, const RasterInfo& info);

// Bytes make_step_table holds for `mode` on a raster of `height` rows.
std::uint64_t step_table_bytes(DistanceMode mode, std::uint64_t height);

// The geodesic distance in metres between two lon/lat points (degrees) on the ellipsoid of the
// geographic CRS `wkt` (path lengths). UsageError when the CRS is not geographic.
class GeodesicLine {
 public:
  explicit GeodesicLine(const std::string& wkt);
  ~GeodesicLine();
  GeodesicLine(const GeodesicLine&) = delete;
  GeodesicLine& operator=(const GeodesicLine&) = delete;
  double distance(double lon1, double lat1, double lon2, double lat2) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether `wkt` is a geographic (lon/lat) CRS.
bool crs_is_geographic(const std::string& wkt);

}  // namespace terrazo
