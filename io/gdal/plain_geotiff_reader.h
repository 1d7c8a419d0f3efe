// io/gdal/plain_geotiff_reader.h: plain tiled GeoTIFFs read with libtiff alone, GDAL left unloaded.
//
// terrazo's own outputs and `terrazo gen`'s rasters are tiled one-band GeoTIFFs whose whole
// georeferencing is a pixel scale, one tiepoint and the GeoKeys of a CRS GDAL writes the same way
// every time. Reading such a file needs libtiff only (the library GDAL's GTiff driver decodes with),
// and leaving GDAL unloaded saves a process about 80 ms (docs/architecture.md "GDAL loaded on
// demand") and the first CRS look-up's 40-55 ms of PROJ queries.
//
// The reader gives what GDAL gives (tests/test_gdal_on_demand.cpp compares the two: info, every cell,
// random windows, on terrazo's outputs of every cell type and codec and on `gen`'s rasters):
//  - size, cell type (Byte, Int16, UInt16, Int32, UInt32, Float32, Float64), format "GTiff", the
//    square block edge;
//  - nodata from GDAL's GDAL_NODATA tag, parsed as a whole number or decimal ("nan" included);
//  - the geotransform from ModelPixelScale and the one ModelTiepoint, as GDAL computes it;
//  - the CRS: the WKT GDAL reads for the file's GeoKeys, for the CRSs of geotiff_crs_table
//    (io/gdal/geotiff_header.h); no GeoKeys, no CRS.
// Anything else is GDAL's (open_plain_geotiff returns nullptr): stripped files, several directories
// (overviews, masks), several samples, palettes, a ModelTransformation, GDAL_METADATA (scale,
// offset, PIXELTYPE), sparse blocks, codecs this libtiff lacks, another CRS, and any side file that
// could change what GDAL reads (.aux.xml, .msk, a world file).
//
// Reading is strict as GDAL's reads are in terrazo (docs/reliability.md "Strict readers"): any libtiff
// error or warning while decoding a block is an Error naming the file. Memory: one decoded block
// (resident_bytes), besides libtiff's own buffer of one compressed block.
#pragma once
#include <memory>
#include <string>

#include "io/gdal/gdal_raster.h"

namespace terrazo {

// The reader of `path` when it is a GeoTIFF this reader takes (see above), else nullptr (GDAL's).
std::unique_ptr<RasterReader> open_plain_geotiff(const std::string& path);

}  // namespace terrazo
