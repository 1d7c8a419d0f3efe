// engine/flow/watershed_resident.h: drainage basins with the whole direction raster resident on one
// device (kernels/flow/resident_watershed.h): `terrazo watershed --device cuda` without pour points or
// streams, when the raster fits the GPU (docs/flow.md "On the GPU"); the tiled pipeline
// (engine/flow/watershed_phases.h) otherwise.
//
// Contract: the labels of run_watershed_phases without pour points, written the same way (TileSink of
// UInt32 labels, 0 at nodata and padding, every tile in row-major tile order), bit for bit;
// valid_cells, labelled_cells and basins the same (spanning_basins and exits 0: no tiles' links).
// When the device finds a fault (a value that is no code, a loop, more basins than UInt32 labels)
// nothing is written and run_watershed_resident_or_tiles runs run_watershed_phases (with a plan of
// its own: the run's plan holds the resident phases), which refuses the input naming a cell.
// Phases (Progress names): "watershed: load" (each tile read, its codes sent), "watershed: label"
// (the device's steps), "watershed: write" (each tile's labels read back, to the sink).
// Memory: host: `threads` tiles of directions in the load, two tiles of labels in the write, the
// solver's host bytes throughout (CUDA: resident_watershed_cuda_host_bytes; the CPU twin: every cell,
// resident_watershed_bytes), and the sink's bytes; GPU: watershed_resident_device_bytes.
#pragma once
#include <cstdint>
#include <string>

#include "engine/flow/watershed_phases.h"
#include "kernels/common/batch_solver.h"  // Device

namespace terrazo {

struct WatershedResidentOptions : FlowPhaseOptions {
  Device device = Device::Cuda;  // Device::Cpu: the CPU twin (tests)
};

struct WatershedDeviceResult {
  WatershedPhaseResult phases;  // valid_cells, labelled_cells, basins; load, label and write seconds
  bool resident = false;        // the labels came from the resident path
  std::string fallback;         // why the tiled pipeline ran instead ("" when it did not)
  double kernel_ms = 0;         // CUDA: the labelling's GPU time
  std::uint64_t rounds = 0;     // pointer-jumping rounds
};

// The resident labelling, and when the device finds a fault, run_watershed_phases without pour points.
WatershedDeviceResult run_watershed_resident_or_tiles(const TileInput& directions, const WatershedResidentOptions& options,
                                                      MemoryBudget& budget, Progress& progress, WatershedTileSink& sink);

// GPU bytes the resident labelling of `grid` needs.
std::uint64_t watershed_resident_device_bytes(const TileGrid& grid);

}  // namespace terrazo
