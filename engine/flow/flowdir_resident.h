// engine/flow/flowdir_resident.h: D8 flow directions with the whole raster resident on one device
// (kernels/flow/resident_flowdir.h): `terrazo flowdir --device cuda` when the raster fits the GPU
// (docs/flow.md "flowdir", "On the GPU"); the tile pipeline (engine/flow/flowdir_phases.h) otherwise.
//
// Contract: run_flowdir_phases's codes, written the same way (TileSink of code bytes, kD8Nodata at
// nodata and padding, every tile in row-major tile order), bit for bit; valid_cells, flat_cells,
// outlet_cells, flats, undrained_flats and undrained_cells the same (cross_tile_flat_cells and
// kept_tiles 0: no tiles' flats). Every raster of doubles is valid input: no fallback on the data.
// Phases (Progress names): "flowdir: load" (each tile read on the pool, its elevations sent),
// "flowdir: solve" (the device's steps; progress per BFS round: the tile solves so far), "flowdir:
// write" (each tile's codes read back, to the sink).
// Memory: host: `threads` tiles of doubles in the load, two tiles of codes in the write, the solver's
// host bytes throughout (CUDA: its page-locked staging, resident_flowdir_cuda_host_bytes; the CPU twin:
// every cell, resident_flowdir_bytes), and the sink's bytes; GPU: flowdir_resident_device_bytes
// (31 bytes a cell).
#pragma once
#include <cstdint>

#include "engine/flow/flowdir_phases.h"
#include "kernels/common/batch_solver.h"  // Device

namespace terrazo {

// The BFS rounds' tile side on a GPU: a 66 x 66 window of 9-byte cells in one block's shared memory.
constexpr std::uint32_t kResidentFlowdirTile = 64;

struct FlowdirResidentOptions : FlowdirPhaseOptions {
  Device device = Device::Cuda;  // Device::Cpu: the CPU twin (tests)
  std::uint32_t g = kResidentFlowdirTile;
};

// GPU bytes the resident directions of `grid` need.
std::uint64_t flowdir_resident_device_bytes(const TileGrid& grid);

FlowdirPhaseResult run_flowdir_resident(const TileInput& input, const FlowdirResidentOptions& options, MemoryBudget& budget,
                                        Progress& progress, FlowdirTileSink& sink);

}  // namespace terrazo
