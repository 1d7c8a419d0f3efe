// engine/commands/clump.h: connected regions of a raster (`terrazo clump`), out of core. The library entry
// point; tools/cli/cmd_clump.cpp is a thin main over engine/commands/clump_command.h, which calls this.
//
// Contract: engine/clump/phases.h (labels 1..K in row-major order of each region's first cell, 0 =
// nodata; the same labels for every tile size, thread count and budget); docs/clump.md.
// Output: a UInt32 GeoTIFF georeferenced like the input, nodata 0, written through GeoTiffWriter
// (an atomic output: a failed run leaves no file). More than 2^32 - 2 regions is an Error (exit 1)
// before the output is written.
// --min-size N (engine/clump/sieve.h): phase 3's labels go to a scratch file (4 bytes per cell), the
// sieve writes the GeoTIFF; not with --stats (a UsageError).
// --stats: a CSV, one line per region in label order (docs/clump.md "Statistics"):
//   label,cells,area,value,col_min,row_min,col_max,row_max,x_min,y_min,x_max,y_max
// area = cells x |pixel area| of the geotransform (map units squared; cells when there is none),
// value empty unless --by value, the box in cells (inclusive) and in map coordinates (cell edges).
// Keys: `by` Auto is Value for an integer raster and a UsageError for a floating-point one (exact
// equality of floats is rarely what one wants: give --by value to ask for it, or valid, or range).
#pragma once
#include <vector>

#include "engine/run/rank_report.h"
#include <cstdint>
#include <string>

#include "engine/run/run_context.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"
#include "engine/clump/phases.h"
#include "engine/clump/sieve.h"
#include "io/gdal/geotiff_options.h"
#include "engine/raster_inputs/pipeline_input.h"

namespace terrazo {

struct ClumpOptions {
  std::string input;    // any raster RasterReader::open accepts, or a tile store
  std::string output;   // the labels (UInt32 GeoTIFF)
  std::string stats;    // --stats: per-region CSV; empty: none
  GeoTiffOptions geotiff;
  Connectivity connectivity = Connectivity::Eight;
  bool by_given = false;                // false: value for integer rasters, an error for float ones
  ClumpBy by = ClumpBy::Value;
  double range_lo = 0, range_hi = 0;    // by Range: [lo, hi]
  bool min_size_given = false;          // --min-size given (0 is then an error)
  std::uint64_t min_size = 0;           // --min-size N: regions of fewer cells merged or cleared (engine/clump/sieve.h); 0: off
  ClumpSmallAction min_size_action = ClumpSmallAction::Merge;
  std::uint32_t tile = 0;               // 0: the store's own, or kDefaultTile when importing
  std::uint32_t band = 0;               // --band of a GDAL input (ImportOptions::band)
  InputMode input_mode = InputMode::Auto;  // --input-mode (engine/raster_inputs/pipeline_input.h)
};

struct ClumpPhaseSeconds {
  double import = 0, tile_labels = 0, merge = 0, relabel = 0, stats = 0, sieve = 0, total = 0;
  // relabel's wall time split (engine/clump/phases.h ClumpRelabelSeconds): waiting for the tile
  // solver, numbering on the pool, and the sink (the GeoTIFF writer) on its own thread, overlapped.
  double relabel_solve = 0, relabel_number = 0, relabel_write = 0;
  // tile_labels' split: the tile solver (reading the tiles, labelling them, waiting), the border
  // summaries and records (pool), appending to the border table.
  double tile_labels_solve = 0, tile_labels_borders = 0, tile_labels_table = 0;
  // device_setup: probing the device and making the tile solver (CUDA: pinned and device buffers);
  // device_busy: the GPU's copies and kernels in phases 1 and 3 (overlapping them); finish: the
  // writer draining its encoders and closing the file.
  double device_setup = 0, device_busy = 0, finish = 0;
};

struct ClumpResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::string device;                   // "cpu" or "cuda (<device name>)"
  bool input_read_in_place = false;     // read without an import: tiles in memory or a tiled GeoTIFF in place
  std::string input_read;               // how INPUT was read: PipelineInput::how() (engine/raster_inputs/pipeline_input.h)
  ClumpBy by = ClumpBy::Value;          // the keys used (never Auto)
  std::uint64_t regions = 0;            // K
  std::uint64_t cells_labelled = 0;
  std::uint64_t largest_region = 0;     // cells
  std::uint64_t border_regions = 0, merged_border_regions = 0;
  bool external_merge = false;          // the border regions merged on disk (they did not fit --memory)
  // --min-size: regions before the sieve, its small ones, those merged and those kept (isolated).
  std::uint64_t regions_before_sieve = 0, small_regions = 0, small_merged = 0, small_isolated = 0;
  ClumpPhaseSeconds seconds;
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t peak_rss_bytes = 0, memory_peak_reserved = 0;
  // A distributed run (docs/distributed.md): every rank's tiles and phase times, at rank 0.
  std::vector<RankReport> ranks;
};

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
ClumpResult run_clump(const ClumpOptions& options, RunContext& context);

}  // namespace terrazo
