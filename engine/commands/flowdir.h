// engine/commands/flowdir.h: D8 flow directions of a (filled) elevation raster out of core
// (`terrazo flowdir`), the library entry point; docs/flow.md has the rules, the flats and the memory.
//
// Source: [Barnes2014b] (flats). Contract: OUTPUT is a Byte GeoTIFF of INPUT's grid and
// georeference holding each valid cell's D8 code (kernels/flow/d8_codes.h: 1 east .. 128 north-east,
// 0 no flow, 255 nodata): the steepest descent, on flats the gradient of [Barnes2014b], 0 at an
// outlet with no lower neighbour and on a flat with no outlet (engine/flow/flowdir_phases.h). Outlets
// as `terrazo fill`'s. The same bytes for every --tile and --threads.
// Phases (Progress names): "import" (a non-store INPUT), "flowdir: halos", "flowdir: directions",
// "flowdir: flats across tiles", "flowdir: write".
#pragma once
#include <cstdint>
#include <string>

#include "engine/commands/fill.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/run/run_context.h"
#include "io/gdal/geotiff_options.h"

namespace terrazo {

struct FlowdirOptions {
  std::string input;   // any raster RasterReader::open accepts, or a tile store
  std::string output;  // GeoTIFF, Byte
  FillOutlets outlets = FillOutlets::Both;
  std::uint32_t tile = 0;  // 0: the store's, else kDefaultTile
  std::uint32_t band = 0;
  InputMode input_mode = InputMode::Auto;
  GeoTiffOptions geotiff;
};

struct FlowdirResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::string input_read;
  std::uint64_t valid_cells = 0, flat_cells = 0, outlet_cells = 0, flats = 0;
  std::uint64_t undrained_flats = 0, undrained_cells = 0, cross_tile_flat_cells = 0;
  struct Seconds {
    double import = 0, halos = 0, directions = 0, flats = 0, write = 0, total = 0;
  } seconds;
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t memory_peak_reserved = 0, peak_rss_bytes = 0;
};

// Runs on `context`'s threads, budget, scratch directory and progress (engine/run/run_context.h); the
// CPU only (--device cuda is refused).
FlowdirResult run_flowdir(const FlowdirOptions& options, RunContext& context);

}  // namespace terrazo
