// io/gdal/decimated_read.h: one band of a raster read at a smaller (or larger) size, for pictures.
//
// read_decimated() returns an out_w x out_h grid of doubles (NaN = nodata) covering the whole raster:
// output cell (i, j) stands for the source box [i W/out_w, (i+1) W/out_w) x [j H/out_h, (j+1) H/out_h).
//  - GDAL rasters: GDALRasterIOEx with a buffer of the output size and the resampling asked for
//    (nearest: the cell under the box centre; average: the mean of the valid cells the box covers,
//    weighted by the covered fraction of each, nodata cells left out, rounded to the band's type: a
//    Float32 band's mean is a float). GDAL takes overviews when the
//    file has them, so a picture of a raster far larger than memory reads a fraction of it. Read in
//    strips of output rows (a floating-point source window per strip: the same cells as one read),
//    with progress per strip.
//  - terrazo tile stores and gzip ASCII grids (which GDAL cannot open): through RasterReader, row
//    by row; nearest takes source row/column floor((k + 0.5) * N / n); average takes the plain mean
//    of the valid cells in [floor(k N / n), floor((k+1) N / n)) (at least one cell) per axis, source rows
//    read in windows of up to 256 rows (at most a quarter of the budget's free bytes), each once.
// Memory: GDAL's block cache capped at `cache_bytes` and reserved from the budget, the output grid
// (8 bytes per output cell) and, for the RasterReader path, the source window (8 W bytes per row)
// and two rows of sums (16 out_w bytes), all reserved from `budget`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/store/raster_info.h"

namespace terrazo {

enum class Resampling { Nearest, Average };

struct DecimatedRaster {
  RasterInfo info;                 // of the source raster (size, type, nodata, geotransform, CRS)
  std::string format;              // driver name, as RasterReader::format()
  std::uint32_t width = 0, height = 0;  // of the grid below
  std::vector<double> cells;       // width * height, row-major, NaN = nodata
  bool via_gdal = false;           // read by GDALRasterIOEx (else by RasterReader rows)
  MemoryBudget::Reservation grid_bytes;  // the budget's share held by `cells`
};

// Size, type, nodata, geotransform and CRS of band `band` (0: the only band) of `path`.
RasterInfo probe_raster(const std::string& path, std::uint32_t band, MemoryBudget& budget);

DecimatedRaster read_decimated(const std::string& path, std::uint32_t band, std::uint32_t out_w, std::uint32_t out_h,
                               Resampling resampling, MemoryBudget& budget, Progress& progress,
                               std::uint64_t cache_bytes = 32ull << 20);

}  // namespace terrazo
