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
  auto strips = budget.reserve(strip_cells * 24 + a->resident_bytes(rows) + b->resident_bytes(rows),
                               "corridor strips (both inputs and the output)");
  // GDAL's cache limit bounds two things here, each up to the limit: the block cache of the two
  // readers and the blocks the output's block writer holds (io/gdal/tiff_block_writer.h). Both are
  // reserved: 8 MiB each, 16 MiB in all (the strips are whole rows of 256-row blocks, so each input
  // block is decoded once whatever the cache holds).
  GdalCacheLimit cache(budget, 8ull << 20);
  auto written_blocks = budget.reserve(8ull << 20, "corridor output blocks in flight (GDAL's cache limit)");
  std::vector<double> sa(strip_cells), sb(strip_cells), out(strip_cells);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::uint64_t strips_count = (info.height + rows - 1) / rows;
  const bool two_passes = options.percent >= 0;
  const std::uint64_t units = strips_count * (two_passes ? 2 : 1);
  std::uint64_t done = 0;
  const std::string phase = "corridor";
  progress.update(phase, 0, units);

  // Reads strip s of both inputs into sa, sb; returns its height.
  auto read_strip = [&](std::uint64_t s) {
    const std::uint64_t y0 = s * rows;
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, info.height - y0));
    // Windows of at most 2^30 columns: the readers take 32-bit window sizes.
    for (std::uint64_t x0 = 0; x0 < width; x0 += 1u << 30) {
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(1u << 30, width - x0));
      std::vector<double> part;
      double* pa = sa.data();
      double* pb = sb.data();
      if (w != width) {
        part.resize(static_cast<std::size_t>(w) * h * 2);
        pa = part.data();
        pb = part.data() + static_cast<std::size_t>(w) * h;
      }
      a->read_window(x0, y0, w, h, pa);
      b->read_window(x0, y0, w, h, pb);
      if (w != width)
        for (std::uint32_t r = 0; r < h; ++r) {
          std::copy_n(pa + static_cast<std::size_t>(r) * w, w, &sa[r * width + x0]);
          std::copy_n(pb + static_cast<std::size_t>(r) * w, w, &sb[r * width + x0]);
        }
    }
    return h;
  };

  bool any = false;
  if (two_passes) {  // the smallest sum first
    for (std::uint64_t s = 0; s < strips_count; ++s) {
      const std::uint32_t h = read_strip(s);
      for (std::uint64_t i = 0; i < width * h; ++i) {
        const double v = sa[i] + sb[i];
        if (v != v) continue;
        result.min_sum = any ? std::min(result.min_sum, v) : v;
        any = true;
      }
      progress.update(phase, ++done, units);
    }
    // A relative slack of 1e-12 (kCorridorPercentSlack): sums of two rounded doubles on the
    // least-cost path may exceed the smallest sum by a few units in the last place.
    result.threshold = any ? result.min_sum * (1.0 + options.percent / 100.0) * (1.0 + kCorridorPercentSlack) : -1;
  } else if (options.threshold >= 0) {
    result.threshold = options.threshold;
  }
  const bool thresholded = result.threshold >= 0;

  GeoTiffWriter writer(options.output, info.width, info.height, options.type, info, true, -1.0, 256, options.geotiff);
  any = false;
  for (std::uint64_t s = 0; s < strips_count; ++s) {
    const std::uint32_t h = read_strip(s);
    for (std::uint64_t i = 0; i < width * h; ++i) {
      const double v = sa[i] + sb[i];  // NaN where either is nodata
      if (v != v) {
        out[i] = nan;
        continue;
      }
      ++result.valid_cells;
      result.min_sum = any ? std::min(result.min_sum, v) : v;
      result.max_sum = any ? std::max(result.max_sum, v) : v;
      any = true;
      if (thresholded && v > result.threshold) {
        out[i] = nan;
        continue;
      }
      ++result.corridor_cells;
      out[i] = v;
    }
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
    progress.update(phase, ++done, units);
  }
  writer.finish();
  result.bytes_written = writer.bytes_written();
  result.bytes_read = a->bytes_read() + b->bytes_read();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
