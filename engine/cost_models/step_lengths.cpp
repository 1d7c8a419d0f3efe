// engine/cost_models/step_lengths.cpp: make_step_table and GeodesicLine (engine/cost_models/step_lengths.h).
#include "engine/cost_models/step_lengths.h"

#include <geodesic.h>  // PROJ's geodesic routines (geod_init, geod_inverse)

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <ogr_spatialref.h>

#include "kernels/common/enum_names.h"
#include "kernels/common/error.h"

namespace terrazo {
namespace {


struct Ellipsoid {
  double a = 0, f = 0;
};

// The ellipsoid of a geographic CRS, or UsageError naming `what`.
Ellipsoid geographic_ellipsoid(const std::string& wkt, const std::string& what) {
  if (wkt.empty())
    throw UsageError(what + " needs a CRS and the raster has none; assign one (gdal_edit.py -a_srs EPSG:4326) or use "
                     "--distance cells");
  OGRSpatialReference srs;
  if (srs.importFromWkt(wkt.c_str()) != OGRERR_NONE) throw UsageError(what + ": the raster's CRS cannot be read");
  if (!srs.IsGeographic())
    throw UsageError(what + " needs a geographic (lon/lat) CRS and the raster's is projected; use --distance map "
                     "(lengths in the CRS's unit)");
  OGRErr err = OGRERR_NONE;
  Ellipsoid e;
  e.a = srs.GetSemiMajor(&err);
  if (err != OGRERR_NONE || !(e.a > 0)) throw UsageError(what + ": the raster's CRS has no ellipsoid");
  const double inverse = srs.GetInvFlattening(&err);
  e.f = inverse > 0 ? 1.0 / inverse : 0.0;  // 0: a sphere
  if (std::fabs(srs.GetAngularUnits(nullptr) - M_PI / 180.0) > 1e-12)
    throw UsageError(what + ": the raster's CRS has angular units other than degrees");
  return e;
}

void require_north_up(const RasterInfo& info, const std::string& what) {
  if (!info.has_geotransform)
    throw UsageError(what + " needs a georeferenced raster and this one has no geotransform; use --distance cells");
  const auto& g = info.geotransform;
  if (g[2] != 0 || g[4] != 0)
    throw UsageError(what + " needs a north-up raster (no rotation terms in the geotransform); warp it first "
                     "(gdalwarp) or use --distance cells");
  if (!(g[1] != 0 && g[5] != 0 && std::isfinite(g[1]) && std::isfinite(g[5])))
    throw UsageError(what + ": the geotransform's pixel size " + format_value(g[1]) + " x " + format_value(g[5]) +
                     " is not a finite nonzero size");
}

double geodesic_metres(const struct geod_geodesic& g, double lat1, double lon1, double lat2, double lon2) {
  double s12 = 0, azi1 = 0, azi2 = 0;
  geod_inverse(&g, lat1, lon1, lat2, lon2, &s12, &azi1, &azi2);
  return s12;
}

double clamp_latitude(double lat) { return std::max(-90.0, std::min(90.0, lat)); }

void set_bounds(StepLengths* s, const double* values, std::size_t n) {
  s->min_length = *std::min_element(values, values + n);
  s->max_length = *std::max_element(values, values + n);
}

}  // namespace

namespace {
constexpr EnumName<DistanceMode> kDistanceModeNames[] = {
    {DistanceMode::Cells, "cells"}, {DistanceMode::Map, "map"}, {DistanceMode::Geodesic, "geodesic"}};
}  // namespace

DistanceMode parse_distance_mode(const std::string& text) { return parse_named(kDistanceModeNames, "--distance", text); }

const char* to_string(DistanceMode mode) { return name_of(kDistanceModeNames, mode); }

bool crs_is_geographic(const std::string& wkt) {
  if (wkt.empty()) return false;
  OGRSpatialReference srs;
  return srs.importFromWkt(wkt.c_str()) == OGRERR_NONE && srs.IsGeographic();
}

std::uint64_t step_table_bytes(DistanceMode mode, std::uint64_t height) {
  return mode == DistanceMode::Geodesic ? height * 3 * sizeof(double) : 0;
}

StepTable make_step_table(DistanceMode mode, const RasterInfo& info) {
  StepTable table;
  table.mode = mode;
  if (mode == DistanceMode::Cells) return table;
  const std::string what = std::string("--distance ") + to_string(mode);
  require_north_up(info, what);
  const auto& g = info.geotransform;
  if (mode == DistanceMode::Map) {
    if (crs_is_geographic(info.crs_wkt))
      throw UsageError("--distance map on a geographic (lon/lat) CRS would measure in degrees; use --distance geodesic "
                       "(metres on the ellipsoid)");
    StepLengths& s = table.lengths;
    s.ew = std::fabs(g[1]);
    s.ns = std::fabs(g[5]);
    s.diag = std::sqrt(s.ew * s.ew + s.ns * s.ns);
    const double all[3] = {s.ew, s.ns, s.diag};
    set_bounds(&s, all, 3);
    table.unit = "map unit";
    if (!info.crs_wkt.empty()) {
      OGRSpatialReference srs;
      if (srs.importFromWkt(info.crs_wkt.c_str()) == OGRERR_NONE) {
        const char* name = nullptr;
        srs.GetLinearUnits(&name);
        if (name && *name) table.unit = name;
      }
    }
    return table;
  }
  const Ellipsoid e = geographic_ellipsoid(info.crs_wkt, what);
  struct geod_geodesic geod;
  geod_init(&geod, e.a, e.f);
  const double dlon = std::fabs(g[1]);
  for (const double edge : {g[3], g[3] + static_cast<double>(info.height) * g[5]})
    if (!(edge >= -90.0 - 1e-9 && edge <= 90.0 + 1e-9))
      throw UsageError(what + ": the raster's rows reach latitude " + format_value(edge) +
                       ", outside -90..90 degrees; is its CRS really geographic (lon/lat)?");
  auto rows = std::make_shared<std::vector<double>>(info.height * 3);
  std::vector<double>& r = *rows;
  for (std::uint64_t y = 0; y < info.height; ++y) {
    const double lat = clamp_latitude(g[3] + (static_cast<double>(y) + 0.5) * g[5]);
    const double next = clamp_latitude(g[3] + (static_cast<double>(y) + 1.5) * g[5]);
    r[3 * y + 0] = geodesic_metres(geod, lat, 0.0, lat, dlon);
    r[3 * y + 1] = geodesic_metres(geod, lat, 0.0, next, 0.0);
    r[3 * y + 2] = geodesic_metres(geod, lat, 0.0, next, dlon);
  }
  StepLengths& s = table.lengths;
  s.rows = r.data();
  s.row_count = static_cast<std::int64_t>(info.height);
  // Bounds over the entries steps use: every east-west length, the pair lengths of rows 0..H-2.
  s.min_length = s.max_length = r[0];
  for (std::uint64_t y = 0; y < info.height; ++y)
    for (int k = 0; k < 3; ++k) {
      if (k > 0 && y + 1 == info.height) continue;
      s.min_length = std::min(s.min_length, r[3 * y + k]);
      s.max_length = std::max(s.max_length, r[3 * y + k]);
    }
  if (!(s.min_length > 0))
    throw UsageError(what + ": a step of the raster has length 0 (a row at a pole); crop the polar rows");
  table.rows = std::move(rows);
  table.unit = "metre";
  return table;
}

struct GeodesicLine::Impl {
  struct geod_geodesic geod;
};

GeodesicLine::GeodesicLine(const std::string& wkt) : impl_(std::make_unique<Impl>()) {
  const Ellipsoid e = geographic_ellipsoid(wkt, "geodesic path lengths");
  geod_init(&impl_->geod, e.a, e.f);
}

GeodesicLine::~GeodesicLine() = default;

double GeodesicLine::distance(double lon1, double lat1, double lon2, double lat2) const {
  return geodesic_metres(impl_->geod, clamp_latitude(lat1), lon1, clamp_latitude(lat2), lon2);
}

}  // namespace terrazo
