// engine/commands/fill.h: exact depression filling of a raster out of core (`terrazo fill`), the
// library entry point; docs/fill.md has the algorithm, the outlets and the memory.
//
// Source: [Barnes2016] (tiles and the spill graph), [Barnes2014] (Priority-Flood).
// Contract: OUTPUT holds each valid cell's filled elevation: the least, over paths to an outlet, of
// the highest cell on the path (engine/flow/fill_phases.h), in INPUT's cell type (only INPUT's values
// are written, so no rounding), INPUT's nodata, georeference and grid. Outlets: the raster's edge,
// the cells next to nodata, or both (the default). A region with no outlet is written as nodata.
// Phases (Progress names): "import" (a non-store INPUT), then "fill: flood", "fill: spill graph",
// "fill: write" (the tiles), or "fill: load", "fill: solve", "fill: write" (resident, on a GPU).
#pragma once
#include <cstdint>
#include <string>

#include "engine/commands/flow_run.h"
#include "engine/flow/fill_phases.h"
#include "engine/run/run_context.h"
#include "io/store/raster_info.h"
#include "kernels/common/types.h"

namespace terrazo {

enum class FillOutlets { Both, Edge, Nodata };
FillOutlets parse_fill_outlets(const std::string& text);  // both|edge|nodata, UsageError naming --outlets
const char* to_string(FillOutlets outlets);
// `outlets` as a phase's edge_outlets and nodata_outlets (fill's and flowdir's).
template <class PhaseOptions>
void set_outlets(PhaseOptions& o, FillOutlets outlets) {
  o.edge_outlets = outlets != FillOutlets::Nodata;
  o.nodata_outlets = outlets != FillOutlets::Edge;
}
// UsageError for --outlets nodata on INPUT `input` of an integer type with no nodata value (no cell
// is an outlet then; a float raster without nodata takes NaN).
void check_outlets_exist(FillOutlets outlets, const std::string& input, const RasterInfo& info);

struct FillOptions : FlowRunOptions {
  Connectivity connectivity = Connectivity::Eight;
  FillOutlets outlets = FillOutlets::Both;
};

// The counts and seconds of the phases: valid_cells, raised_cells, closed_cells, graph_nodes, ...
using FillResult = FlowRunResult<FillPhaseResult>;

// Runs on `context`'s threads, budget, scratch directory and progress (engine/run/run_context.h), on
// its device: the CPU takes the tile pipeline (engine/flow/fill_phases.h), a GPU the resident fill
// (engine/flow/fill_resident.h) when the raster fits its memory, else the tile pipeline on the CPU
// with a warning (when --device cuda was asked for). The same bytes on every path.
FillResult run_fill(const FillOptions& options, RunContext& context);

}  // namespace terrazo
