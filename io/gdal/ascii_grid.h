// io/gdal/ascii_grid.h: the one reader of ESRI ASCII grids, plain (.asc) and gzip-compressed
// (.asc.gz, streamed through Boost.Iostreams' gzip_decompressor), strict, without ever holding the
// whole raster. GDAL's AAIGrid driver is not used: it reads "nan", "inf" and words such as "x" as
// cells, ignores values beyond ncols x nrows, and the two forms behaved differently
// (docs/reliability.md "Strict readers").
//
// Format (ESRI "ASCII raster"): a header of case-insensitive `key value` lines, ncols, nrows,
// xllcorner|xllcenter, yllcorner|yllcenter, cellsize (or dx and dy), optional NODATA_value, then
// nrows x ncols numbers, row by row from the north, separated by any white space. A `<name>.prj`
// beside it (ESRI or WKT) gives the CRS.
// Strict: every header value and every cell is a decimal number ([+-]digits[.digits][e[+-]digits];
// no NaN, Inf, hexadecimal or words); a missing header key is named; a key given twice, ncols or
// nrows not a positive integer, cellsize (dx, dy) <= 0, fewer or more than ncols x nrows values
// are Errors, with the line and column of the bad token where there is one.
// Cell type, as GDAL decides it: Float32 when any number (or the nodata value) has a '.' or an
// exponent; else Int32; integers beyond Int32 make it Float64 (GDAL would wrap them).
//
// Two forward passes: open() checks the header and every token, counts the numbers and decides the
// type; read_window() then parses rows as they are asked for. Only the rows of the current window
// are held (resident_bytes(rows) = ncols x rows x 8 bytes, plus a 64 KiB read buffer). Windows
// coming with non-decreasing y0 (as import reads them) are one pass; a window above the rows held
// starts the parse again from the top (correct, but slow when done often).
#pragma once
#include <memory>
#include <string>

#include "io/gdal/gdal_raster.h"

namespace terrazo {

// True when `path` ends in .asc or .asc.gz, or its (decompressed, for .gz) text starts with an
// ESRI ASCII grid header key. *gzip: whether it ends in .gz.
bool is_ascii_grid(const std::string& path, bool* gzip);

std::unique_ptr<RasterReader> open_ascii_grid(const std::string& path, bool gzip);

}  // namespace terrazo
