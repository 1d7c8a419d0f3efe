// kernels/flow/resident_flowacc.h: exact flow accumulation of a whole D8 direction raster held in one
// memory (GPU memory for the CUDA solver, RAM for its CPU twin): `terrazo flowacc --device cuda`
// (engine/flow/flowacc_resident.h; docs/flow.md "On the GPU").
//
// Source: Kahn's topological order by in-degrees [Kahn1962], run as concurrent walks (each walk owns
// a cell once every cell upstream of it is summed), the dependency counting of [Barnes2017, sec. 3]
// over the whole raster instead of a tile.
// Contract: the same accumulation as kernels/flow/tile_d8.h and engine/flow/flowacc_phases.h over the
// width x height raster: a valid cell's value is the sum of the amounts of the valid cells whose flow
// passes through it, itself included; an amount is 1 (counts) or llround(weight x scale) (0 where the
// weight is NaN). A code 0, one pointing off the raster and one pointing at a nodata cell end the flow.
// Sums are 64-bit integers added in any order, so the result is the same bits on both twins.
// Algorithm (both twins; resident_flowacc_steps.h holds the steps they share):
//   write_codes      each cell's code byte (d8_byte: nodata 255, a value that is no code kD8NotACode);
//   write_weights    weighted only, after the window's codes: each valid cell's fixed-point amount;
//   accumulate:  1. every valid cell's code checked and the in-degree of the cell it flows to counted
//                   (atomic add); valid cells and outlets counted;
//                2. counts: every valid cell's amount 1; every valid cell of in-degree 0 marked a source;
//                3. from every source, one walk downstream: the sum of the cell it stands on (complete)
//                   added atomically to the next cell's, a fence, then the next cell's in-degree
//                   decremented; the walk that takes it to 0 owns the next cell, whose sum is then
//                   complete, and walks on; the others stop. Every cell is summed once, O(cells);
//                4. a valid cell whose in-degree never reached 0 lies on a loop (a loop has no way
//                   out, so no walk enters or leaves it); the largest sum found.
// A bad code, a bad weight (infinite, or past 64 bits at `scale`), a loop or a partial sum that overflows
// int64 is reported in the stats, not refused: the caller runs the tiled CPU pipeline, which refuses
// the input naming a cell (the values are then unspecified). With mixed-sign weights a partial sum's
// overflow depends on the order of the additions; any one the walks meet is reported.
// Memory: 13 bytes per cell (code 1, in-degree 4, sum 8) plus a t x t staging tile of doubles
// (resident_flowacc_bytes); 64-bit cell indices throughout.
#pragma once
#include <cstdint>
#include <memory>

#include "kernels/common/batch_solver.h"  // Device
#include "kernels/common/worker_pool.h"

namespace terrazo {

struct ResidentFlowAccOptions {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;  // the largest window written or read (t x t)
  bool weighted = false;   // amounts from write_weights; else 1 per valid cell
  double scale = 1;        // weights' fixed-point units per weight unit
};

struct ResidentFlowAccStats {
  std::uint64_t valid_cells = 0;
  std::uint64_t outlets = 0;   // valid cells where the flow ends (code 0, off the raster, into nodata)
  std::int64_t largest = 0;    // the largest sum (0 with no valid cell)
  std::uint64_t bad_codes = 0;    // values that are no D8 code
  std::uint64_t bad_weights = 0;  // weights no 64-bit fixed point holds at `scale`
  std::uint64_t looped = 0;       // valid cells on a loop
  bool overflow = false;          // a partial sum overflowed int64
  double kernel_ms = 0;           // CUDA: the accumulation's GPU time
  // Whether the sums are the raster's accumulation (else the tiled CPU pipeline names the fault).
  bool exact() const { return bad_codes == 0 && bad_weights == 0 && looped == 0 && !overflow; }
};

class ResidentFlowAcc {
 public:
  virtual ~ResidentFlowAcc() = default;
  virtual Device device() const = 0;
  // Window of w x h raster values (row stride `pitch`, NaN or 255 nodata) at (x0, y0), w, h <= tile.
  // Windows may come in any order; cells never written are nodata.
  virtual void write_codes(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                           const double* values) = 0;
  // Weighted only, after the same window's codes: its weights (NaN: 0).
  virtual void write_weights(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                             std::uint32_t pitch, const double* weights) = 0;
  // Steps 1-4, once, after every window's codes (and weights).
  virtual ResidentFlowAccStats accumulate() = 0;
  // Window of values (row stride `pitch`): sum / scale (exactly as the tiled pipeline's write: double
  // of the sum, divided when scale is not 1); NaN at nodata.
  virtual void read_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                           double* out) = 0;
};

// Bytes the solver holds on its device (GPU memory for Device::Cuda; RAM for the CPU twin).
std::uint64_t resident_flowacc_bytes(const ResidentFlowAccOptions& options);
// Host bytes the CUDA solver holds: its page-locked staging tiles (9 bytes a cell of a tile).
std::uint64_t resident_flowacc_cuda_host_bytes(const ResidentFlowAccOptions& options);

// Device::Cpu: the CPU twin on `pool` (the walks run concurrently, with atomics, as on the GPU).
// Device::Cuda: make_resident_flowacc_cuda.
std::unique_ptr<ResidentFlowAcc> make_resident_flowacc(Device device, const ResidentFlowAccOptions& options,
                                                       WorkerPool& pool);

// The CUDA solver (kernels/flow/resident_flowacc.cu; kernels/flow/flow_cuda_none.cpp without CUDA:
// terrazo::Error). terrazo::Error on a CUDA failure, including too little device memory.
std::unique_ptr<ResidentFlowAcc> make_resident_flowacc_cuda(const ResidentFlowAccOptions& options);

}  // namespace terrazo
