// kernels/flow/resident_flowdir.h: D8 flow directions of a whole elevation raster held in one memory
// (GPU memory for the CUDA solver, RAM for its CPU twin): `terrazo flowdir --device cuda`
// (engine/flow/flowdir_resident.h; docs/flow.md "flowdir", "On the GPU").
//
// Source: [Barnes2014b] for the flats; the tile rounds of kernels/flow/resident_fill.h for the BFS
// distances; a lock-free union-find (hooking the larger root under the smaller by compare-and-swap, as
// ECL-CC does) for the flats' labels.
// Contract: the codes of engine/flow/flowdir_phases.h, bit for bit, and its counts: kernels/flow/d8_tile.h
// defines the classification (outlets, the steepest descent in IEEE double with the kD8Steps tie-break,
// flat cells, the `low` and `high` bits), kernels/flow/flat_gradient.h the flats' codes; both depend only
// on the raster's values, so one memory holding the whole raster gives the same bytes as the tiles.
// Algorithm (both twins; resident_flowdir_steps.h holds the steps they share), over the row-major
// raster with 64-bit cell indices:
//   write_values  each window's elevations (NaN: nodata);
//   solve:   1. every cell classified: nodata (255), steepest descent, outlet (0) or flat; counted;
//            2. every flat cell's `low` bits and `high` bit; towards = 1 where `low`, away = 1 where
//               `high`, else unreached; its union-find parent itself;
//            3. each flat cell united with its flat neighbours E, SE, S, SW (every flat edge once);
//               then every parent compressed to its root, the flat's least cell index;
//            4. the two BFS distances by rounds over g x g tiles: each listed tile's (g+2)^2 window
//               of flat flags and distances relaxed (d = min(d, d(n) + 1) over flat neighbours) until
//               no cell of the tile lowers, its lowered cells stored back, and the tiles across the
//               sides and corners where a border cell lowered listed for the next round; the first
//               round lists every tile with a flat cell; until no tile is listed. Distances only
//               ever lower and each is a real path's length, so they settle at the BFS distances
//               whatever the order and grouping of the solves;
//            5. each flat's largest away (unreached counts 0) by an atomic maximum at its root;
//            6. every flat cell's code: the least mask 2 towards + (max away - away) among its flat
//               neighbours and `low` neighbours (mask 0) below its own, the first in kD8Steps order;
//               0 on a flat that nothing drains. Flats, undrained flats and cells counted.
// Memory: 31 bytes a cell (elevation 8, code 1, class 1, low bits 1, the two distances 8, parent 8,
// largest away 4), 20 a tile of g^2 (resident_flowdir_bytes), and a t x t staging tile of doubles and
// one of codes in page-locked host memory (CUDA).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "kernels/common/batch_solver.h"  // Device
#include "kernels/common/worker_pool.h"

namespace terrazo {

struct ResidentFlowdirOptions {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;  // the largest window written or read (t x t)
  std::uint32_t g = 64;    // the BFS rounds' tile side: 2 to 64 (CUDA: its window in shared memory)
  bool edge_outlets = true, nodata_outlets = true;
  std::uint64_t group_tiles = 0;  // CPU twin: tiles gathered and solved at once (0: 4 per pool thread)
};

// The counts of the flow directions that this solver and the tile pipeline (engine/flow/flowdir_phases.h)
// both give, the same for any tile size, thread count and device.
struct FlowdirCounts {
  std::uint64_t valid_cells = 0;
  std::uint64_t flat_cells = 0;    // with no strictly lower neighbour, not outlets
  std::uint64_t outlet_cells = 0;  // outlets with no lower neighbour: kD8NoFlow
  std::uint64_t flats = 0;         // connected flats
  std::uint64_t undrained_flats = 0, undrained_cells = 0;  // flats with no draining cell beside them
};

struct ResidentFlowdirStats : FlowdirCounts {
  std::uint64_t rounds = 0;        // BFS tile rounds
  std::uint64_t solves = 0;        // tile solves, all rounds
  std::uint64_t max_active = 0;    // tiles of the largest round
  std::uint64_t sweeps = 0;        // sweeps of the windows, all solves (CUDA: of the blocks)
  double kernel_ms = 0;            // CUDA: the solve's GPU time
};

class ResidentFlowdir {
 public:
  virtual ~ResidentFlowdir() = default;
  virtual Device device() const = 0;
  // Window of w x h elevations (row stride `pitch`, NaN: nodata) at (x0, y0), w, h <= tile. Windows
  // may come in any order; cells never written are nodata. Before solve().
  virtual void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                            const double* values) = 0;
  // Steps 1-6, once; round_done(rounds, solves) after each BFS round (may throw to cancel).
  virtual ResidentFlowdirStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) = 0;
  // Window of codes (row stride `pitch`): kD8Nodata at nodata. After solve().
  virtual void read_codes(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                          std::uint8_t* out) = 0;
};

// Bytes the solver holds on its device (GPU memory for Device::Cuda; RAM for the CPU twin on `threads`
// pool threads). The CUDA solver's page-locked staging is resident_flowdir_cuda_host_bytes.
std::uint64_t resident_flowdir_bytes(const ResidentFlowdirOptions& options, Device device, unsigned threads);
std::uint64_t resident_flowdir_cuda_host_bytes(const ResidentFlowdirOptions& options);
constexpr std::uint64_t kResidentFlowdirBytesPerCell = 31;

// Device::Cpu: the CPU twin on `pool`. Device::Cuda: make_resident_flowdir_cuda.
std::unique_ptr<ResidentFlowdir> make_resident_flowdir(Device device, const ResidentFlowdirOptions& options,
                                                       WorkerPool& pool);

// The CUDA solver (kernels/flow/resident_flowdir.cu; kernels/flow/flow_cuda_none.cpp without CUDA:
// terrazo::Error). terrazo::Error on a CUDA failure, including too little device memory.
std::unique_ptr<ResidentFlowdir> make_resident_flowdir_cuda(const ResidentFlowdirOptions& options);

}  // namespace terrazo
