// gdal/ascii_grid.h: ESRI ASCII grids compressed with gzip (.asc.gz), streamed through
// Boost.Iostreams' gzip_decompressor without ever holding the whole raster.
//
// Format (ESRI "ASCII raster", as GDAL's AAIGrid driver reads it): a header of case-insensitive
// `key value` lines, ncols, nrows, xllcorner|xllcenter, yllcorner|yllcenter, cellsize (or dx and
// dy), optional NODATA_value, then nrows x ncols numbers, row by row from the north, separated by
// any white space. A `<name>.prj` beside it (ESRI or WKT) gives the CRS.
// Cell type, as GDAL decides it: Float32 when any number (or the nodata value) has a '.', an
// exponent or a NaN/Inf; else Int32; integers beyond Int32 make it Float64 (GDAL would wrap them).
//
// Two forward passes over the compressed stream: open() checks the header, counts the numbers
// (a short or overlong file is an Error at open, not halfway through an import) and decides the
// type; read_window() then parses rows as they are asked for. Only the rows of the current window
// are held (resident_bytes(rows) = ncols x rows x 8 bytes, plus a 64 KiB read buffer), so windows
// must come with non-decreasing y0 (RasterReader's rule for this format); an earlier row is an Error.
#pragma once
#include <memory>
#include <string>

#include "gdal/gdal_raster.h"

namespace terrazo {

// True when `path` ends in .asc.gz, or in .gz with decompressed text that starts like an ESRI
// ASCII grid header.
bool is_gzip_ascii_grid(const std::string& path);

std::unique_ptr<RasterReader> open_gzip_ascii_grid(const std::string& path);

}  // namespace terrazo
