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

// GDAL's cache limit bounds two things here, each up to the limit: the block cache of the two
// readers and the blocks the output's block writer holds (io/gdal/tiff_block_writer.h). Both are
// reserved: 8 MiB each (16 MiB in all) where the budget has 32 MiB to spare, a quarter of what is
// left each below that, 2 MiB at least (the pieces are whole blocks of tiled inputs and of the
// output, so a smaller cache decodes and encodes each block once all the same).
std::uint64_t corridor_cache_bytes(const MemoryBudget& budget) {
  return std::clamp<std::uint64_t>(budget.available() / 4, 2ull << 20, 8ull << 20);
}
constexpr std::uint64_t kCorridorBytesPerCell = 24;  // a cell of A, of B and of the output, as doubles
constexpr std::uint64_t kCorridorBlock = 256;        // the output's block edge
constexpr std::uint64_t kCorridorMaxWindow = 1ull << 30;  // the readers take 32-bit window sizes

// Columns of a piece: the whole width when what is left of the budget beside `fixed` holds a strip
// of it, else the widest multiple of the output's block that fits (a piece is then whole blocks of
// the output, each written once). A budget that cannot hold one block of columns is refused here,
// before any cell is read, with every need named.
std::uint64_t piece_columns(std::uint64_t width, std::uint64_t cache_bytes, std::uint64_t inputs_blocks,
                            const MemoryBudget& budget) {
  const std::uint64_t fixed = 2 * cache_bytes + inputs_blocks;
  const std::uint64_t per_column = kCorridorStripRows * kCorridorBytesPerCell;
  const std::uint64_t least = std::min(width, kCorridorBlock);
  const std::uint64_t need = fixed + least * per_column;
  if (need > budget.available()) {
    const std::uint64_t held = budget.total() - budget.available();
    throw BudgetError("memory budget too small for corridor: a piece of " + std::to_string(kCorridorStripRows) + " x " +
                      std::to_string(least) + " cells of both inputs and the output (" +
                      MemoryBudget::format_size(least * per_column) +
                      "), GDAL's block cache and the output blocks in flight (" +
                      MemoryBudget::format_size(2 * cache_bytes) + ") and the inputs' decoded blocks (" +
                      MemoryBudget::format_size(inputs_blocks) + ") need " + MemoryBudget::format_size(need) +
                      ", but only " + MemoryBudget::format_size(budget.available()) + " of --memory " +
                      MemoryBudget::format_size(budget.total()) + " is left; raise --memory to " +
                      MemoryBudget::format_size(held + need) + " at least");
  }
  const std::uint64_t affordable = (budget.available() - fixed) / per_column;
  const std::uint64_t columns = affordable >= width ? width : affordable / kCorridorBlock * kCorridorBlock;
  return std::min(columns, kCorridorMaxWindow);
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
  const std::uint64_t inputs_blocks = a->resident_bytes(rows) + b->resident_bytes(rows);
  const std::uint64_t cache_bytes = corridor_cache_bytes(budget);
  const std::uint64_t columns = piece_columns(width, cache_bytes, inputs_blocks, budget);
  GdalCacheLimit cache(budget, cache_bytes);
  auto written_blocks = budget.reserve(cache_bytes, "corridor output blocks in flight (GDAL's cache limit)");
  const std::uint64_t piece_cells = columns * rows;
  auto pieces_bytes = budget.reserve(piece_cells * kCorridorBytesPerCell + inputs_blocks,
                                     "corridor pieces (both inputs and the output)");
  std::vector<double> sa(piece_cells), sb(piece_cells), out(piece_cells);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::uint64_t strips_count = (info.height + rows - 1) / rows;
  const std::uint64_t across = (width + columns - 1) / columns;
  const bool two_passes = options.percent >= 0;
  const std::uint64_t units = strips_count * across * (two_passes ? 2 : 1);
  std::uint64_t done = 0;
  const std::string phase = "corridor";
  progress.update(phase, 0, units);

  // Piece (s, c): rows [s * rows, +h) and columns [c * columns, +w) of both inputs, into sa and sb
  // (w cells a row).
  struct Piece {
    std::uint64_t x0, y0;
    std::uint32_t w, h;
  };
  auto piece_at = [&](std::uint64_t s, std::uint64_t c) {
    Piece p{c * columns, s * rows, 0, 0};
    p.w = static_cast<std::uint32_t>(std::min(columns, width - p.x0));
    p.h = static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, info.height - p.y0));
    return p;
  };
  auto read_piece = [&](const Piece& p) {
    a->read_window(p.x0, p.y0, p.w, p.h, sa.data());
    b->read_window(p.x0, p.y0, p.w, p.h, sb.data());
  };

  bool any = false;
  if (two_passes) {  // the smallest sum first
    for (std::uint64_t s = 0; s < strips_count; ++s)
      for (std::uint64_t c = 0; c < across; ++c) {
        const Piece p = piece_at(s, c);
        read_piece(p);
        for (std::uint64_t i = 0; i < std::uint64_t{p.w} * p.h; ++i) {
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
  for (std::uint64_t s = 0; s < strips_count; ++s)
    for (std::uint64_t c = 0; c < across; ++c) {
      const Piece p = piece_at(s, c);
      read_piece(p);
      for (std::uint64_t i = 0; i < std::uint64_t{p.w} * p.h; ++i) {
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
      writer.write_window(p.x0, p.y0, p.w, p.h, out.data());
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
