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
#include "engine/commands/flow_run.h"
#include "engine/flow/watershed_phases.h"
#include "engine/run/run_context.h"

namespace terrazo {

using WatershedOptions = FlowRunOptions;  // INPUT: D8 directions

// The counts and seconds of the phases: valid_cells, basins, spanning_basins, exits, ...
using WatershedResult = FlowRunResult<WatershedPhaseResult>;

// Runs on `context`'s threads, budget, scratch directory and progress; the CPU only.
WatershedResult run_watershed(const WatershedOptions& options, RunContext& context);

}  // namespace terrazo
