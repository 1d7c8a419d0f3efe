// io/gdal/geotiff_header.h: the first directory of a new tiled GeoTIFF, written with libtiff alone.
//
// GeoTiffWriter's block writer (io/gdal/tiff_block_writer.h) appends every block itself; all it needs
// from GDAL is the new file's header: size, cell type, tiling, codec and predictor, the
// georeferencing and the nodata tag, with an empty block table (GTiff's SPARSE_OK). For the
// rasters a small run writes, that header is a handful of tags, and writing it here spares the
// process loading GDAL's libraries (about 80 ms; docs/architecture.md "GDAL loaded on demand").
//
// What it writes is what GDAL 3.6's GTiff driver writes for the same raster, tag for tag and byte for
// byte (tests/test_geotiff_header.cpp creates both and compares the files):
//  - ImageWidth, ImageLength, BitsPerSample, Compression, Photometric (min-is-black),
//    SamplesPerPixel 1, PlanarConfiguration 1, Predictor (for LZW, DEFLATE and ZSTD, 1 included),
//    TileWidth, TileLength, the empty TileOffsets and TileByteCounts, SampleFormat;
//  - a north-up geotransform as ModelPixelScale (g1, -g5, 0) and ModelTiepoint (0, 0, 0, g0, g3, 0);
//  - the CRS's GeoKeys, for the CRSs of a table taken from GDAL (geotiff_crs_table: SRTM's WGS 84,
//    EPSG:3857); no CRS writes no GeoKeys, as GDAL does;
//  - GDAL_NODATA (tag 42113) as GDAL formats it ("%.18g", "nan").
// Anything else (another CRS, a rotated or south-up geotransform, a raster that could need BigTIFF,
// a creation option outside terrazo's defaults) returns false and writes nothing: GDAL creates the file.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/gdal/tiff_block_writer.h"
#include "io/store/raster_info.h"

namespace terrazo {

// The TIFF tags of GeoTIFF georeferencing and of GDAL's own that terrazo reads and writes.
constexpr std::uint32_t kModelPixelScale = 33550, kModelTiepoint = 33922, kModelTransformation = 34264,
                        kGeoKeyDirectory = 34735, kGeoDoubleParams = 34736, kGeoAsciiParams = 34737,
                        kGdalMetadata = 42112, kGdalNodata = 42113;

// A CRS as GDAL 3.6 writes its GeoKeys and reads them back: `wkt` is what GDAL's GTiff driver gives
// for a file with exactly these three tags (no double parameters: no GeoDoubleParams tag), and the
// tags are what it writes for `wkt` (tests/test_gdal_on_demand.cpp checks both ways against GDAL).
struct GeoTiffCrs {
  std::string wkt;
  std::vector<std::uint16_t> keys;
  std::vector<double> doubles;
  std::string ascii;
};
// The CRSs terrazo writes and reads without GDAL: SRTM's WGS 84 and EPSG:3857 (`terrazo gen`'s).
const std::vector<GeoTiffCrs>& geotiff_crs_table();

// Writes the header of a `width` x `height` tiled GeoTIFF of `format` at `path` (created or truncated)
// and returns true, or returns false having written nothing when GDAL must create it (see above).
// `creation_options` are the GTiff options GeoTiffWriter would give GDAL. Throws Error when libtiff
// cannot write the file.
bool write_geotiff_header(const std::string& path, std::uint64_t width, std::uint64_t height,
                          const TiffBlockFormat& format, const RasterInfo& georef, bool has_nodata, double nodata,
                          const std::vector<std::pair<std::string, std::string>>& creation_options);

// The GDAL_NODATA tag's text for `nodata`, as GDAL's GTiff driver writes it.
std::string gdal_nodata_text(double nodata);

// Registers the GeoTIFF and GDAL tags terrazo writes with libtiff (once per process; GDAL's own
// registration, when GDAL is loaded, adds the same fields).
void register_geotiff_tags();

}  // namespace terrazo
