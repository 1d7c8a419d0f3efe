// engine/commands/flowdir.h: D8 flow directions of a (filled) elevation raster out of core
// (`terrazo flowdir`), the library entry point; docs/flow.md has the rules, the flats and the memory.
//
// Source: [Barnes2014b] (flats). Contract: OUTPUT is a Byte GeoTIFF of INPUT's grid and
// georeference holding each valid cell's D8 code (kernels/flow/d8_codes.h: 1 east .. 128 north-east,
// 0 no flow, 255 nodata): the steepest descent, on flats the gradient of [Barnes2014b], 0 at an
// outlet with no lower neighbour and on a flat with no outlet (engine/flow/flowdir_phases.h). Outlets
// as `terrazo fill`'s. The same bytes for every --tile and --threads.
// Phases (Progress names): "import" (a non-store INPUT), then "flowdir: halos", "flowdir: directions",
// "flowdir: flats across tiles", "flowdir: write" (the tiles), or "flowdir: load", "flowdir: solve",
// "flowdir: write" (resident, on a GPU).
#pragma once
#include "engine/commands/fill.h"
#include "engine/commands/flow_run.h"
#include "engine/flow/flowdir_phases.h"
#include "engine/run/run_context.h"

namespace terrazo {

struct FlowdirOptions : FlowRunOptions {  // OUTPUT: Byte
  FillOutlets outlets = FillOutlets::Both;
};

// The counts and seconds of the phases: valid_cells, flat_cells, outlet_cells, flats, ...
using FlowdirResult = FlowRunResult<FlowdirPhaseResult>;

// Runs on `context`'s threads, budget, scratch directory and progress (engine/run/run_context.h), on
// its device: the CPU takes the tile pipeline (engine/flow/flowdir_phases.h), a GPU the resident
// directions (engine/flow/flowdir_resident.h) when the raster fits its memory, else the tile pipeline
// on the CPU with a warning (when --device cuda was asked for). The same bytes on every path.
FlowdirResult run_flowdir(const FlowdirOptions& options, RunContext& context);

}  // namespace terrazo
