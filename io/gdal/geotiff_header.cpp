// io/gdal/geotiff_header.cpp: write_geotiff_header (io/gdal/geotiff_header.h).
#include "io/gdal/geotiff_header.h"

#include <tiffio.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "kernels/common/error.h"
#include "kernels/common/text_case.h"
#include "io/gdal/srtm_hgt_reader.h"
#include "io/gdal/tiff_messages.h"

namespace terrazo {

namespace {

// As libgeotiff (xtiff.c) and GDAL's GTiff driver declare them, so that libtiff reads and writes them
// with the same types and counts.
const TIFFFieldInfo kGeoTiffFields[] = {
    {kModelPixelScale, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoPixelScale")},
    {kModelTiepoint, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoTiePoints")},
    {kGeoKeyDirectory, -1, -1, TIFF_SHORT, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoKeyDirectory")},
    {kGeoDoubleParams, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoDoubleParams")},
    {kGeoAsciiParams, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, const_cast<char*>("GeoASCIIParams")},
    {kGdalNodata, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, const_cast<char*>("GDALNoDataValue")},
    {kModelTransformation, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoTransformationMatrix")},
    {kGdalMetadata, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, const_cast<char*>("GDALMetadata")},
};

TIFFExtendProc previous_extender = nullptr;

void extend_tags(TIFF* tif) {
  TIFFMergeFieldInfo(tif, kGeoTiffFields, sizeof(kGeoTiffFields) / sizeof(kGeoTiffFields[0]));
  if (previous_extender) previous_extender(tif);
}

// True when every creation option is one the header (or the block writer) accounts for.
bool options_known(const std::vector<std::pair<std::string, std::string>>& options, std::uint32_t block) {
  for (const auto& [key_text, value_text] : options) {
    const std::string key = to_upper(key_text), value = to_upper(value_text);
    if (key == "TILED") {
      if (value != "YES" && value != "TRUE" && value != "ON" && value != "1") return false;
    } else if (key == "BLOCKXSIZE" || key == "BLOCKYSIZE") {
      if (value != std::to_string(block)) return false;
    } else if (key == "BIGTIFF") {
      if (value != "IF_SAFER" && value != "IF_NEEDED" && value != "NO") return false;
    } else if (key != "COMPRESS" && key != "PREDICTOR" && key != "ZSTD_LEVEL" && key != "ZLEVEL" &&
               key != "NUM_THREADS" && key != "SPARSE_OK") {
      return false;  // the codec keys are the block writer's (fast_path_codec); anything else is GDAL's
    }
  }
  return true;
}

}  // namespace

const std::vector<GeoTiffCrs>& geotiff_crs_table() {
  static const std::vector<GeoTiffCrs> table = {
      // The WGS 84 of SRTM tiles (io/gdal/srtm_hgt_reader.h): GTModelType 2 (geographic), GTRasterType 1
      // (pixel is area), GeographicType 4326, GeogCitation "WGS 84", GeogAngularUnits 9102 (degree),
      // GeogSemiMajorAxis and GeogInvFlattening in the double parameters.
      {kSrtmWgs84Wkt,
       {1, 1, 0, 7, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326, 2049, 34737, 7, 0, 2054, 0, 1, 9102, 2057, 34736, 1,
        1, 2059, 34736, 1, 0},
       {298.257223563, 6378137.0},
       "WGS 84|"},
      // EPSG:3857, `terrazo gen`'s default: GTModelType 1 (projected), GTRasterType 1, GTCitation,
      // GeogCitation, GeogAngularUnits 9102, ProjectedCSType 3857, ProjLinearUnits 9001 (metre).
      {"PROJCS[\"WGS 84 / Pseudo-Mercator\",GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,"
       "298.257223563,AUTHORITY[\"EPSG\",\"7030\"]],AUTHORITY[\"EPSG\",\"6326\"]],PRIMEM[\"Greenwich\",0,AUTHORITY["
       "\"EPSG\",\"8901\"]],UNIT[\"degree\",0.0174532925199433,AUTHORITY[\"EPSG\",\"9122\"]],AUTHORITY[\"EPSG\","
       "\"4326\"]],PROJECTION[\"Mercator_1SP\"],PARAMETER[\"central_meridian\",0],PARAMETER[\"scale_factor\",1],"
       "PARAMETER[\"false_easting\",0],PARAMETER[\"false_northing\",0],UNIT[\"metre\",1,AUTHORITY[\"EPSG\","
       "\"9001\"]],AXIS[\"Easting\",EAST],AXIS[\"Northing\",NORTH],EXTENSION[\"PROJ4\",\"+proj=merc +a=6378137 "
       "+b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs\"],AUTHORITY["
       "\"EPSG\",\"3857\"]]",
       {1, 1, 0, 7, 1024, 0, 1, 1, 1025, 0, 1, 1, 1026, 34737, 25, 0, 2049, 34737, 7, 25, 2054, 0, 1, 9102, 3072, 0, 1,
        3857, 3076, 0, 1, 9001},
       {},
       "WGS 84 / Pseudo-Mercator|WGS 84|"},
  };
  return table;
}

void register_geotiff_tags() {
  static std::once_flag once;
  std::call_once(once, [] { previous_extender = TIFFSetTagExtender(extend_tags); });
}

std::string gdal_nodata_text(double nodata) {
  if (std::isnan(nodata)) return "nan";
  char text[64];
  std::snprintf(text, sizeof text, "%.18g", nodata);
  return text;
}

bool write_geotiff_header(const std::string& path, std::uint64_t width, std::uint64_t height,
                          const TiffBlockFormat& format, const RasterInfo& georef, bool has_nodata, double nodata,
                          const std::vector<std::pair<std::string, std::string>>& creation_options) {
  if (!options_known(creation_options, format.block)) return false;
  const GeoTiffCrs* crs = nullptr;
  if (!georef.crs_wkt.empty()) {
    for (const GeoTiffCrs& k : geotiff_crs_table())
      if (georef.crs_wkt == k.wkt) crs = &k;
    if (!crs) return false;
  }
  const auto& g = georef.geotransform;
  if (georef.has_geotransform && !(g[2] == 0.0 && g[4] == 0.0 && g[5] < 0.0)) return false;
  // Classic TIFF only where GDAL's BIGTIFF=IF_SAFER surely picks it: the blocks' uncompressed bytes
  // (padding included, more than GDAL counts) under 2 GB.
  const std::uint64_t across = (width + format.block - 1) / format.block, down = (height + format.block - 1) / format.block;
  if (static_cast<double>(across * down) * static_cast<double>(format.block_bytes()) > 2e9) return false;

  register_geotiff_tags();
  TiffMessages messages;
  TIFF* tif = tiff_open(path, "w", &messages);
  if (!tif) throw Error("cannot create '" + path + "'" + messages.reason());
  bool ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(width)) &&
            TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(height)) &&
            TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, format.bits_per_sample) &&
            TIFFSetField(tif, TIFFTAG_COMPRESSION, format.compression) &&
            TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
            TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, format.sample_format) &&
            TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1) &&
            TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, format.block) && TIFFSetField(tif, TIFFTAG_TILELENGTH, format.block);
  // GTiff sets the predictor of every codec that takes one, 1 included, and of no other.
  if (ok && (format.compression == COMPRESSION_LZW || format.compression == COMPRESSION_ADOBE_DEFLATE ||
             format.compression == COMPRESSION_ZSTD))
    ok = TIFFSetField(tif, TIFFTAG_PREDICTOR, format.predictor);
  if (ok && georef.has_geotransform) {
    const double scale[3] = {g[1], -g[5], 0.0};
    const double tiepoint[6] = {0.0, 0.0, 0.0, g[0], g[3], 0.0};
    ok = TIFFSetField(tif, kModelPixelScale, 3, scale) && TIFFSetField(tif, kModelTiepoint, 6, tiepoint);
  }
  if (ok && crs)
    ok = TIFFSetField(tif, kGeoKeyDirectory, static_cast<int>(crs->keys.size()), crs->keys.data()) &&
         (crs->doubles.empty() ||
          TIFFSetField(tif, kGeoDoubleParams, static_cast<int>(crs->doubles.size()), crs->doubles.data())) &&
         TIFFSetField(tif, kGeoAsciiParams, crs->ascii.c_str());
  if (ok && has_nodata) ok = TIFFSetField(tif, kGdalNodata, gdal_nodata_text(nodata).c_str());
  if (ok) ok = TIFFWriteCheck(tif, 1, "terrazo") && TIFFWriteDirectory(tif);
  TIFFClose(tif);
  if (!ok) {
    std::remove(path.c_str());
    throw Error("cannot write the GeoTIFF header of '" + path + "'" + messages.reason());
  }
  return true;
}

}  // namespace terrazo
