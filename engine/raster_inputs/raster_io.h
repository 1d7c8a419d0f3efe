// engine/raster_inputs/raster_io.h: the library entry points behind `terrazo import`, `export` and `info`.
//
// Contract (docs/tile_store_format.md, docs/memory_budget.md):
//  - run_import of another tile store (a .tzs into another tile size) copies raw cells on
//    options.threads threads (io/store/tile_store_retile.h: each source tile read once, no conversion;
//    the store written is byte for byte the one the pass below would write).
//  - run_import streams any other raster RasterReader::open accepts (GeoTIFF, SRTM .hgt, ENVI, ESRI
//    ASCII .asc and .asc.gz) into a Z-order tile store in ONE pass: it reads
//    strips of t rows, left to right in chunks of whole tiles, cuts each chunk into tiles and
//    writes them; min, max and the valid-cell count are computed from the cells on the way and
//    recorded in the store's header. Resident memory: the chunk buffer (chunk_width x t doubles),
//    one tile of doubles, the writer's tile buffer, the reader's own row buffer
//    (RasterReader::resident_bytes) and GDAL's block cache, all reserved from the budget before
//    anything is read; a budget that cannot hold one tile-wide chunk is an Error up front.
//  - run_export streams a tile store (or any raster) into a tiled, DEFLATE-compressed GeoTIFF
//    with the input's type, nodata, geotransform and CRS, strip by strip, the GeoTIFF block being
//    the store's tile (so each tile is read once and each block written once).
//  - run_info describes a store or any GDAL raster; min, max and the nodata share are computed by
//    reading every cell (metadata statistics are never trusted), which also verifies every tile
//    checksum of a store.
//  - open_as_tile_store gives `index` a TileStore whatever the input: a .tzs is opened as is,
//    anything else is imported into the run directory first (sssp, mst and clump open theirs
//    through engine/raster_inputs/pipeline_input.h, which also reads in memory or in place).
//  - load_in_memory reads a raster once into tiles held in memory (engine/raster_inputs/pipeline_input.h's memory way).
// Outputs are published atomically (written as a partial file of their own,
// `path.partial-<pid>-<hex>`, renamed at the end: io/store/atomic_output.h); a failure or
// cancellation leaves nothing under the final name. Progress: phase "import" / "export" / "info",
// called at 0, after each strip and at 1.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/gdal/geotiff_options.h"
#include "io/store/run_directory.h"
#include "io/store/raster_info.h"
#include "io/store/tile_store.h"
#include "engine/tile_inputs/in_memory_tile_input.h"

namespace terrazo {

// Tile size when none is asked for (--tile 0).
constexpr std::uint32_t kDefaultTile = 256;

struct ImportOptions {
  std::string input;       // any raster RasterReader::open accepts
  std::string output;      // the tile store to write (conventionally .tzs)
  std::uint32_t tile = 0;  // power of two, 1..16384; 0: kDefaultTile
  std::uint32_t band = 0;  // --band: 0 none chosen (a raster of several bands is then a UsageError)
  unsigned threads = 0;    // a .tzs input: threads of the retile (0: all cores); other inputs read on one
};

struct ImportResult {
  RasterInfo info;                  // as recorded in the store, statistics included
  TileGrid grid;
  std::uint64_t present_tiles = 0;  // tiles with at least one valid cell (stored)
  std::uint64_t bytes_read = 0;     // cell bytes delivered by the reader (decoded size)
  std::uint64_t bytes_written = 0;  // bytes written to the store (header, index, tiles)
  std::uint64_t buffer_bytes = 0;   // memory reserved for the pass (chunk, tiles, reader, GDAL cache)
  std::uint32_t band = 1, bands = 1;  // the band read, of how many
  double seconds = 0.0;
};

ImportResult run_import(const ImportOptions& options, MemoryBudget& budget, Progress& progress);

struct ExportOptions {
  std::string input;        // a tile store or any raster
  std::string output;       // GeoTIFF path
  std::uint32_t block = 0;  // GeoTIFF block edge, multiple of 16; 0: the store's tile (>= 16), else 256
  std::uint32_t band = 0;   // --band (ImportOptions::band)
  GeoTiffOptions geotiff;   // --co and the compression threads
};

struct ExportResult {
  RasterInfo info;                  // of the input (no statistics)
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;  // size of the finished GeoTIFF
  std::uint64_t buffer_bytes = 0;
  double seconds = 0.0;
};

ExportResult run_export(const ExportOptions& options, MemoryBudget& budget, Progress& progress);

struct RasterSummary {
  std::string path;
  std::string format;           // "terrazo tile store v1" or the GDAL driver ("GTiff", "AAIGrid", ...)
  std::uint32_t band = 1, bands = 1;  // the band summarized, of how many
  RasterInfo info;              // has_stats true when at least one cell is valid; min/max from the data
  std::uint64_t nodata_cells = 0;
  double nodata_share = 0.0;    // nodata_cells / cells
  std::string crs_name;         // e.g. "WGS 84 / UTM zone 11N"; empty when there is no CRS
  std::string crs_authority;    // e.g. "EPSG:32611" when identified, else empty
  // Tile layout: for a store, its own; for other rasters, zero.
  bool is_tile_store = false;
  std::uint32_t tile = 0;
  std::uint64_t tiles_x = 0, tiles_y = 0, tile_count = 0, present_tiles = 0;
  std::uint64_t bytes_read = 0;
  double seconds = 0.0;
};

// `band`: as ImportOptions::band.
RasterSummary run_info(const std::string& path, MemoryBudget& budget, Progress& progress, std::uint32_t band = 0);

// The summary as one JSON object (one line), keys as in RasterSummary; for `terrazo info --json`.
std::string to_json(const RasterSummary& summary);

// `input_path` opened directly when it is a tile store and `tile` is 0 or its tile size; else the
// input imported (re-tiled, for a store of another tile size) with tile size `tile` (0:
// kDefaultTile) into `run`'s directory, which owns the imported file. `band`: as ImportOptions::band.
std::unique_ptr<TileStore> open_as_tile_store(const std::string& input_path, RunDirectory& run, std::uint32_t tile,
                                              MemoryBudget& budget, Progress& progress, std::uint32_t band = 0);

// `reader`'s raster read once into tiles of `tile` (0: kDefaultTile) held in memory, with its
// statistics (as run_import computes them): the cells a tile store imported from it would hold
// (engine/tile_inputs/in_memory_tile_input.h). The tiles are reserved from `budget` for the input's life, the
// pass's buffers (strip chunk, one tile, GDAL's cache) only during the load. Progress: "import".
class RasterReader;
std::unique_ptr<InMemoryTileInput> load_in_memory(RasterReader& reader, std::uint32_t tile, MemoryBudget& budget,
                                                  Progress& progress);

}  // namespace terrazo
