// engine/raster_inputs/raster_io.cpp: run_import, run_export, run_info, open_as_tile_store
// (engine/raster_inputs/raster_io.h).
#include "engine/raster_inputs/raster_io.h"

#include <ogr_spatialref.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/commands/output_paths.h"
#include "kernels/common/huge_buffer.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/json_summary.h"
#include "io/store/cell_values.h"
#include "io/store/tile_store.h"
#include "io/store/tile_store_retile.h"
#include "engine/tile_inputs/in_memory_tile_input.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"

namespace terrazo {

namespace {

// A tile store has one band: --band 2 or more on one is a usage error (RasterReader::open's words).
void check_store_band(const std::string& path, std::uint32_t band) {
  if (band > 1)
    throw UsageError("band " + std::to_string(band) + " of '" + path + "' does not exist: it has 1 band");
}

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::uint32_t checked_tile(std::uint32_t tile) {
  if (tile == 0) return kDefaultTile;
  if (!is_power_of_two(tile) || tile > 16384)
    throw UsageError("invalid --tile " + std::to_string(tile) + ": expected a power of two from 1 to 16384, e.g. 256");
  return tile;
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// Readers that go through GDAL's block cache (not tile stores nor ASCII grids: io/gdal/ascii_grid.h).
bool uses_gdal_cache(const RasterReader& reader) {
  const std::string format = reader.format();
  return format != "terrazo tile store" && format != "AAIGrid+gzip" && format != "AAIGrid";
}

// GDAL's share of the budget: an eighth of what is left, at least `floor` (one block or 1 MiB),
// at most 64 MiB (more does not speed up a single forward pass).
std::uint64_t gdal_cache_share(const MemoryBudget& budget, std::uint64_t floor) {
  const std::uint64_t share = budget.available() / 8;
  return std::max(floor, std::min<std::uint64_t>(share, 64ull << 20));
}

// The memory one streaming pass holds, all reserved before the first read.
struct PassMemory {
  std::unique_ptr<GdalCacheLimit> gdal_cache;
  MemoryBudget::Reservation reader_rows, tile_buffers, chunk;
  std::uint64_t chunk_units = 0;  // units (tile or block columns) per chunk
  std::uint64_t bytes = 0;
};

// Reserves, in this order: GDAL's cache (when the reader or a writer uses it), the reader's own
// rows, the fixed per-tile buffers, then the chunk buffer of as many `unit_bytes` columns as fit
// (at most `units`). Throws Error when not even one column fits.
PassMemory reserve_pass(MemoryBudget& budget, const RasterReader& reader, bool writes_through_gdal, std::uint32_t rows,
                        std::uint64_t cache_floor, std::uint64_t fixed_bytes, std::uint64_t unit_bytes,
                        std::uint64_t units, const char* what) {
  PassMemory memory;
  if (writes_through_gdal || uses_gdal_cache(reader)) {
    const std::uint64_t cache = gdal_cache_share(budget, cache_floor);
    memory.gdal_cache = std::make_unique<GdalCacheLimit>(budget, cache);
    memory.bytes += cache;
  }
  if (const std::uint64_t rows_bytes = reader.resident_bytes(rows)) {
    memory.reader_rows = budget.reserve(rows_bytes, "raster reader rows");
    memory.bytes += rows_bytes;
  }
  if (fixed_bytes) memory.tile_buffers = budget.reserve(fixed_bytes, std::string(what) + " tile buffers");
  memory.bytes += fixed_bytes;
  memory.chunk_units = std::min<std::uint64_t>(units, std::max<std::uint64_t>(1, budget.available() / unit_bytes));
  memory.chunk = budget.reserve(memory.chunk_units * unit_bytes, std::string(what) + " strip buffer");
  memory.bytes += memory.chunk_units * unit_bytes;
  return memory;
}

// Reads `reader`'s raster strip by strip (`rows` rows each, the last one the rest) in windows of at most
// `chunk_width` columns into `chunk`, calling visit(x0, y0, width, height) on each window read;
// `phase` progress after each strip, in strips and cells read.
template <typename Visit>
void read_strips(RasterReader& reader, std::uint32_t rows, std::uint64_t chunk_width, double* chunk, Progress& progress,
                 const char* phase, Visit&& visit) {
  const RasterInfo& info = reader.info();
  const std::uint64_t strips = (info.height + rows - 1) / rows;
  progress.update(phase, 0, strips, 0);
  for (std::uint64_t s = 0; s < strips; ++s) {
    const std::uint64_t y0 = s * rows;
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, info.height - y0));
    for (std::uint64_t x0 = 0; x0 < info.width; x0 += chunk_width) {
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk_width, info.width - x0));
      reader.read_window(x0, y0, w, h, chunk);
      visit(x0, y0, w, h);
    }
    progress.update(phase, s + 1, strips, (y0 + h) * info.width);
  }
}

// Streams `reader`'s raster as t x t tiles of doubles (NaN = nodata or padding), strip by strip of
// t rows, left to right in chunks of `chunk_units` tiles, calling put(tx, ty, cells) for every tile
// of the grid in row-major order; progress `phase` at 0, after each strip and at 1. Returns the
// statistics of the cells inside the raster. Memory: the chunk (chunk_units x t x t doubles) and
// one tile of doubles, reserved by the caller (reserve_pass).
template <typename Put>
CellStats stream_tiles(RasterReader& reader, const TileGrid& grid, std::uint64_t chunk_units, Progress& progress,
                       const char* phase, Put&& put) {
  const RasterInfo& info = reader.info();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t chunk_width = std::min<std::uint64_t>(chunk_units * t, info.width);
  // Both written before read: the chunk by read_window, the tile row by row below (kernels/common/huge_buffer.h).
  HugeBuffer<double> chunk(chunk_width * t);
  HugeBuffer<double> tile(tile_cells);
  CellStats stats;
  read_strips(reader, t, chunk_width, chunk.data(), progress, phase,
              [&](std::uint64_t x0, std::uint64_t y0, std::uint32_t width, std::uint32_t rows) {
    const auto ty = static_cast<std::uint32_t>(y0 / t);
    for (std::uint64_t tx = x0 / t; tx * t < x0 + width; ++tx) {
      const std::uint64_t cx = tx * t - x0;
      const std::uint64_t cols = std::min<std::uint64_t>(t, width - cx);
      for (std::uint64_t r = 0; r < t; ++r) {
        double* dst = tile.data() + r * t;
        if (r < rows) {
          std::copy(chunk.data() + r * width + cx, chunk.data() + r * width + cx + cols, dst);
          std::fill(dst + cols, dst + t, std::numeric_limits<double>::quiet_NaN());
        } else {
          std::fill(dst, dst + t, std::numeric_limits<double>::quiet_NaN());
        }
      }
      stats.merge(scan_doubles(tile.data(), rows, cols, t));
      put(static_cast<std::uint32_t>(tx), ty, tile.data());
    }
  });
  return stats;
}

std::string crs_name_of(const std::string& wkt, std::string* authority) {
  authority->clear();
  if (wkt.empty()) return "";
  ensure_gdal();
  OGRSpatialReference srs;
  if (srs.importFromWkt(wkt.c_str()) != OGRERR_NONE) return "unrecognized CRS";
  const char* name = srs.GetName();
  const char* key = srs.IsProjected() ? "PROJCS" : (srs.IsGeographic() ? "GEOGCS" : nullptr);
  const char* auth_name = srs.GetAuthorityName(key);
  const char* auth_code = srs.GetAuthorityCode(key);
  if (auth_name && auth_code) *authority = std::string(auth_name) + ":" + auth_code;
  return name ? name : "unnamed CRS";
}

}  // namespace

// ---- import ------------------------------------------------------------------------------------

namespace {

// A .tzs into another tile size: raw cells on threads (io/store/tile_store_retile.h), the same store the
// RasterReader pass below would write, without converting every cell to a double and back.
ImportResult retile_store(const ImportOptions& options, std::uint32_t t, MemoryBudget& budget, Progress& progress) {
  Stopwatch start;
  check_store_band(options.input, options.band);
  auto source = TileStore::open(options.input, &budget);
  const RasterInfo& info = source->info();
  TileStoreWriter writer(options.output, info, t, &budget);
  const RetileResult pass = retile_tile_store(*source, writer, options.threads, budget, progress);
  // The source's statistics were checked against every tile read (TileStore::read_tile_raw); a store
  // without them gets the writer's, computed from the tiles written.
  if (info.has_stats) writer.set_stats(info.min, info.max, info.valid_cells);
  writer.finish();
  auto written = TileStore::open(options.output, &budget);
  ImportResult result;
  result.info = written->info();
  result.grid = written->grid();
  result.present_tiles = written->present_tiles();
  result.bytes_read = source->bytes_read();
  result.bytes_written = writer.bytes_written();
  result.buffer_bytes = pass.buffer_bytes;
  result.seconds = start.seconds();
  return result;
}

}  // namespace

ImportResult run_import(const ImportOptions& options, MemoryBudget& budget, Progress& progress) {
  Stopwatch start;
  const std::uint32_t t = checked_tile(options.tile);
  if (options.input.empty() || options.output.empty()) throw UsageError("import needs an INPUT raster and an OUTPUT tile store");
  if (same_file(options.input, options.output))
    throw UsageError("INPUT and OUTPUT are the same file '" + options.output + "'; choose another OUTPUT");
  check_distinct_paths({{"INPUT", options.input}}, {{"OUTPUT", options.output}});
  if (TileStore::looks_like_tile_store(options.input)) return retile_store(options, t, budget, progress);

  std::unique_ptr<RasterReader> reader =
      RasterReader::open(options.input, options.band, RasterReader::kChooseBand, &budget);
  RasterInfo info = reader->info();
  const TileGrid grid{info.width, info.height, t};
  // The store's tile index first (17 bytes per tile), then the pass gets what is left.
  TileStoreWriter writer(options.output, info, t, &budget);
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t cell_size = cell_type_size(info.type);
  // One tile of doubles (cut from the chunk) + the writer's transient raw tile and padded copy.
  const std::uint64_t fixed = tile_cells * (sizeof(double) + 2 * cell_size);
  PassMemory memory = reserve_pass(budget, *reader, false, t, 1ull << 20, fixed, tile_cells * sizeof(double), grid.tiles_x(),
                                   "import");

  const CellStats stats = stream_tiles(*reader, grid, memory.chunk_units, progress, "import",
                                      [&](std::uint32_t tx, std::uint32_t ty, const double* tile) {
                                        writer.write_tile(tx, ty, tile);
                                      });
  writer.set_stats(stats.valid ? stats.min : 0.0, stats.valid ? stats.max : 0.0, stats.valid);
  writer.finish();

  ImportResult result;
  result.info = info;
  result.band = reader->band();
  result.bands = reader->band_count();
  result.info.has_stats = true;
  result.info.min = stats.valid ? stats.min : 0.0;
  result.info.max = stats.valid ? stats.max : 0.0;
  result.info.valid_cells = stats.valid;
  result.grid = grid;
  result.bytes_read = reader->bytes_read();
  result.bytes_written = writer.bytes_written();
  result.buffer_bytes = memory.bytes;
  result.present_tiles = writer.present_tiles();
  result.seconds = start.seconds();
  return result;
}

// ---- load into memory ----------------------------------------------------------------------------

std::unique_ptr<InMemoryTileInput> load_in_memory(RasterReader& reader, std::uint32_t tile, MemoryBudget& budget,
                                                  Progress& progress) {
  const std::uint32_t t = checked_tile(tile);
  const RasterInfo& info = reader.info();
  const TileGrid grid{info.width, info.height, t};
  // The tiles first, then the pass (GDAL's cache, the strip chunk, one tile) gets what is left.
  auto input = std::make_unique<InMemoryTileInput>(info, t, budget);
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  PassMemory memory = reserve_pass(budget, reader, false, t, 1ull << 20, tile_cells * sizeof(double),
                                   tile_cells * sizeof(double), grid.tiles_x(), "input load");
  stream_tiles(reader, grid, memory.chunk_units, progress, "import",
               [&](std::uint32_t tx, std::uint32_t ty, const double* cells) { input->put_tile(tx, ty, cells); });
  input->set_bytes_read(reader.bytes_read());
  return input;
}

// ---- export ------------------------------------------------------------------------------------

ExportResult run_export(const ExportOptions& options, MemoryBudget& budget, Progress& progress) {
  Stopwatch start;
  if (options.input.empty() || options.output.empty()) throw UsageError("export needs an INPUT raster and an OUTPUT GeoTIFF");
  if (same_file(options.input, options.output))
    throw UsageError("INPUT and OUTPUT are the same file '" + options.output + "'; choose another OUTPUT");
  check_distinct_paths({{"INPUT", options.input}}, {{"OUTPUT", options.output}});
  if (options.block != 0 && (options.block % 16 != 0 || options.block > 4096))
    throw UsageError("invalid GeoTIFF block size " + std::to_string(options.block) + ": expected a multiple of 16 up to 4096");

  std::unique_ptr<RasterReader> reader =
      RasterReader::open(options.input, options.band, RasterReader::kChooseBand, &budget);
  const RasterInfo info = reader->info();
  std::uint32_t block = options.block;
  if (block == 0) {
    block = 256;
    if (const std::uint32_t t = reader->store_tile()) {
      // The store's tile, so each strip reads whole tiles once (at least 16, GeoTIFF's minimum).
      block = std::min<std::uint32_t>(std::max<std::uint32_t>(t, 16), 1024);
    }
  }
  const std::uint64_t block_cells = static_cast<std::uint64_t>(block) * block;
  const std::uint64_t blocks_x = (info.width + block - 1) / block;
  // GDAL's cache holds the writer's dirty blocks until they are compressed: at least two blocks.
  const std::uint64_t cache_floor = std::max<std::uint64_t>(1ull << 20, 2 * block_cells * cell_type_size(info.type));
  PassMemory memory =
      reserve_pass(budget, *reader, true, block, cache_floor, 0, block_cells * sizeof(double), blocks_x, "export");

  GeoTiffWriter writer(options.output, info.width, info.height, info.type, info, info.has_nodata, info.nodata, block,
                       options.geotiff);
  const std::uint64_t chunk_width = std::min<std::uint64_t>(memory.chunk_units * block, info.width);
  std::vector<double> chunk(chunk_width * block);
  read_strips(*reader, block, chunk_width, chunk.data(), progress, "export",
              [&](std::uint64_t x0, std::uint64_t y0, std::uint32_t width, std::uint32_t rows) {
    writer.write_window(x0, y0, width, rows, chunk.data());
  });
  writer.finish();

  ExportResult result;
  result.info = info;
  result.bytes_read = reader->bytes_read();
  result.bytes_written = writer.bytes_written();
  result.buffer_bytes = memory.bytes;
  result.seconds = start.seconds();
  return result;
}

// ---- info --------------------------------------------------------------------------------------

RasterSummary run_info(const std::string& path, MemoryBudget& budget, Progress& progress, std::uint32_t band) {
  Stopwatch start;
  RasterSummary summary;
  summary.path = path;
  CellStats stats;
  if (TileStore::looks_like_tile_store(path)) {
    // Read the present tiles only (absent ones are all nodata), verifying every checksum.
    check_store_band(path, band);
    auto store = TileStore::open(path, &budget);
    const TileGrid& grid = store->grid();
    summary.format = "terrazo tile store v1";
    summary.info = store->info();
    summary.is_tile_store = true;
    summary.tile = grid.tile;
    summary.tiles_x = grid.tiles_x();
    summary.tiles_y = grid.tiles_y();
    summary.tile_count = grid.tile_count();
    summary.present_tiles = store->present_tiles();
    const std::uint64_t t = grid.tile;
    auto buffer = budget.reserve(t * t * sizeof(double), "info tile buffer");
    std::vector<double> tile(t * t);
    progress.update("info", 0, grid.tiles_y(), 0);
    for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty) {
      for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
        if (!store->tile_present(tx, ty)) continue;
        store->read_tile(tx, ty, tile.data());
        stats.merge(scan_doubles(tile.data(), t, t, t));  // padding reads as NaN
      }
      progress.update("info", ty + 1ull, grid.tiles_y(), std::min<std::uint64_t>((ty + 1ull) * t, summary.info.height) * summary.info.width);
    }
    summary.bytes_read = store->bytes_read();
  } else {
    std::unique_ptr<RasterReader> reader = RasterReader::open(path, band, RasterReader::kChooseBand);
    summary.format = reader->format();
    summary.band = reader->band();
    summary.bands = reader->band_count();
    summary.info = reader->info();
    const RasterInfo& info = summary.info;
    const std::uint32_t rows = 256;
    PassMemory memory = reserve_pass(budget, *reader, false, rows, 1ull << 20, 0, static_cast<std::uint64_t>(rows) * rows * sizeof(double),
                                     (info.width + rows - 1) / rows, "info");
    const std::uint64_t chunk_width = std::min<std::uint64_t>(memory.chunk_units * rows, info.width);
    std::vector<double> chunk(chunk_width * rows);
    read_strips(*reader, rows, chunk_width, chunk.data(), progress, "info",
                [&](std::uint64_t, std::uint64_t, std::uint32_t w, std::uint32_t h) {
      stats.merge(scan_doubles(chunk.data(), h, w, w));
    });
    summary.bytes_read = reader->bytes_read();
  }
  summary.info.has_stats = stats.valid > 0;
  summary.info.min = stats.valid ? stats.min : 0.0;
  summary.info.max = stats.valid ? stats.max : 0.0;
  summary.info.valid_cells = stats.valid;
  summary.nodata_cells = summary.info.cells() - stats.valid;
  summary.nodata_share = static_cast<double>(summary.nodata_cells) / static_cast<double>(summary.info.cells());
  summary.crs_name = crs_name_of(summary.info.crs_wkt, &summary.crs_authority);
  summary.seconds = start.seconds();
  return summary;
}

std::string to_json(const RasterSummary& s) {
  JsonObject json;
  json.add("path", s.path).add("format", s.format).add("band", s.band).add("bands", s.bands);
  json.add("width", s.info.width).add("height", s.info.height).add("cells", s.info.cells());
  json.add("type", to_string(s.info.type));
  if (s.info.has_nodata) json.add("nodata", s.info.nodata);
  else json.add_null("nodata");
  json.add("valid_cells", s.info.valid_cells).add("nodata_cells", s.nodata_cells).add("nodata_share", s.nodata_share);
  if (s.info.has_stats) json.add("min", s.info.min).add("max", s.info.max);
  else json.add_null("min").add_null("max");
  if (s.info.has_geotransform) json.add("geotransform", std::vector<double>(s.info.geotransform.begin(), s.info.geotransform.end()));
  else json.add_null("geotransform");
  json.add("crs_name", s.crs_name).add("crs_authority", s.crs_authority);
  json.add("tile_store", s.is_tile_store);
  if (s.is_tile_store) {
    json.add("tile", s.tile).add("tiles_x", s.tiles_x).add("tiles_y", s.tiles_y);
    json.add("tiles", s.tile_count).add("tiles_present", s.present_tiles);
  }
  json.add("bytes_read", s.bytes_read).add("seconds", s.seconds);
  return json.str();
}

// ---- open_as_tile_store --------------------------------------------------------------------------

std::unique_ptr<TileStore> open_as_tile_store(const std::string& input_path, RunDirectory& run, std::uint32_t tile,
                                              MemoryBudget& budget, Progress& progress, std::uint32_t band) {
  if (TileStore::looks_like_tile_store(input_path)) {
    check_store_band(input_path, band);
    auto store = TileStore::open(input_path, &budget);
    if (tile == 0 || store->tile() == tile) return store;
  }
  // A name of its own in the run directory for each import of the run.
  std::string base = input_path.substr(input_path.find_last_of('/') + 1);
  std::string output = run.file("input-" + base + ".tzs");
  for (int n = 2; ::access(output.c_str(), F_OK) == 0; ++n)
    output = run.file("input-" + base + "-" + std::to_string(n) + ".tzs");
  ImportOptions options;
  options.input = input_path;
  options.output = output;
  options.tile = tile;
  options.band = band;
  run_import(options, budget, progress);
  return TileStore::open(output, &budget);
}

}  // namespace terrazo
