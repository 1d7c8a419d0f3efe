// io/gdal/decimated_read.cpp: read_decimated, probe_raster (io/gdal/decimated_read.h).
#include "io/gdal/decimated_read.h"

#include <gdal.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/common/error.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "io/store/cell_values.h"

namespace terrazo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct DatasetCloser {
  GDALDatasetH h = nullptr;
  ~DatasetCloser() {
    if (h) GDALClose(h);
  }
};

bool gdal_can_read(const std::string& format) {
  return format != "terrazo tile store" && format.find("gzip") == std::string::npos;
}

void read_with_gdal(const std::string& path, std::uint32_t band_index, DecimatedRaster& out, Resampling resampling,
                    Progress& progress) {
  ensure_gdal();
  DatasetCloser ds;
  {
    GdalErrorTrap trap;
    ds.h = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, nullptr, nullptr, nullptr);
    if (!ds.h) throw gdal_failure("cannot open '" + path + "'");
  }
  GDALRasterBandH band = GDALGetRasterBand(ds.h, static_cast<int>(band_index == 0 ? 1 : band_index));
  if (!band) throw Error("cannot read band " + std::to_string(band_index) + " of '" + path + "'");
  const double W = static_cast<double>(out.info.width), H = static_cast<double>(out.info.height);
  const std::uint32_t strip = std::max<std::uint32_t>(1, std::min<std::uint32_t>(out.height, 64));
  const NodataRule rule(out.info);
  progress.update("read", 0, out.height);
  for (std::uint32_t j0 = 0; j0 < out.height; j0 += strip) {
    const std::uint32_t rows = std::min(strip, out.height - j0);
    const double y0 = j0 * H / out.height, ysize = rows * H / out.height;
    GDALRasterIOExtraArg extra;
    INIT_RASTERIO_EXTRA_ARG(extra);
    extra.eResampleAlg = resampling == Resampling::Average ? GRIORA_Average : GRIORA_NearestNeighbour;
    extra.bFloatingPointWindowValidity = TRUE;
    extra.dfXOff = 0;
    extra.dfYOff = y0;
    extra.dfXSize = W;
    extra.dfYSize = ysize;
    const int iy0 = static_cast<int>(std::floor(y0));
    const int iy1 = std::min(static_cast<int>(out.info.height), static_cast<int>(std::ceil(y0 + ysize)));
    double* dst = out.cells.data() + static_cast<std::size_t>(j0) * out.width;
    GdalErrorTrap trap;
    reset_gdal_error();
    const CPLErr err = GDALRasterIOEx(band, GF_Read, 0, iy0, static_cast<int>(out.info.width), std::max(1, iy1 - iy0), dst,
                                      static_cast<int>(out.width), static_cast<int>(rows), GDT_Float64, 0, 0, &extra);
    if (err != CE_None || trap.raised()) {
      trap.check("cannot read '" + path + "' at " + std::to_string(out.width) + " x " + std::to_string(out.height));
      throw gdal_failure("cannot read '" + path + "'");
    }
    for (std::size_t k = 0; k < static_cast<std::size_t>(rows) * out.width; ++k)
      if (rule.is_nodata(dst[k])) dst[k] = kNaN;
    progress.update("read", j0 + rows, out.height);
  }
}

// Source range [first, last) of output index k (of n) over N source cells.
void box(std::uint64_t k, std::uint64_t n, std::uint64_t N, std::uint64_t* first, std::uint64_t* last) {
  *first = k * N / n;
  *last = std::max(*first + 1, (k + 1) * N / n);
}

void read_with_reader(RasterReader& reader, DecimatedRaster& out, Resampling resampling, MemoryBudget& budget,
                      Progress& progress) {
  const std::uint64_t W = out.info.width, H = out.info.height;
  // Average reads source rows in windows of up to `chunk` rows, each window once, serving every
  // output row whose box lies in it (a tile row of a tile store is read about once, not once per
  // row); nearest reads single rows.
  std::uint64_t chunk = 1;
  if (resampling == Resampling::Average) {
    const std::uint64_t affordable = budget.available() / 4 / std::max<std::uint64_t>(1, W * 8);
    chunk = std::max<std::uint64_t>(1, std::min<std::uint64_t>({H, affordable, 256}));
  }
  auto row_bytes = budget.reserve(W * 8 * chunk + out.width * 16ull + reader.resident_bytes(static_cast<std::uint32_t>(chunk)),
                                  "render: source rows and sums");
  std::vector<double> rows(W * chunk), sum(out.width), count(out.width);
  std::uint64_t window_first = 0, window_rows = 0;  // rows [first, first + rows) are in `rows`
  progress.update("read", 0, out.height);
  for (std::uint32_t j = 0; j < out.height; ++j) {
    double* dst = out.cells.data() + static_cast<std::size_t>(j) * out.width;
    if (resampling == Resampling::Nearest) {
      const std::uint64_t y = std::min<std::uint64_t>(H - 1, static_cast<std::uint64_t>((j + 0.5) * H / out.height));
      reader.read_window(0, y, static_cast<std::uint32_t>(W), 1, rows.data());
      for (std::uint32_t i = 0; i < out.width; ++i)
        dst[i] = rows[std::min<std::uint64_t>(W - 1, static_cast<std::uint64_t>((i + 0.5) * W / out.width))];
    } else {
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(count.begin(), count.end(), 0.0);
      std::uint64_t y0, y1;
      box(j, out.height, H, &y0, &y1);
      y1 = std::min(y1, H);
      for (std::uint64_t ya = y0; ya < y1;) {
        if (ya < window_first || ya >= window_first + window_rows) {
          window_first = ya;
          window_rows = std::min(chunk, H - ya);
          reader.read_window(0, window_first, static_cast<std::uint32_t>(W), static_cast<std::uint32_t>(window_rows),
                             rows.data());
        }
        const std::uint64_t yb = std::min(y1, window_first + window_rows);
        for (std::uint64_t y = ya; y < yb; ++y) {
          const double* row = rows.data() + (y - window_first) * W;
          for (std::uint32_t i = 0; i < out.width; ++i) {
            std::uint64_t x0, x1;
            box(i, out.width, W, &x0, &x1);
            for (std::uint64_t x = x0; x < std::min(x1, W); ++x)
              if (!std::isnan(row[x])) {
                sum[i] += row[x];
                count[i] += 1;
              }
          }
        }
        ya = yb;
      }
      for (std::uint32_t i = 0; i < out.width; ++i) dst[i] = count[i] > 0 ? sum[i] / count[i] : kNaN;
    }
    progress.update("read", j + 1, out.height);
  }
}

}  // namespace

RasterInfo probe_raster(const std::string& path, std::uint32_t band, MemoryBudget& budget) {
  auto reader = RasterReader::open(path, band, RasterReader::kChooseBand, &budget);
  return reader->info();
}

DecimatedRaster read_decimated(const std::string& path, std::uint32_t band, std::uint32_t out_w, std::uint32_t out_h,
                               Resampling resampling, MemoryBudget& budget, Progress& progress,
                               std::uint64_t cache_bytes) {
  if (out_w == 0 || out_h == 0) throw Error("read_decimated: empty output size");
  auto reader = RasterReader::open(path, band, RasterReader::kChooseBand, &budget);
  DecimatedRaster out;
  out.info = reader->info();
  out.format = reader->format();
  out.width = out_w;
  out.height = out_h;
  out.grid_bytes = budget.reserve(static_cast<std::uint64_t>(out_w) * out_h * 8, "render: decimated grid");
  out.cells.assign(static_cast<std::size_t>(out_w) * out_h, kNaN);
  if (gdal_can_read(out.format)) {
    const std::uint32_t chosen = reader->band();
    reader.reset();
    GdalCacheLimit cache(budget, std::min<std::uint64_t>(cache_bytes, std::max<std::uint64_t>(budget.available() / 2, 1ull << 20)));
    read_with_gdal(path, chosen, out, resampling, progress);
    out.via_gdal = true;
  } else {
    read_with_reader(*reader, out, resampling, budget, progress);
  }
  return out;
}

}  // namespace terrazo
