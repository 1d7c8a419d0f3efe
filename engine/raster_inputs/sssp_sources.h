// engine/raster_inputs/sssp_sources.h: the source cells of a cost-distance run, from points or a raster mask.
//
// Point sources (ids 1, 2, ... in the order given: every --source, then the points of
// --sources-file in layer and feature order):
//  - pixel coordinates "x,y": column x, row y (integers, 0-based, y downwards as in GDAL);
//  - map coordinates (--map-coords): "x,y" in the raster's CRS, mapped to the cell containing the
//    point through the inverse geotransform (floor of the pixel position);
//  - map coordinates in another CRS (--source-crs, any definition OGR accepts: "EPSG:4326", WKT,
//    PROJ): transformed to the raster's CRS first (traditional GIS axis order: x = easting/longitude);
//  - an OGR vector file of points (--sources-file; Point and MultiPoint geometries), transformed
//    from the layer's CRS to the raster's when both are known.
// Raster mask sources (--source-raster): a raster of the input's size; every cell that is not
// nodata and not 0 is a source whose id is the cell value (a positive integer below 2^32 - 1).
// Mask cells on nodata input cells are skipped (counted); a point on a nodata cell is an error.
// Errors (UsageError, one line naming the flag and the value): malformed coordinates, a point
// outside the raster, a point on nodata, no source at all, a mask of another size, a mask value
// that is not a positive integer.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/store/raster_info.h"

namespace terrazo {

struct SourcePoint {
  double x = 0, y = 0;
  std::string text;  // as the user gave it, for messages ("--source 120,45", "points.gpkg feature 3")
  double start = 0;  // initial cost (--source-initial-field FIELD of --sources-file), cost units, >= 0
  double max_cost = -1;    // maximum accumulation (--source-max-field), cost units; < 0: none
  double multiplier = 1;   // cost multiplier (--source-multiplier-field), > 0
  // Features without geometry skipped just before this point (--skip-empty-features): each leaves
  // one id unused, so the point's id is that many above the previous point's plus one.
  std::uint32_t ids_skipped = 0;
};

// Attribute names of the per-source settings of a --sources-file (empty: none) and the values a
// point takes where the attribute is absent or null (the whole run's --source-initial,
// --source-multiplier; no maximum). docs/sssp.md "Per-source settings".
struct SourceFields {
  std::string start, max_cost, multiplier;
  double default_start = 0, default_multiplier = 1;
  // --skip-empty-features: a feature without geometry is skipped, its id left unused, instead of
  // refused.
  bool skip_empty_features = false;
};

// "x,y" -> SourcePoint; UsageError naming `flag` on anything else.
SourcePoint parse_source_point(const std::string& text, const std::string& flag = "--source");

// Points of an OGR vector file, in the file's CRS, and that CRS as WKT (empty when none). Each named
// field of `fields` sets that setting of every point from its attribute (numeric; an unset or null
// field takes the default): initial cost >= 0, maximum cost >= 0, multiplier > 0, all finite; a
// layer without the field, a non-numeric attribute or a value out of range is a UsageError.
// Every feature gives its points in order (a multipoint several): a feature with no geometry (null,
// POINT EMPTY, an empty point in a multipoint) is a UsageError naming its layer and feature index,
// so that the ids always follow the file; with fields.skip_empty_features it is skipped and leaves
// one id unused (SourcePoint::ids_skipped). A `.csv` file is read by GDAL's CSV driver with points
// from a WKT column or from x and y columns named x, lon, long, longitude or easting and y, lat,
// latitude or northing (any case); a file none of whose layers has a geometry column is a
// UsageError naming the columns (a layer without one beside point layers, such as a GeoPackage's
// attribute table, holds no point and is passed over).
// `flag` (--sources-file, --sites-file) names the file in messages.
std::vector<SourcePoint> read_source_points(const std::string& path, std::string* crs_wkt,
                                            const SourceFields& fields = {},
                                            const std::string& flag = "--sources-file");

// A located point source: global cell id and source id.
struct SourceCell {
  std::uint64_t cell = 0;
  std::uint32_t id = 0;
  std::string text;
  double start = 0;  // initial cost, cost units (SourcePoint::start)
  double max_cost = -1, multiplier = 1;  // SourcePoint's
};

// Maps points to cells of the raster described by `info`. `map_coords`: x, y are map coordinates in
// `points_crs_wkt` (empty: the raster's CRS); otherwise pixel coordinates. First id: `first_id`, then
// one more per point and per id a point's ids_skipped leaves unused.
std::vector<SourceCell> locate_source_points(const std::vector<SourcePoint>& points, const RasterInfo& info,
                                             bool map_coords, const std::string& points_crs_wkt,
                                             std::uint32_t first_id, const std::string& flag);

// A CRS definition in any form OGR's SetFromUserInput accepts -> WKT; UsageError naming `flag`.
std::string crs_to_wkt(const std::string& definition, const std::string& flag);

}  // namespace terrazo
