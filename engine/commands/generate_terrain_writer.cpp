// engine/commands/generate_terrain_writer.cpp: run_generate of engine/commands/generate_terrain.h: the terrain,
// tile by tile, into a tile store or a GeoTIFF.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <thread>

#include "kernels/common/error.h"
#include "engine/commands/output_paths.h"
#include "engine/commands/generate_terrain.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"

namespace terrazo {
namespace {

std::string lowercase_extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// Makes `count` tiles with up to `threads` threads: make(k) fills tile k of the batch.
template <class Make>
void make_batch(std::size_t count, unsigned threads, Make&& make) {
  if (count <= 1 || threads <= 1) {
    for (std::size_t k = 0; k < count; ++k) make(k);
    return;
  }
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> workers;
  for (std::size_t k = 1; k < count; ++k) {
    workers.emplace_back([&, k] {
      try {
        make(k);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  }
  try {
    make(0);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& worker : workers) worker.join();
  for (auto& error : errors)
    if (error) std::rethrow_exception(error);
}

struct Stats {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  std::uint64_t valid = 0;
  void add(const double* cells, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      if (std::isnan(cells[i])) continue;
      min = std::min(min, cells[i]);
      max = std::max(max, cells[i]);
      ++valid;
    }
  }
};

// The output's kind (a tile store, else a GeoTIFF) and the tile side (--tile, default 256), checked.
std::uint32_t check_generate_options(const GenerateOptions& options, bool* to_store) {
  const std::string ext = lowercase_extension(options.output);
  *to_store = ext == ".tzs";
  if (!*to_store && ext != ".tif" && ext != ".tiff")
    throw UsageError("output '" + options.output + "' must end in .tzs (tile store) or .tif (GeoTIFF)");
  check_distinct_paths({}, {{"OUTPUT", options.output}});
  const std::uint32_t tile = options.tile ? options.tile : 256;
  if (tile < 16 || tile > 4096 || (tile & (tile - 1)) != 0)
    throw UsageError("invalid --tile '" + std::to_string(tile) + "': expected a power of two from 16 to 4096");
  return tile;
}

// The tiles in write order (a store's z-order, a GeoTIFF's row-major order) and each one's size.
struct GenerateLayout {
  const RasterInfo& info;
  TileGrid grid;
  bool to_store = false;
  std::vector<std::uint64_t> order;  // a store's row-major tile indices in write order

  std::uint64_t tile_index(std::uint64_t position) const { return to_store ? order[position] : position; }
  std::uint32_t tile_width(std::uint64_t tx) const {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(grid.tile, info.width - tx * grid.tile));
  }
  std::uint32_t tile_height(std::uint64_t ty) const {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(grid.tile, info.height - ty * grid.tile));
  }
};

// The threads and their tile buffers within the budget. The fixed needs first (the store writer's
// tile index, reserved by the writer itself before any tile is made, the tile order of a store, one
// tile buffer): a budget too small is an error before any tile is made. At most half of what is
// left goes to tile buffers: fewer threads rather than a budget error.
unsigned plan_generate_threads(const GenerateOptions& options, const GenerateLayout& layout, unsigned threads,
                               MemoryBudget& budget, std::uint64_t* order_bytes) {
  const bool to_store = layout.to_store;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(layout.grid.tile) * layout.grid.tile;
  *order_bytes = to_store ? layout.grid.tile_count() * sizeof(std::uint64_t) : 0;
  const std::uint64_t index_bytes = to_store ? TileStoreWriter::index_bytes(layout.grid) : 0;
  const std::uint64_t per_thread = tile_cells * sizeof(double);
  if (index_bytes + *order_bytes + per_thread > budget.available())
    throw BudgetError("memory budget too small for gen: " +
                (to_store ? "the tile index of '" + options.output + "' (" + MemoryBudget::format_size(index_bytes) +
                                "), the tile order (" + MemoryBudget::format_size(*order_bytes) + ") and "
                          : std::string()) +
                "one tile buffer (" + MemoryBudget::format_size(per_thread) + ") need " +
                MemoryBudget::format_size(index_bytes + *order_bytes + per_thread) + ", but only " +
                MemoryBudget::format_size(budget.available()) + " of --memory " +
                MemoryBudget::format_size(budget.total()) + " is left; raise --memory" +
                (to_store ? " or use a larger --tile" : ""));
  const std::uint64_t left =
      budget.available() > *order_bytes + index_bytes ? budget.available() - *order_bytes - index_bytes : 0;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, left / 2 / per_thread)));
}

// A store's edge tile: the w x h window spread to the tile's row-major layout, padded with NaN
// (from the end backwards).
void pad_edge_tile(double* cells, std::uint32_t w, std::uint32_t h, std::uint32_t tile) {
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(tile) * tile;
  for (std::uint32_t r = h; r-- > 0;) {
    double* row = cells + static_cast<std::uint64_t>(r) * tile;
    std::copy_backward(cells + static_cast<std::uint64_t>(r) * w, cells + static_cast<std::uint64_t>(r) * w + w, row + w);
    std::fill(row + w, row + tile, std::numeric_limits<double>::quiet_NaN());
  }
  std::fill(cells + static_cast<std::uint64_t>(h) * tile, cells + tile_cells, std::numeric_limits<double>::quiet_NaN());
}

// The output: a tile store (z-order) or a tiled GeoTIFF.
struct GenerateSink {
  std::unique_ptr<TileStoreWriter> store;
  std::unique_ptr<GeoTiffWriter> tiff;
};

// Phase "gen": batches of `threads` tiles made in parallel, then written in order; returns the
// value statistics of all tiles.
Stats generate_tiles(TerrainGenerator& generator, const GenerateLayout& layout, unsigned threads, GenerateSink& sink,
                     Progress& progress) {
  const std::uint32_t tile = layout.grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(tile) * tile;
  const std::uint64_t tile_count = layout.grid.tile_count();
  const std::uint64_t tiles_x = layout.grid.tiles_x();
  std::vector<std::vector<double>> buffers(threads, std::vector<double>(tile_cells));
  std::vector<Stats> stats(threads);
  std::uint64_t cells_done = 0;
  progress.update("gen", 0, tile_count, 0);
  for (std::uint64_t first = 0; first < tile_count; first += threads) {
    const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(threads, tile_count - first));
    make_batch(count, threads, [&](std::size_t k) {
      const std::uint64_t index = layout.tile_index(first + k);
      const std::uint64_t tx = index % tiles_x, ty = index / tiles_x;
      const std::uint32_t w = layout.tile_width(tx), h = layout.tile_height(ty);
      double* cells = buffers[k].data();
      generator.window(tx * tile, ty * tile, w, h, cells);
      stats[k].add(cells, static_cast<std::uint64_t>(w) * h);
      if (layout.to_store && (w < tile || h < tile)) pad_edge_tile(cells, w, h, tile);
    });
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint64_t index = layout.tile_index(first + k);
      const std::uint64_t tx = index % tiles_x, ty = index / tiles_x;
      const std::uint32_t w = layout.tile_width(tx), h = layout.tile_height(ty);
      if (layout.to_store) sink.store->write_tile(static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty), buffers[k].data());
      else sink.tiff->write_window(tx * tile, ty * tile, w, h, buffers[k].data());
      cells_done += static_cast<std::uint64_t>(w) * h;
    }
    progress.update("gen", first + count, tile_count, cells_done);
  }
  Stats total;
  for (const Stats& s : stats) {
    total.min = std::min(total.min, s.min);
    total.max = std::max(total.max, s.max);
    total.valid += s.valid;
  }
  return total;
}

// The statistics into the result (and a store's header), the output finished.
void finish_generate(const Stats& total, bool to_store, GenerateSink& sink, GenerateResult& result) {
  if (total.valid) {
    result.info.has_stats = true;
    result.info.min = total.min;
    result.info.max = total.max;
  }
  result.info.valid_cells = total.valid;
  if (to_store) {
    if (total.valid) sink.store->set_stats(total.min, total.max, total.valid);
    else sink.store->set_stats(0.0, 0.0, 0);
    sink.store->finish();
    result.bytes_written = sink.store->bytes_written();
  } else {
    sink.tiff->finish();
    result.bytes_written = sink.tiff->bytes_written();
  }
}

}  // namespace

GenerateResult run_generate(const GenerateOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  const auto start = std::chrono::steady_clock::now();
  bool to_store = false;
  const std::uint32_t tile = check_generate_options(options, &to_store);
  unsigned threads = context.worker_threads();

  TerrainGenerator generator(options.terrain);
  const RasterInfo& info = generator.info();
  GenerateLayout layout{info, TileGrid{}, to_store, {}};
  layout.grid.width = info.width;
  layout.grid.height = info.height;
  layout.grid.tile = tile;
  const TileGrid& grid = layout.grid;
  if (static_cast<std::uint64_t>(grid.tiles_x()) * tile < info.width ||
      static_cast<std::uint64_t>(grid.tiles_y()) * tile < info.height)
    throw UsageError("raster too large for --tile " + std::to_string(tile) + ": use a larger tile");
  const std::uint64_t tile_count = grid.tile_count();
  threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, tile_count));

  // Budget: the tile buffers (and the tile order of a store), then GDAL's cache for a GeoTIFF.
  std::uint64_t order_bytes = 0;
  threads = plan_generate_threads(options, layout, threads, budget, &order_bytes);
  const std::uint64_t buffer_bytes = static_cast<std::uint64_t>(threads) * tile * tile * sizeof(double);
  auto buffers_reservation = budget.reserve(buffer_bytes + order_bytes, "gen tile buffers");
  std::unique_ptr<GdalCacheLimit> cache;
  std::uint64_t cache_bytes = 0;
  if (!to_store) {
    cache_bytes = std::min<std::uint64_t>(64ull << 20, budget.available() / 4);
    cache = std::make_unique<GdalCacheLimit>(budget, cache_bytes);
  }

  GenerateSink sink;
  if (to_store) {
    sink.store = std::make_unique<TileStoreWriter>(options.output, info, tile, &budget);
    layout.order = grid.z_order();
  } else {
    sink.tiff = std::make_unique<GeoTiffWriter>(options.output, info.width, info.height, info.type, info, info.has_nodata,
                                                info.nodata, tile, options.geotiff);
  }
  const Stats total = generate_tiles(generator, layout, threads, sink, context.progress());

  GenerateResult result;
  result.info = info;
  finish_generate(total, to_store, sink, result);
  result.tiles = tile_count;
  result.buffer_bytes = buffer_bytes + order_bytes + cache_bytes;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace terrazo
