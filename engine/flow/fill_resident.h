// engine/flow/fill_resident.h: depression filling with the whole raster resident on the solver's device
// (docs/fill.md "On the GPU"): each tile of the input is read and sent to the device once, the rounds
// of the resident minimax exchange run there (kernels/flow/resident_fill.h), and each output tile comes
// back once, in row-major tile order, to the sink.
//
// Contract: run_fill_phases's (engine/flow/fill_phases.h), the same bits and counts: the filled
// surface is the unique fixpoint both compute.
// Phases (Progress names): "fill: load" (tiles read by the pool, 2 x threads at a time, and written
// into the solver), "fill: solve" (the rounds; progress per round: the solves so far), "fill: write"
// (each output tile read back, NaN where closed or nodata, counted, handed to the sink).
// It serves `fill --device cuda` when the raster's 16 bytes a cell (fill_resident_device_bytes) fit
// the GPU's room (--gpu-memory, else three quarters of its memory); engine/commands/fill.cpp runs the
// tile pipeline otherwise and says so. Device::Cpu runs the CPU twin (tests; not a command's path).
// Memory (host, planned): the load's tiles (2 x threads x t^2 doubles), the write's tile, the CUDA
// solver's pinned staging (resident_fill_pinned_bytes of a tile) or the CPU twin's arrays
// (resident_fill_bytes), and the sink's bytes in the write phase.
#pragma once
#include <cstdint>

#include "engine/flow/fill_phases.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"

namespace terrazo {

// The resident tile side on a GPU: a 66 x 66 window of 16-byte cells in one block's shared memory.
constexpr std::uint32_t kResidentFillTile = 64;

// Bytes the resident solver holds on `device` for `grid`'s raster at tile side g (GPU memory for
// Device::Cuda; RAM for the CPU twin with `threads` threads).
std::uint64_t fill_resident_device_bytes(const TileGrid& grid, const FillPhaseOptions& options, Device device,
                                         std::uint32_t g = kResidentFillTile);

FillPhaseResult run_fill_resident(const TileInput& input, const FillPhaseOptions& options, Device device,
                                  MemoryBudget& budget, Progress& progress, FillTileSink& sink,
                                  std::uint32_t g = kResidentFillTile);

}  // namespace terrazo
