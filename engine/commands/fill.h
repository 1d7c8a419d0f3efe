// engine/commands/fill.h: exact depression filling of a raster out of core (`terrazo fill`), the
// library entry point; docs/fill.md has the algorithm, the outlets and the memory.
//
// Source: [Barnes2016] (tiles and the spill graph), [Barnes2014] (Priority-Flood).
// Contract: OUTPUT holds each valid cell's filled elevation: the least, over paths to an outlet, of
// the highest cell on the path (engine/flow/fill_phases.h), in INPUT's cell type (only INPUT's values
// are written, so no rounding), INPUT's nodata, georeference and grid. Outlets: the raster's edge,
// the cells next to nodata, or both (the default). A region with no outlet is written as nodata.
// Phases (Progress names): "import" (a non-store INPUT), "fill: flood", "fill: spill graph", "fill: write".
#pragma once
#include <cstdint>
#include <string>

#include "engine/raster_inputs/pipeline_input.h"
#include "engine/run/run_context.h"
#include "io/gdal/geotiff_options.h"
#include "kernels/common/types.h"

namespace terrazo {

enum class FillOutlets { Both, Edge, Nodata };
FillOutlets parse_fill_outlets(const std::string& text);  // both|edge|nodata, UsageError naming --outlets
const char* to_string(FillOutlets outlets);

struct FillOptions {
  std::string input;   // any raster RasterReader::open accepts, or a tile store
  std::string output;  // GeoTIFF
  Connectivity connectivity = Connectivity::Eight;
  FillOutlets outlets = FillOutlets::Both;
  std::uint32_t tile = 0;  // 0: the store's, else kDefaultTile
  std::uint32_t band = 0;
  InputMode input_mode = InputMode::Auto;
  GeoTiffOptions geotiff;
};

struct FillResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::string input_read;
  std::uint64_t valid_cells = 0, raised_cells = 0, closed_cells = 0;
  std::uint64_t graph_nodes = 0, graph_edges = 0;
  struct Seconds {
    double import = 0, flood = 0, graph = 0, write = 0, total = 0;
  } seconds;
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t memory_peak_reserved = 0, peak_rss_bytes = 0;
};

// Runs on `context`'s threads, budget, scratch directory and progress (engine/run/run_context.h); the
// CPU only (--device cuda is refused until the GPU twin of the tile flood lands).
FillResult run_fill(const FillOptions& options, RunContext& context);

}  // namespace terrazo
