// engine/commands/watershed.h: drainage basins of a D8 direction raster out of core (`terrazo
// watershed`), the library entry point; docs/flow.md has the algorithm, the numbering and the memory.
//
// Source: [Barnes2017] (the tiles' perimeter links), the numbering of clump (docs/clump.md).
// Contract: OUTPUT (UInt32, nodata 0) labels each valid cell with its basin: the cells whose flow
// ends at the same cell (code 0, a code pointing off the raster or at a nodata cell) share one,
// numbered 1..K in raster order of each basin's first cell. With pour points (`outlets`,
// `outlets_file`), each one is an outlet (its flow stops there) and only the cells whose flow
// reaches one are labelled, in the same order; every other valid cell is 0. `snap` moves each pour
// point first to the cell of highest `accumulation` within (2 snap + 1)^2 cells around it (ties: the
// least y * width + x). Bad codes and loops are refused (UsageError naming a cell), and so are a pour
// point outside the raster or on nodata (naming it). With `streams` (a threshold T >= 1, and
// `accumulation`), the stream network of the cells whose accumulation is at least T
// (engine/flow/stream_phases.h): `streams_raster` (UInt8: each stream cell's Strahler order, 0 at
// other valid cells, 255 at nodata) and `streams_vector` (GeoJSON: a LineString per segment through
// its cells' centres in INPUT's CRS, then the junction it flows into; properties segment, order,
// downstream, cells), at least one of them. The same bytes for every --tile, --threads and --memory.
// Phases (Progress names): "import" (a non-store INPUT), "watershed: snap" (with `snap`), then
// engine/flow/watershed_phases.h's (on the GPU engine/flow/watershed_resident.h's), then with
// `streams` engine/flow/stream_phases.h's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/commands/flow_run.h"
#include "engine/flow/stream_phases.h"
#include "engine/flow/watershed_phases.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "engine/run/run_context.h"

namespace terrazo {

struct WatershedOptions : FlowRunOptions {  // INPUT: D8 directions
  std::vector<SourcePoint> outlets;  // --outlet: pour points at column,row (map coordinates with map_coords)
  bool map_coords = false;           // --map-coords: --outlet values are map coordinates in INPUT's CRS
  std::string outlets_file;          // --outlets-file: OGR points, map coordinates (as sssp --sources-file)
  std::optional<std::uint32_t> snap;  // --snap N: each pour point to the largest accumulation within N cells
  std::string accumulation;          // --accumulation: `terrazo flowacc`'s output on INPUT, for --snap and --streams
  std::optional<std::int64_t> streams;  // --streams T: the stream network of the cells of accumulation >= T
  std::string streams_raster;           // --streams-raster: UInt8 GeoTIFF of Strahler orders
  std::string streams_vector;           // --streams-vector: GeoJSON of the segments
};

// A pour point as given and where it went: the cell it lies in, the cell it snapped to (the same
// without --snap) and its basin's label.
struct WatershedPourPoint {
  std::string text;  // as given, for messages ("--outlet 12,7", "gauges.gpkg feature 3")
  std::uint64_t x = 0, y = 0, snapped_x = 0, snapped_y = 0;
  std::uint32_t basin = 0;
};

// The counts and seconds of the phases (valid_cells, labelled_cells, basins, spanning_basins, exits,
// ...), the pour points in the order given (--outlet, then --outlets-file) and the snap's seconds.
// With --streams: the stream phases' counts and seconds in `streams`.
struct WatershedResult : FlowRunResult<WatershedPhaseResult> {
  std::vector<WatershedPourPoint> pour_points;
  double snap_seconds = 0;
  StreamPhaseResult streams;
  std::string device = "cpu";  // where the labelling ran: "cpu" or "cuda (<device name>)"
  std::string path = "tiles";  // "tiles" (the out-of-core pipeline, CPU) or "resident" (the GPU)
  std::string fallback;        // why a run on the GPU took the tiled pipeline ("" when it did not)
  double kernel_ms = 0;        // the GPU's labelling time
};

// Runs on `context`'s device, threads, budget, scratch directory and progress: without pour points and
// streams, the resident path (engine/flow/watershed_resident.h) when the device is CUDA and
// --gpu-memory (default: three quarters of the GPU's memory) holds the raster, else the tiled CPU
// pipeline (with a warning when --device cuda was asked for); pour points and streams run on the CPU
// (--device cuda refused). The same bytes on every path.
WatershedResult run_watershed(const WatershedOptions& options, RunContext& context);

}  // namespace terrazo
