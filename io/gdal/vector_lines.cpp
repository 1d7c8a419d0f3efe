// io/gdal/vector_lines.cpp: read_vector_lines (io/gdal/vector_lines.h).
#include "io/gdal/vector_lines.h"

#include <cpl_conv.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

#include "kernels/common/error.h"
#include "io/gdal/gdal_session.h"

namespace terrazo {
namespace {

void add_line(OGRGeometryH g, VectorLines& out) {
  const int n = OGR_G_GetPointCount(g);
  std::vector<std::pair<double, double>> line;
  line.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) line.emplace_back(OGR_G_GetX(g, k), OGR_G_GetY(g, k));
  out.lines.push_back(std::move(line));
}

}  // namespace

VectorLines read_vector_lines(const std::string& path, const std::string& flag) {
  ensure_gdal();
  GDALDatasetH ds = GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
  if (!ds) throw UsageError(flag + " " + path + ": cannot open it as a vector file: " + CPLGetLastErrorMsg());
  VectorLines out;
  for (int l = 0; l < GDALDatasetGetLayerCount(ds); ++l) {
    OGRLayerH layer = GDALDatasetGetLayer(ds, l);
    if (l == 0) {
      if (OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(layer)) {
        char* wkt = nullptr;
        if (OSRExportToWkt(srs, &wkt) == OGRERR_NONE && wkt) out.crs_wkt = wkt;
        CPLFree(wkt);
      }
    }
    OGR_L_ResetReading(layer);
    while (OGRFeatureH feature = OGR_L_GetNextFeature(layer)) {
      OGRGeometryH g = OGR_F_GetGeometryRef(feature);
      const OGRwkbGeometryType type = g ? wkbFlatten(OGR_G_GetGeometryType(g)) : wkbUnknown;
      if (type == wkbLineString) {
        add_line(g, out);
      } else if (type == wkbMultiLineString) {
        for (int k = 0; k < OGR_G_GetGeometryCount(g); ++k) add_line(OGR_G_GetGeometryRef(g, k), out);
      } else {
        ++out.skipped;
      }
      OGR_F_Destroy(feature);
    }
  }
  GDALClose(ds);
  return out;
}

}  // namespace terrazo
