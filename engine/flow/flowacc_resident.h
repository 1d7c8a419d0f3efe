// engine/flow/flowacc_resident.h: flow accumulation with the whole direction raster resident on one
// device (kernels/flow/resident_flowacc.h): `terrazo flowacc --device cuda` when the raster fits the
// GPU (docs/flow.md "On the GPU"); the tiled pipeline (engine/flow/flowacc_phases.h) otherwise.
//
// Contract: the same values, written the same way (TileSink of accumulation / scale, NaN at nodata,
// every tile in row-major tile order), as run_flowacc_phases, bit for bit; valid_cells, outlets and
// largest the same (exits and kept_tiles 0: no tiles' links). When the device finds a fault (a value
// that is no code, a weight no fixed point holds, a loop, a partial sum past int64) nothing is written
// and the result says so (`exact` false): the caller runs run_flowacc_phases, which names the cell.
// Phases (Progress names): "flowacc: load" (each tile read, its codes and weights sent), "flowacc:
// accumulate" (the device's steps), "flowacc: write" (each tile's values read back, to the sink).
// Memory: host: `threads` tiles of directions (and weights) in the load, two tiles of doubles in the
// write, the solver's host bytes throughout (CUDA: page-locked t x t staging, 9 bytes a cell; the CPU
// twin: every cell, resident_flowacc_bytes), and the sink's bytes; GPU: flowacc_resident_device_bytes.
#pragma once
#include <cstdint>
#include <string>

#include "engine/flow/flowacc_phases.h"
#include "kernels/common/batch_solver.h"  // Device

namespace terrazo {

struct FlowAccResidentOptions : FlowAccPhaseOptions {
  Device device = Device::Cuda;  // Device::Cpu: the CPU twin (tests)
};

struct FlowAccResidentResult {
  bool exact = false;        // false: the input has a fault (`fault`); nothing was written
  std::string fault;         // what the device found, e.g. "2 values that are no D8 code"
  FlowAccPhaseResult phases; // valid_cells, outlets, largest; load, accumulate and write seconds
  double kernel_ms = 0;      // CUDA: the accumulation's GPU time
};

// run_flowacc_resident, and when the device finds a fault, run_flowacc_phases with a plan of its own
// (the run's plan holds the resident phases), which refuses the input naming a cell; only a partial
// sum that overflows in the device's order of additions and not in the tiles' is accumulated there.
struct FlowAccDeviceResult {
  FlowAccPhaseResult phases;
  bool resident = false;     // the values came from the resident path
  std::string fallback;      // why the tiled pipeline ran instead ("" when it did not)
  double kernel_ms = 0;
};
FlowAccDeviceResult run_flowacc_resident_or_tiles(const TileInput& directions, const TileInput* weights,
                                                  const FlowAccResidentOptions& options, MemoryBudget& budget,
                                                  Progress& progress, FlowAccTileSink& sink);

// GPU bytes the resident accumulation of `grid` needs.
std::uint64_t flowacc_resident_device_bytes(const TileGrid& grid);

// `weights` (null: counts) on `directions`' grid.
FlowAccResidentResult run_flowacc_resident(const TileInput& directions, const TileInput* weights,
                                           const FlowAccResidentOptions& options, MemoryBudget& budget,
                                           Progress& progress, FlowAccTileSink& sink);

}  // namespace terrazo
