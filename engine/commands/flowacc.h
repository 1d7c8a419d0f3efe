// engine/commands/flowacc.h: exact flow accumulation of a D8 direction raster out of core (`terrazo
// flowacc`), the library entry point; docs/flow.md has the algorithm, the conventions and the memory.
//
// Source: [Barnes2017] (tiles accumulated alone, their perimeters' links solved once, the tiles again).
// Contract: OUTPUT holds each valid cell's accumulation: the number of valid cells whose flow path
// passes through it, itself included (RichDEM's and TauDEM's convention; ArcGIS's is one less), or
// with WEIGHT the sum of their weights (a nodata weight counts 0) in 64-bit fixed point at `scale`,
// written as Float64. Counts are UInt32 when the raster has fewer than 2^32 cells, else Float64
// (exact to 2^53); nodata is 0 (UInt32) or NaN (Float64). A code pointing off the raster or at a
// nodata cell ends the flow there, as code 0 does. Bad codes and loops are refused (UsageError
// naming a cell). The same bytes for every --tile, --threads and --memory.
// Phases (Progress names): "import" (a non-store INPUT), then on the CPU "flowacc: tiles", "flowacc:
// links", "flowacc: write"; on the GPU (the resident path, engine/flow/flowacc_resident.h) "flowacc:
// load", "flowacc: accumulate", "flowacc: write". The same bytes on either device.
#pragma once
#include <cstdint>
#include <string>

#include "engine/commands/flow_run.h"
#include "engine/flow/flowacc_phases.h"
#include "engine/run/run_context.h"
#include "io/store/raster_info.h"

namespace terrazo {

enum class FlowAccType { Auto, UInt32, Float64 };
FlowAccType parse_flowacc_type(const std::string& text);  // auto|UInt32|Float64, UsageError naming --ot
const char* to_string(FlowAccType type);

struct FlowAccOptions : FlowRunOptions {  // INPUT: D8 directions
  std::string weight;   // a raster on INPUT's grid, or "" (counts)
  double scale = 0;     // weights' fixed-point units per weight unit; 0: the default (docs/flow.md)
  FlowAccType type = FlowAccType::Auto;
};

// The counts and seconds of the phases (valid_cells, outlets, exits, ...), OUTPUT's type and scale.
struct FlowAccResult : FlowRunResult<FlowAccPhaseResult> {
  CellType type = CellType::UInt32;
  double scale = 1;    // 1 for counts
  double largest = 0;  // the largest accumulation, in OUTPUT's units
  std::string device = "cpu";  // where the accumulation ran: "cpu" or "cuda (<device name>)"
  std::string path = "tiles";  // "tiles" (the out-of-core pipeline, CPU) or "resident" (the GPU)
  std::string fallback;        // why a run on the GPU took the tiled pipeline ("" when it did not)
  double kernel_ms = 0;        // the GPU's accumulation time
};

// Runs on `context`'s device, threads, budget, scratch directory and progress: the resident path when
// the device is CUDA and --gpu-memory (default: three quarters of the GPU's memory) holds the raster
// (flowacc_resident_device_bytes), else the tiled CPU pipeline (with a warning when --device cuda was
// asked for). The same bytes on every path.
FlowAccResult run_flowacc(const FlowAccOptions& options, RunContext& context);

// The default scale of weights whose largest magnitude is `largest` on `cells` valid cells: 1 for an
// integer cell type, else the largest power of 10 at which largest x cells x scale <= 2^62 (so no
// sum overflows); 1 when largest x cells is 0.
double default_flowacc_scale(double largest, std::uint64_t cells, bool integer_type);

}  // namespace terrazo
