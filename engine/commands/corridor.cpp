// engine/commands/corridor.cpp: run_corridor (engine/commands/corridor.h).
#include "engine/commands/corridor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"

namespace terrazo {
namespace {

std::string text_of(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", v);
  return buffer;
}

void check_same_grid(const RasterInfo& a, const RasterInfo& b, const CorridorOptions& o) {
  if (a.width != b.width || a.height != b.height)
    throw UsageError("'" + o.b + "' is " + std::to_string(b.width) + " x " + std::to_string(b.height) + " cells and '" +
                     o.a + "' " + std::to_string(a.width) + " x " + std::to_string(a.height) +
                     "; corridor needs two cost surfaces of the same grid");
  if (!a.has_geotransform || !b.has_geotransform) return;
  for (int k = 0; k < 6; ++k) {
    const double x = a.geotransform[k], y = b.geotransform[k];
    if (std::fabs(x - y) > 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)}))
      throw UsageError("'" + o.b + "' has another geotransform than '" + o.a + "' (term " + std::to_string(k) + ": " +
                       text_of(y) + " against " + text_of(x) + "); corridor needs two cost surfaces of the same grid");
  }
}

// The two inputs read strip by strip (kCorridorStripRows rows of whole width) into a and b, and the
// output strip; `done` counts the strips read and written for the progress over `units`.
struct CorridorStrips {
  RasterReader& reader_a;
  RasterReader& reader_b;
  const RasterInfo& info;
  std::uint64_t width = 0;
  std::uint32_t rows = 0;
  std::uint64_t count = 0;
  std::vector<double> a, b, out;

  // Reads strip s of both inputs into a, b; returns its height.
  std::uint32_t read(std::uint64_t s) {
    const std::uint64_t y0 = s * rows;
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, info.height - y0));
    // Windows of at most 2^30 columns: the readers take 32-bit window sizes.
    for (std::uint64_t x0 = 0; x0 < width; x0 += 1u << 30) {
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(1u << 30, width - x0));
      std::vector<double> part;
      double* pa = a.data();
      double* pb = b.data();
      if (w != width) {
        part.resize(static_cast<std::size_t>(w) * h * 2);
        pa = part.data();
        pb = part.data() + static_cast<std::size_t>(w) * h;
      }
      reader_a.read_window(x0, y0, w, h, pa);
      reader_b.read_window(x0, y0, w, h, pb);
      if (w != width)
        for (std::uint32_t r = 0; r < h; ++r) {
          std::copy_n(pa + static_cast<std::size_t>(r) * w, w, &a[r * width + x0]);
          std::copy_n(pb + static_cast<std::size_t>(r) * w, w, &b[r * width + x0]);
        }
    }
    return h;
  }

  // Writes `out` as strip s (height h), in windows of at most 2^30 columns.
  void write(GeoTiffWriter& writer, std::uint64_t s, std::uint32_t h) const {
    for (std::uint64_t x0 = 0; x0 < width; x0 += 1u << 30) {
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(1u << 30, width - x0));
      if (w == width) {
        writer.write_window(0, s * rows, w, h, out.data());
      } else {
        std::vector<double> part(static_cast<std::size_t>(w) * h);
        for (std::uint32_t r = 0; r < h; ++r) std::copy_n(&out[r * width + x0], w, &part[static_cast<std::size_t>(r) * w]);
        writer.write_window(x0, s * rows, w, h, part.data());
      }
    }
  }
};

// --percent: a first pass for the smallest sum, the threshold that percentage above it. A relative
// slack of 1e-12 (kCorridorPercentSlack): sums of two rounded doubles on the least-cost path may
// exceed the smallest sum by a few units in the last place. No valid cell: -1 (no threshold).
void percent_threshold(const CorridorOptions& options, CorridorStrips& strips, Progress& progress, std::uint64_t& done,
                       std::uint64_t units, CorridorResult& result) {
  bool any = false;
  for (std::uint64_t s = 0; s < strips.count; ++s) {
    const std::uint32_t h = strips.read(s);
    for (std::uint64_t i = 0; i < strips.width * h; ++i) {
      const double v = strips.a[i] + strips.b[i];
      if (v != v) continue;
      result.min_sum = any ? std::min(result.min_sum, v) : v;
      any = true;
    }
    progress.update("corridor", ++done, units);
  }
  result.threshold = any ? result.min_sum * (1.0 + options.percent / 100.0) * (1.0 + kCorridorPercentSlack) : -1;
}

// The sum of the two surfaces, NaN where either is nodata or (with a threshold) above it, strip by
// strip into CORRIDOR.tif; the sums' range and the cell counts into the result.
void write_corridor(const CorridorOptions& options, CorridorStrips& strips, Progress& progress, std::uint64_t& done,
                    std::uint64_t units, CorridorResult& result) {
  const RasterInfo& info = strips.info;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool thresholded = result.threshold >= 0;
  GeoTiffWriter writer(options.output, info.width, info.height, options.type, info, true, -1.0, 256, options.geotiff);
  bool any = false;
  for (std::uint64_t s = 0; s < strips.count; ++s) {
    const std::uint32_t h = strips.read(s);
    for (std::uint64_t i = 0; i < strips.width * h; ++i) {
      const double v = strips.a[i] + strips.b[i];  // NaN where either is nodata
      if (v != v) {
        strips.out[i] = nan;
        continue;
      }
      ++result.valid_cells;
      result.min_sum = any ? std::min(result.min_sum, v) : v;
      result.max_sum = any ? std::max(result.max_sum, v) : v;
      any = true;
      if (thresholded && v > result.threshold) {
        strips.out[i] = nan;
        continue;
      }
      ++result.corridor_cells;
      strips.out[i] = v;
    }
    strips.write(writer, s, h);
    progress.update("corridor", ++done, units);
  }
  writer.finish();
  result.bytes_written = writer.bytes_written();
}

}  // namespace

CorridorResult run_corridor(const CorridorOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  const auto start = std::chrono::steady_clock::now();
  if (options.threshold >= 0 && options.percent >= 0) throw UsageError("give --threshold or --percent, not both");
  if (options.percent >= 0 && !std::isfinite(options.percent))
    throw UsageError("invalid --percent '" + text_of(options.percent) + "': expected a finite number >= 0");
  check_distinct_paths({{"A.tif", options.a}, {"B.tif", options.b}}, {{"CORRIDOR.tif", options.output}});
  ensure_gdal();
  auto a = RasterReader::open(options.a);
  auto b = RasterReader::open(options.b);
  const RasterInfo info = a->info();
  check_same_grid(info, b->info(), options);
  CorridorResult result;
  result.width = info.width;
  result.height = info.height;
  const std::uint64_t width = info.width;
  const std::uint32_t rows = kCorridorStripRows;
  const std::uint64_t strip_cells = width * rows;
  auto strips_reservation = budget.reserve(strip_cells * 24 + a->resident_bytes(rows) + b->resident_bytes(rows),
                                           "corridor strips (both inputs and the output)");
  // GDAL's cache limit bounds two things here, each up to the limit: the block cache of the two
  // readers and the blocks the output's block writer holds (io/gdal/tiff_block_writer.h). Both are
  // reserved: 8 MiB each, 16 MiB in all (the strips are whole rows of 256-row blocks, so each input
  // block is decoded once whatever the cache holds).
  GdalCacheLimit cache(budget, 8ull << 20);
  auto written_blocks = budget.reserve(8ull << 20, "corridor output blocks in flight (GDAL's cache limit)");
  CorridorStrips strips{*a, *b, info, width, rows, (info.height + rows - 1) / rows,
                        std::vector<double>(strip_cells), std::vector<double>(strip_cells), std::vector<double>(strip_cells)};
  const bool two_passes = options.percent >= 0;
  const std::uint64_t units = strips.count * (two_passes ? 2 : 1);
  std::uint64_t done = 0;
  progress.update("corridor", 0, units);
  if (two_passes) percent_threshold(options, strips, progress, done, units, result);
  else if (options.threshold >= 0) result.threshold = options.threshold;
  write_corridor(options, strips, progress, done, units, result);
  result.bytes_read = a->bytes_read() + b->bytes_read();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
