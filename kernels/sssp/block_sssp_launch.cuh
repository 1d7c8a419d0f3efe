// kernels/sssp/block_sssp_launch.cuh: device-pointer entry point of the CUDA block SSSP, shared by the
// host-pointer block_sssp_cuda and the streamed CudaSsspBatchSolver (kernels/sssp/block_sssp_batch.h).
// Included by kernels/*.cu only.
//
// launch_block_sssp runs one thread block per tile on `stream`, asynchronously; it sizes and keeps
// its device scratch in the workspace (grown on demand, reused between launches), and decides per
// tile size whether that scratch lives in shared memory (when it fits under `shared_limit_bytes`,
// default: the device's opt-in maximum) or in global memory (L2-cached). Every launch is checked
// (TERRAZO_CUDA_CHECK_LAUNCH); tiles per launch are at most 2^31 - 1.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/block_solvers.cuh"
#include "kernels/sssp/block_sssp_batch.h"

namespace terrazo::cuda {

struct SsspWorkspace {
  DeviceBuffer<unsigned char> scratch;  // per tile: edge weights (16 bytes per halo-grid cell, 32 directed)
  std::size_t shared_limit_bytes = 0;
  SsspSweep sweep = SsspSweep::Auto;
  ScratchPlacement last_placement = ScratchPlacement::Global;
  SsspSweep last_sweep = SsspSweep::Auto;
};

// Per-cell global scratch, for budgets: bytes per tile when nothing fits in shared memory.
// directed: the 8 planes of walk and tobler.
std::uint64_t block_sssp_scratch_bytes_per_tile(std::uint32_t t, bool directed = false);

// d_values, d_dist: tiles * (t+2)^2 ((t+4)^2 with knight's moves); d_changed: tiles * t*t; *d_changed_total += changed cells;
// *d_rounds (when not null) += the sweep rounds of all tiles (each tile's last round changes nothing).
// params.steps.rows, when set, is a device pointer; d_row0 (when not null, tiles entries) gives each
// tile's params.steps.row0 (the global row of its halo row), else every tile uses params.steps.row0.
// The unit weight model goes to launch_block_bfs (below) under SsspSweep::FrontierBfs.
void launch_block_sssp(const double* d_values, std::uint64_t tiles, std::uint32_t t, const WeightParams& params,
                       Connectivity connectivity, PathLength max_cost, PathLength* d_dist, std::uint8_t* d_changed,
                       unsigned long long* d_changed_total, int* d_overflow, SsspWorkspace& workspace,
                       cudaStream_t stream, unsigned long long* d_rounds = nullptr,
                       const std::int64_t* d_row0 = nullptr);

// Knight's moves (connectivity Connectivity::Sixteen, kernels/sssp/block_sssp_knight.cu): (t+4)^2 windows,
// 16 planes of pull weights in global scratch (block_sssp_knight_scratch_bytes_per_tile). Same
// arrays and counters as launch_block_sssp, which calls it for Connectivity::Sixteen.
std::uint64_t block_sssp_knight_scratch_bytes_per_tile(std::uint32_t t);
void launch_block_sssp_knight(const double* d_values, std::uint64_t tiles, std::uint32_t t, const WeightParams& params,
                              PathLength max_cost, PathLength* d_dist, std::uint8_t* d_changed,
                              unsigned long long* d_changed_total, int* d_overflow, SsspWorkspace& workspace,
                              cudaStream_t stream, unsigned long long* d_rounds);

// The frontier BFS block solver of the unit weight model (kernels/sssp/block_bfs.h; every step weighs
// `step`), same arrays and counters as launch_block_sssp (*d_rounds += the BFS levels). Its three
// bitmaps must fit in shared memory (block_bfs_fits), the distances join them when they fit too.
// launch_block_sssp calls it for the unit model under SsspSweep::FrontierBfs.
bool block_bfs_fits(std::uint32_t t, std::size_t shared_limit_bytes);
void launch_block_bfs(const double* d_values, std::uint64_t tiles, std::uint32_t t, Weight step,
                      Connectivity connectivity, PathLength max_cost, PathLength* d_dist, std::uint8_t* d_changed,
                      unsigned long long* d_changed_total, SsspWorkspace& workspace, cudaStream_t stream,
                      unsigned long long* d_rounds);

}  // namespace terrazo::cuda
