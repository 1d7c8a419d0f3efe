// engine/raster_inputs/sssp_sources.cpp: point sources from flags and vector files (engine/raster_inputs/sssp_sources.h).
#include "engine/raster_inputs/sssp_sources.h"

#include <cmath>
#include <cstdlib>
#include <memory>

#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <ogrsf_frmts.h>

#include "kernels/common/error.h"
#include "io/gdal/gdal_session.h"

namespace terrazo {

namespace {

bool parse_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*out);
}

std::string format_coordinate(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", v);
  return buffer;
}

// A file of .csv name is opened by GDAL's CSV driver with x and y columns recognised by these names
// (case-insensitive) besides its own WKT column; any other file by whichever driver takes it.
constexpr const char* kCsvXNames = "x,lon,long,longitude,easting";
constexpr const char* kCsvYNames = "y,lat,latitude,northing";

bool has_csv_name(const std::string& path) {
  return path.size() >= 4 && EQUAL(path.c_str() + path.size() - 4, ".csv");
}

std::unique_ptr<GDALDataset> open_point_file(const std::string& path, const std::string& flag) {
  const std::string x_names = std::string("X_POSSIBLE_NAMES=") + kCsvXNames;
  const std::string y_names = std::string("Y_POSSIBLE_NAMES=") + kCsvYNames;
  const char* csv_driver[] = {"CSV", nullptr};
  const char* csv_options[] = {x_names.c_str(), y_names.c_str(), nullptr};
  const bool csv = has_csv_name(path);
  std::unique_ptr<GDALDataset> dataset(static_cast<GDALDataset*>(
      GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, csv ? csv_driver : nullptr,
                 csv ? csv_options : nullptr, nullptr)));
  if (!dataset) throw UsageError(flag + " '" + path + "': cannot open it as a vector file: " + CPLGetLastErrorMsg());
  return dataset;
}

bool has_geometry_column(OGRLayer& layer) { return layer.GetLayerDefn()->GetGeomFieldCount() > 0; }

// A file none of whose layers has a geometry column (a CSV whose coordinates are in columns of
// other names) would give no point at all: refused naming the first layer's columns and the names
// that are read as x and y. A layer without one beside point layers (a GeoPackage's attribute
// table) holds no point and is passed over.
void check_file_has_points(GDALDataset& dataset, const std::string& path, const std::string& flag) {
  for (int l = 0; l < dataset.GetLayerCount(); ++l)
    if (has_geometry_column(*dataset.GetLayer(l))) return;
  if (dataset.GetLayerCount() == 0) return;  // no layer, no point: the caller's "no point" message
  OGRLayer& layer = *dataset.GetLayer(0);
  OGRFeatureDefn* definition = layer.GetLayerDefn();
  std::string columns;
  for (int i = 0; i < definition->GetFieldCount(); ++i)
    columns += (i ? ", " : "") + std::string(definition->GetFieldDefn(i)->GetNameRef());
  throw UsageError(flag + " '" + path + "' layer " + layer.GetName() + " has no point geometry: its columns are " +
                   (columns.empty() ? std::string("none") : columns) + "; a CSV needs a WKT column of points or an x "
                   "column (" + kCsvXNames + ") and a y column (" + kCsvYNames + "), any case");
}

// No geometry: null, empty, or an empty point of a multipoint.
bool has_no_geometry(const OGRGeometry* geometry) {
  bool empty = geometry == nullptr || geometry->IsEmpty();
  if (!empty && wkbFlatten(geometry->getGeometryType()) == wkbMultiPoint)
    for (const OGRPoint* point : *geometry->toMultiPoint()) empty = empty || point->IsEmpty();
  return empty;
}

[[noreturn]] void refuse_feature_without_geometry(const std::string& where) {
  throw UsageError(where + " has no geometry (null or empty); every feature must be a point, so that the ids "
                           "follow the features: remove it, give it a point, or give --skip-empty-features to "
                           "skip it and leave its id unused");
}

}  // namespace

SourcePoint parse_source_point(const std::string& text, const std::string& flag) {
  const auto comma = text.find(',');
  SourcePoint p;
  p.text = flag + " " + text;
  if (comma == std::string::npos || !parse_number(text.substr(0, comma), &p.x) ||
      !parse_number(text.substr(comma + 1), &p.y))
    throw UsageError("invalid " + flag + " '" + text + "': expected x,y (column,row; or map coordinates with --map-coords)");
  return p;
}

std::string crs_to_wkt(const std::string& definition, const std::string& flag) {
  ensure_gdal();
  OGRSpatialReference srs;
  if (srs.SetFromUserInput(definition.c_str()) != OGRERR_NONE)
    throw UsageError("invalid " + flag + " '" + definition + "': not a CRS OGR knows (try EPSG:4326 or a WKT file)");
  char* wkt = nullptr;
  srs.exportToWkt(&wkt);
  std::string result = wkt ? wkt : "";
  CPLFree(wkt);
  return result;
}

namespace {

// A per-source setting of the points file: its flag, its attribute's name, what a value must be,
// its field index in the current layer (-1: not asked for).
struct SettingField {
  const char* flag;
  const std::string* name;
  bool positive;  // > 0 (the multiplier), else >= 0
  int index = -1;
};

// The layer's CRS into *crs_wkt; every layer with one must have the same.
void take_layer_crs(OGRLayer& layer, const std::string& path, const std::string& flag, std::string* crs_wkt) {
  const OGRSpatialReference* srs = layer.GetSpatialRef();
  if (!srs) return;
  char* wkt = nullptr;
  srs->exportToWkt(&wkt);
  const std::string layer_wkt = wkt ? wkt : "";
  CPLFree(wkt);
  if (!crs_wkt->empty() && *crs_wkt != layer_wkt)
    throw UsageError(flag + " '" + path + "': its layers have different CRSs; use one layer");
  *crs_wkt = layer_wkt;
}

// The settings' field indices in `layer`; an attribute asked for must exist.
void find_setting_fields(OGRLayer& layer, const std::string& path, const std::string& flag, SettingField (&settings)[3]) {
  for (SettingField& f : settings) {
    f.index = -1;
    if (f.name->empty()) continue;
    f.index = layer.GetLayerDefn()->GetFieldIndex(f.name->c_str());
    if (f.index < 0)
      throw UsageError(std::string(f.flag) + " '" + *f.name + "': " + flag + " '" + path + "' layer " +
                       layer.GetName() + " has no such attribute");
  }
}

// The feature's initial cost, maximum cost and multiplier into values[0..2] (unset or null: the
// defaults already there); each numeric, finite and in its range.
void read_settings(OGRFeature& feature, const SettingField (&settings)[3], const std::string& where, double (&values)[3]) {
  for (int k = 0; k < 3; ++k) {
    const SettingField& f = settings[k];
    if (f.index < 0 || !feature.IsFieldSetAndNotNull(f.index)) continue;
    const OGRFieldType field_type = feature.GetFieldDefnRef(f.index)->GetType();
    if (field_type != OFTInteger && field_type != OFTInteger64 && field_type != OFTReal)
      throw UsageError(std::string(f.flag) + " '" + *f.name + "' is not a numeric attribute (" + where + ")");
    const double v = feature.GetFieldAsDouble(f.index);
    if (!(std::isfinite(v) && (f.positive ? v > 0 : v >= 0)))
      throw UsageError(where + ": " + f.flag + " '" + *f.name + "' is " + format_coordinate(v) + "; " +
                       (k == 0   ? "initial costs must be finite and >= 0"
                        : k == 1 ? "maximum costs must be finite and >= 0 (null: no maximum)"
                                 : "multipliers must be finite and > 0"));
    values[k] = v;
  }
}

}  // namespace

std::vector<SourcePoint> read_source_points(const std::string& path, std::string* crs_wkt,
                                            const SourceFields& fields, const std::string& flag) {
  ensure_gdal();
  reset_gdal_error();
  std::unique_ptr<GDALDataset> dataset = open_point_file(path, flag);
  check_file_has_points(*dataset, path, flag);
  std::vector<SourcePoint> points;
  crs_wkt->clear();
  SettingField settings[3] = {{"--source-initial-field", &fields.start, false},
                              {"--source-max-field", &fields.max_cost, false},
                              {"--source-multiplier-field", &fields.multiplier, true}};
  for (int l = 0; l < dataset->GetLayerCount(); ++l) {
    OGRLayer* layer = dataset->GetLayer(l);
    if (!has_geometry_column(*layer)) continue;
    take_layer_crs(*layer, path, flag, crs_wkt);
    find_setting_fields(*layer, path, flag, settings);
    layer->ResetReading();
    std::uint64_t feature_index = 0;
    std::uint32_t skipped = 0;  // features skipped since the last point (--skip-empty-features)
    for (auto& feature : *layer) {
      ++feature_index;
      const std::string where = flag + " " + path + " layer " + layer->GetName() + " feature " +
                                std::to_string(feature_index);
      const OGRGeometry* geometry = feature->GetGeometryRef();
      if (has_no_geometry(geometry)) {
        if (!fields.skip_empty_features) refuse_feature_without_geometry(where);
        ++skipped;
        continue;
      }
      double values[3] = {fields.default_start, -1, fields.default_multiplier};
      read_settings(*feature, settings, where, values);
      auto point_at = [&](double x, double y) {
        SourcePoint p{x, y, where, values[0]};
        p.max_cost = values[1];
        p.multiplier = values[2];
        p.ids_skipped = skipped;
        skipped = 0;
        return p;
      };
      const auto type = wkbFlatten(geometry->getGeometryType());
      if (type == wkbPoint) {
        const auto* point = geometry->toPoint();
        points.push_back(point_at(point->getX(), point->getY()));
      } else if (type == wkbMultiPoint) {
        for (const OGRPoint* point : *geometry->toMultiPoint()) points.push_back(point_at(point->getX(), point->getY()));
      } else {
        throw UsageError(where + " is a " + OGRGeometryTypeToName(geometry->getGeometryType()) +
                         ", not a point; sources must be points");
      }
    }
  }
  return points;
}

std::vector<SourceCell> locate_source_points(const std::vector<SourcePoint>& points, const RasterInfo& info,
                                             bool map_coords, const std::string& points_crs_wkt,
                                             std::uint32_t first_id, const std::string& flag) {
  std::vector<SourceCell> cells;
  if (points.empty()) return cells;
  std::unique_ptr<OGRCoordinateTransformation> transform;
  double inverse[6] = {0, 1, 0, 0, 0, 1};
  if (map_coords) {
    ensure_gdal();
    if (!info.has_geotransform)
      throw UsageError(flag + ": map coordinates need a georeferenced raster, and INPUT has no geotransform; "
                              "give pixel coordinates");
    if (!GDALInvGeoTransform(const_cast<double*>(info.geotransform.data()), inverse))
      throw UsageError(flag + ": INPUT's geotransform cannot be inverted");
    if (!points_crs_wkt.empty()) {
      if (info.crs_wkt.empty())
        throw UsageError(flag + ": the points have a CRS but INPUT has none; cannot transform between them");
      OGRSpatialReference from, to;
      from.importFromWkt(points_crs_wkt.c_str());
      to.importFromWkt(info.crs_wkt.c_str());
      from.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
      to.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
      if (!from.IsSame(&to)) {
        transform.reset(OGRCreateCoordinateTransformation(&from, &to));
        if (!transform) throw UsageError(flag + ": no transformation from the points' CRS to INPUT's CRS");
      }
    }
  }
  std::uint64_t id = first_id;
  for (const SourcePoint& p : points) {
    id += p.ids_skipped;
    if (id > 0xFFFFFFFEu) throw UsageError(flag + ": more than 2^32 - 2 point sources");
    double px = p.x, py = p.y;
    if (map_coords) {
      double x = p.x, y = p.y;
      if (transform && !transform->Transform(1, &x, &y))
        throw UsageError(p.text + ": cannot be transformed to INPUT's CRS");
      px = std::floor(inverse[0] + x * inverse[1] + y * inverse[2]);
      py = std::floor(inverse[3] + x * inverse[4] + y * inverse[5]);
    } else if (px != std::floor(px) || py != std::floor(py)) {
      throw UsageError(p.text + ": pixel coordinates must be integers (column,row); for map coordinates add --map-coords");
    }
    if (!(px >= 0 && py >= 0 && px < static_cast<double>(info.width) && py < static_cast<double>(info.height)))
      throw UsageError(p.text + " is outside the raster (" + std::to_string(info.width) + " x " +
                       std::to_string(info.height) + " cells" +
                       (map_coords ? ", pixel " + format_coordinate(px) + "," + format_coordinate(py) : std::string()) +
                       ")");
    cells.push_back(SourceCell{static_cast<std::uint64_t>(py) * info.width + static_cast<std::uint64_t>(px),
                               static_cast<std::uint32_t>(id), p.text, p.start, p.max_cost, p.multiplier});
    ++id;
  }
  return cells;
}

}  // namespace terrazo
