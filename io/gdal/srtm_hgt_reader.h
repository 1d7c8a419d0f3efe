// io/gdal/srtm_hgt_reader.h: SRTM height files (.hgt) read without GDAL.
//
// An SRTM tile is one square of big-endian Int16 cells (1201 x 1201 at 3 arc-seconds, 3601 x 3601 at
// 1 arc-second) named for its south-west corner, e.g. N44W072.hgt: nothing else in the file. Reading
// it needs no library, and not loading GDAL saves a process about 80 ms of dynamic linking (GDAL's
// 114 libraries; docs/architecture.md "GDAL loaded on demand"), which is a quarter of a whole
// `sssp` or `mst` run on such a tile.
//
// The reader gives exactly what GDAL's SRTMHGT driver gives (tests/test_srtm_hgt_reader.cpp compares
// the two on the shipped tile and on generated ones in every hemisphere): Int16 cells, nodata
// -32768, the driver's geotransform (corner minus half a cell, cell size 1 / (n - 1) degrees) and its
// WGS 84 CRS, as WKT1 (kSrtmWgs84Wkt). Anything it does not recognise goes to GDAL: another name
// (N44W072.SRTMGL1.hgt, a .zip), another size, or a GDAL side file (N44W072.hgt.aux.xml) that could
// override what the file says.
#pragma once
#include <memory>
#include <string>

#include "io/gdal/gdal_raster.h"

namespace terrazo {

// The WKT GDAL (3.6) gives an SRTM tile's CRS: WGS 84, latitude first in the axis order of EPSG:4326.
extern const char* const kSrtmWgs84Wkt;

// The reader of `path` when it is an SRTM tile this reader takes (see above), else nullptr (open it
// with GDAL). Throws Error when the file cannot be opened or read.
std::unique_ptr<RasterReader> open_srtm_hgt(const std::string& path);

}  // namespace terrazo
