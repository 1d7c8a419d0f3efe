// engine/commands/watershed.h: drainage basins of a D8 direction raster out of core (`terrazo
// watershed`), the library entry point; docs/flow.md has the algorithm, the numbering and the memory.
//
// Source: [Barnes2017] (the tiles' perimeter links), the numbering of clump (docs/clump.md).
// Contract: OUTPUT (UInt32, nodata 0) labels each valid cell with its basin: the cells whose flow
// ends at the same cell (code 0, a code pointing off the raster or at a nodata cell) share one,
// numbered 1..K in raster order of each basin's first cell. Bad codes and loops are refused
// (UsageError naming a cell). The same bytes for every --tile, --threads and --memory.
// Phases (Progress names): "import" (a non-store INPUT), then engine/flow/watershed_phases.h's.
#pragma once
#include <cstdint>
#include <string>

#include "engine/raster_inputs/pipeline_input.h"
#include "engine/run/run_context.h"
#include "io/gdal/geotiff_options.h"

namespace terrazo {

struct WatershedOptions {
  std::string input;   // D8 directions: any raster RasterReader::open accepts, or a tile store
  std::string output;  // GeoTIFF
  std::uint32_t tile = 0;  // 0: the store's, else kDefaultTile
  std::uint32_t band = 0;
  InputMode input_mode = InputMode::Auto;
  GeoTiffOptions geotiff;
};

struct WatershedResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::string input_read;
  std::uint64_t valid_cells = 0, basins = 0, spanning_basins = 0, exits = 0;
  struct Seconds {
    double import = 0, tiles = 0, links = 0, firsts = 0, ranks = 0, write = 0, total = 0;
  } seconds;
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t memory_peak_reserved = 0, peak_rss_bytes = 0;
};

// Runs on `context`'s threads, budget, scratch directory and progress; the CPU only.
WatershedResult run_watershed(const WatershedOptions& options, RunContext& context);

}  // namespace terrazo
