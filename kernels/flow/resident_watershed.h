// kernels/flow/resident_watershed.h: drainage basins of a whole D8 direction raster held in one
// memory (GPU memory for the CUDA solver, RAM for its CPU twin): `terrazo watershed --device cuda`
// without pour points or streams (engine/flow/watershed_resident.h; docs/flow.md "On the GPU").
//
// Source: pointer jumping (each cell's pointer replaced by its pointer's pointer, so a path of L cells
// is resolved in ceil(log2 L) rounds); the numbering of engine/flow/watershed_phases.h.
// Contract: the labels of run_watershed_phases without pour points: a valid cell's basin is the cell
// where its flow ends (code 0, a code pointing off the raster or at a nodata cell; the codes of
// kernels/flow/resident_flowacc_steps.h's resident_downstream); basins numbered 1..K in raster order
// of each basin's first cell (the least y * width + x among its cells), 0 at nodata.
// Algorithm (both twins; resident_watershed_steps.h holds the steps they share):
//   write_codes  each cell's code byte (d8_byte), as the resident flow accumulation's;
//   label:   1. each valid cell's pointer: the cell it flows to, or itself where its flow ends; codes
//               checked, valid cells counted;
//            2. rounds of pointer jumping, in place, until no pointer changes or 1 + ceil(log2 cells)
//               rounds (after k rounds every pointer is 2^k cells down its path or at its end);
//            3. a cell whose pointer is not an end lies on a loop or drains into one;
//            4. each basin's first cell: atomic minimum over its cells, kept at its end cell;
//            5. the first cells counted per chunk of kBasinChunk cells, the counts' prefix on the host,
//               and each first cell ranked inside its chunk (a block scan): its label;
//            6. every valid cell's label: its first cell's.
// A bad code, a loop or more basins than UInt32 labels is reported in the stats (labels unspecified):
// the caller runs the tiled CPU pipeline, which refuses the input naming a cell.
// Memory: 21 bytes per cell (code 1, pointer 8, first cell 8, label 4), 4 per chunk, and a t x t
// staging tile (resident_watershed_bytes); 64-bit cell indices throughout.
#pragma once
#include <cstdint>
#include <memory>

#include "kernels/common/batch_solver.h"  // Device
#include "kernels/common/worker_pool.h"

namespace terrazo {

struct ResidentWatershedOptions {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;  // the largest window written or read (t x t)
};

struct ResidentWatershedStats {
  std::uint64_t valid_cells = 0;
  std::uint64_t basins = 0;     // K
  std::uint64_t bad_codes = 0;  // values that are no D8 code
  std::uint64_t looped = 0;     // valid cells whose flow never ends (on a loop or draining into one)
  std::uint64_t rounds = 0;     // pointer-jumping rounds
  double kernel_ms = 0;         // CUDA: the labelling's GPU time
  // Whether the labels are the raster's basins (else the tiled CPU pipeline names the fault).
  bool exact() const { return bad_codes == 0 && looped == 0 && basins <= 0xffffffffull; }
};

class ResidentWatershed {
 public:
  virtual ~ResidentWatershed() = default;
  virtual Device device() const = 0;
  // Window of w x h raster values (row stride `pitch`, NaN or 255 nodata) at (x0, y0), w, h <= tile.
  // Windows may come in any order; cells never written are nodata.
  virtual void write_codes(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                           const double* values) = 0;
  // Steps 1-6, once, after every window's codes.
  virtual ResidentWatershedStats label() = 0;
  // Window of labels (row stride `pitch`): 0 at nodata.
  virtual void read_labels(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                           std::uint32_t* out) = 0;
};

// Bytes the solver holds on its device (GPU memory for Device::Cuda; RAM for the CPU twin).
std::uint64_t resident_watershed_bytes(const ResidentWatershedOptions& options);
// Host bytes the CUDA solver holds: its page-locked staging tiles (5 bytes a cell of a tile) and the
// chunks' counts while it ranks (4 per chunk).
std::uint64_t resident_watershed_cuda_host_bytes(const ResidentWatershedOptions& options);

// Device::Cpu: the CPU twin on `pool`. Device::Cuda: make_resident_watershed_cuda.
std::unique_ptr<ResidentWatershed> make_resident_watershed(Device device, const ResidentWatershedOptions& options,
                                                           WorkerPool& pool);

// The CUDA solver (kernels/flow/resident_watershed.cu; kernels/flow/flow_cuda_none.cpp without CUDA:
// terrazo::Error). terrazo::Error on a CUDA failure, including too little device memory.
std::unique_ptr<ResidentWatershed> make_resident_watershed_cuda(const ResidentWatershedOptions& options);

}  // namespace terrazo
