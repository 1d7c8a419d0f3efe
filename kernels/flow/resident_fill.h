// kernels/flow/resident_fill.h: exact depression filling of a whole raster held in one memory (GPU
// memory for the CUDA solver, RAM for its CPU twin), by rounds of block solves over the active tiles:
// the resident exchange of kernels/sssp/resident_sssp.h with (max, min) in place of (+, min).
//
// Source: docs/fill.md "On the GPU"; [Barnes2016] for the problem and its tiles, [Harish2007] for
// frontier rounds with device-side flags, [Davidson2014] for the near-far order of the rounds.
//
// Contract (engine/flow/fill_phases.h): a valid cell's filled elevation is the least, over paths of
// neighbouring valid cells (8- or 4-connectivity) to an outlet, of the highest elevation on the path;
// outlets are the raster-edge cells (edge_outlets) and the cells with a nodata neighbour among their
// 8 or 4 neighbours inside the raster (nodata_outlets; as kernels/flow/tile_flood_cpu.cpp). Cells
// with no outlet are closed (NaN); a raised zero is +0; any other cell keeps its bits.
// Plain formula: level(c) = elev(c) at an outlet, else max(elev(c), min over valid neighbours n of
// level(n)); starting from +inf everywhere but the outlets and only ever lowering, the levels settle at
// the minimax path values (each is the highest cell of a real path to an outlet, and a settled cell
// is no higher than its best path's maximum); closed cells stay +inf.
// Levels are compared as order-preserving 64-bit keys of the doubles (kernels/flow/resident_fill_steps.h):
// max and min only, so exact, and the keys' order refines the doubles' (-0 before +0), which changes
// no filled value.
// Layout: ResidentLayout (kernels/sssp/resident_sssp.h) with a 1-cell halo; per cell the elevation's
// key and the level, 16 bytes; per tile a key (the least candidate level pushed in), a flag, a list
// entry. Algorithm (both twins):
//   start:  outlets at their elevation, the other valid cells at +inf; pending = the tiles holding a
//           cell whose one-step candidate max(elev, least neighbour level) lowers it, keyed by the
//           least such candidate.
//   round:  0. active = the pending tiles whose key is at most the smallest key + delta
//              (NearFarSchedule, kernels/sssp/resident_sssp_steps.h); they leave the pending set;
//           1. every active tile's (g+2)^2 window (its cells and the ring of its neighbours' cells,
//              as stored when the round's group starts) is swept until no cell of the tile lowers;
//           2. its lowered cells are stored back;
//           3. for every lowered cell u of its border band and every valid neighbour v in another
//              tile: if max(elev(v), level(u)) < level(v), v's tile becomes pending, its key lowered
//              to that candidate.
//   until no tile is pending.
// Invariant after each round (as resident_sssp.h's): every violated pair (u, v) of neighbours in
// different tiles has v's tile pending; a tile's solve leaves its own cells settled against its window.
// So the result is the one fixpoint, whatever the order and grouping of the solves: the CUDA solver
// and its CPU twin give the same bits (and the same rounds and solves when they group alike: the CPU
// twin's groups are at most 4 tiles per pool thread, the GPU's batch_tiles).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "kernels/common/batch_solver.h"
#include "kernels/common/types.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/fill_rules.h"

namespace terrazo {

// The rules (connectivity, edge and nodata outlets) and the resident layout.
struct ResidentFillOptions : FillRules {
  std::uint64_t width = 0, height = 0;
  std::uint32_t g = 64;  // resident tile side: 2 and up (CUDA: its window's 16 bytes a cell in shared memory)
  std::uint64_t batch_tiles = 4096;  // tiles solved per launch (CPU: per pool loop) at most
  std::uint64_t round_tiles = 2048;  // tiles per round the near-far schedule aims at
};

struct ResidentFillStats {
  std::uint64_t rounds = 0;
  std::uint64_t solves = 0;         // tile solves, all rounds
  std::uint64_t tiles_solved = 0;   // distinct tiles solved at least once
  std::uint64_t max_active = 0;     // largest round
  std::uint64_t cells_lowered = 0;  // cells stored back, all solves
  std::uint64_t sweeps = 0;         // sweeps of the windows, all solves
  double kernel_ms = 0.0;           // CUDA: GPU time of the start and the rounds
};

// The cells of a window read back: valid, raised (filled above their elevation), closed (no outlet).
struct ResidentFillCounts {
  std::uint64_t valid = 0, raised = 0, closed = 0;
};

class ResidentFillSolver {
 public:
  virtual ~ResidentFillSolver() = default;
  virtual Device device() const = 0;
  // Row-major window of w x h elevations (NaN: nodata) at (x0, y0); windows may come in any order;
  // cells never written are nodata. Before solve().
  virtual void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                            const double* values) = 0;
  // The start and the rounds until no tile is pending; round_done(rounds, solves) after each round
  // (may throw to cancel). Once.
  virtual ResidentFillStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) = 0;
  // Row-major window of filled elevations (NaN at nodata and closed cells); its cells counted into *counts.
  virtual void read_filled(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* filled,
                           ResidentFillCounts* counts) = 0;
};

// Bytes the solver holds on its device: RAM for Device::Cpu with `threads` pool threads; GPU memory
// for Device::Cuda (its pinned host staging: resident_fill_pinned_bytes).
std::uint64_t resident_fill_bytes(const ResidentFillOptions& options, Device device, unsigned threads);
// The CUDA solver's page-locked host memory for windows of at most `window_cells` cells.
std::uint64_t resident_fill_pinned_bytes(std::uint64_t window_cells);
// The largest tile side whose window the CUDA solve keeps in one block's shared memory of `bytes`.
std::uint32_t resident_fill_max_g(std::uint64_t shared_bytes);

// Device::Cpu: the CPU twin on `pool`. Device::Cuda: throws terrazo::Error when built without CUDA
// or on a CUDA failure (including too little device memory).
std::unique_ptr<ResidentFillSolver> make_resident_fill_solver(Device device, const ResidentFillOptions& options,
                                                              WorkerPool& pool);

// The CUDA solver (kernels/flow/resident_fill.cu; kernels/flow/flow_cuda_none.cpp without CUDA).
std::unique_ptr<ResidentFillSolver> make_resident_fill_cuda(const ResidentFillOptions& options);

}  // namespace terrazo
