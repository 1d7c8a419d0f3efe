// io/gdal/geotiff_options.h: the GTiff creation options of every GeoTIFF terrazo writes: terrazo's
// defaults, the user's `--co KEY=VALUE` on top of them, and their validation against the GTiff
// driver (GDALValidateCreationOptions). GDAL-free header: the options travel in engine/commands/ structs.
//
// Defaults (geotiff_creation_options, docs/benchmarks.md "Output compression" has the measurements
// behind them):
//   TILED=YES BLOCKXSIZE=BLOCKYSIZE=<block> BIGTIFF=IF_SAFER
//   COMPRESS=ZSTD ZSTD_LEVEL=1 (DEFLATE at GDAL's level 6 when this GDAL lacks ZSTD), PREDICTOR=3 on
//   floating-point cells, 2 on integers wider than a byte, 1 on bytes (GeoTiffOptions::predictor
//   sets another for one output). ZSTD level 1 writes Float64
//   cost rasters with a quarter of DEFLATE's CPU time (DEFLATE 6) for a file 1.6% larger; GDAL >= 2.3
//   (QGIS, rasterio, R terra) reads it; --co COMPRESS=DEFLATE for readers without ZSTD.
//   NUM_THREADS=ALL_CPUS (threads == 0) or N (threads == N > 1); absent for one thread
// Overrides: each --co KEY=VALUE replaces terrazo's KEY (keys compare case-insensitively). A
// COMPRESS other than the default drops the default's level, and its PREDICTOR when the codec
// takes none (only DEFLATE, LZW, ZSTD and LZMA use one). The block layout (TILED, BLOCKXSIZE,
// BLOCKYSIZE) stays terrazo's: writers send each block whole, once (io/gdal/gdal_raster.h).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/store/raster_info.h"

namespace terrazo {

// The codec of terrazo's outputs when --co COMPRESS is not given: "ZSTD", or "DEFLATE" when the
// libtiff that GDAL's GTiff driver links was built without ZSTD (asked of libtiff: GDAL stays unloaded).
std::string default_geotiff_compress();

struct GeoTiffOptions {
  // --co KEY=VALUE, as typed, in order (a later KEY wins); each already validated
  // (validate_geotiff_creation_option).
  std::vector<std::string> creation;
  // Compression threads (GTiff NUM_THREADS): 0 all cores, else that many (--threads). A --co
  // NUM_THREADS overrides it.
  unsigned threads = 0;
  // How blocks are encoded: terrazo's block writer (io/gdal/tiff_block_writer.h: every thread encoding,
  // blocks appended in order; used for NONE/LZW/DEFLATE/ZSTD) or GDAL's RasterIO through its block
  // cache. Same cell values either way; the environment variable TERRAZO_GEOTIFF_ENCODER=gdal forces
  // GDAL's path (benchmarks compare the two).
  bool gdal_encoder = false;
  // Who writes the new file's header for the block writer: libtiff here (io/gdal/geotiff_header.h, the
  // same bytes, GDAL not loaded) where it can, or GDAL's GTiff driver (true; the tests compare the two).
  bool gdal_header = false;
  // This output's PREDICTOR when --co gives none: 0 the rule by cell type above, else 1, 2 or 3
  // (clump's labels: 1, engine/commands/clump.cpp).
  int predictor = 0;
};

// Splits "KEY=VALUE" and checks it against the GTiff driver: the key is one GTiff takes at creation,
// the value one it accepts (GDALValidateCreationOptions: the codecs this GDAL was built with, integer
// and boolean types), PREDICTOR is 1, 2 or 3, and the key is not one of the layout keys terrazo
// sets itself. Throws UsageError("invalid --co 'TEXT': <reason>"), one line, otherwise.
void validate_geotiff_creation_option(const std::string& text);

// The creation options of one output of `type` with `block` x `block` tiles: the defaults above,
// then options.creation. Throws UsageError when an override does not fit this output
// (PREDICTOR=3 on integer cells), naming `path`.
std::vector<std::pair<std::string, std::string>> geotiff_creation_options(CellType type, std::uint32_t block,
                                                                          const GeoTiffOptions& options,
                                                                          const std::string& path);

}  // namespace terrazo
