// kernels/common/block_solvers.cuh: device-pointer entry points of the CUDA block solvers, shared by the
// host-pointer functions (block_mst_cuda, block_reduce_cuda, block_sssp_cuda) and the streamed batch
// solvers (kernels/common/block_batch.h). Included by kernels/*.cu only.
//
// Each launch_* runs one thread block per tile on `stream`, asynchronously; it sizes and keeps its
// own device scratch in the workspace (grown on demand, reused between launches), and decides per
// tile size whether that scratch lives in shared memory (when it fits under
// `shared_limit_bytes`, default: the device's opt-in maximum) or in global memory (L2-cached).
// Every launch is checked (TERRAZO_CUDA_CHECK_LAUNCH); tiles per launch are at most 2^31 - 1.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/block_batch.h"
#include "kernels/mst/block_reduce.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/common/tile_geometry.h"

namespace terrazo::cuda {

// kDirDx / kDirDy (kernels/common/tile_geometry.h) as arithmetic, usable in device code: dx + 1 packed in
// two bits per direction; dy(d) = dx(d + 6 mod 8).
__host__ __device__ constexpr int step_dx(int dir) { return static_cast<int>((0x901Au >> (2 * dir)) & 3u) - 1; }
__host__ __device__ constexpr int step_dy(int dir) { return step_dx((dir + 6) & 7); }
static_assert(step_dx(0) == kDirDx[0] && step_dx(1) == kDirDx[1] && step_dx(2) == kDirDx[2] && step_dx(3) == kDirDx[3] &&
                  step_dx(4) == kDirDx[4] && step_dx(5) == kDirDx[5] && step_dx(6) == kDirDx[6] &&
                  step_dx(7) == kDirDx[7],
              "step_dx must equal kDirDx");
static_assert(step_dy(0) == kDirDy[0] && step_dy(1) == kDirDy[1] && step_dy(2) == kDirDy[2] && step_dy(3) == kDirDy[3] &&
                  step_dy(4) == kDirDy[4] && step_dy(5) == kDirDy[5] && step_dy(6) == kDirDy[6] &&
                  step_dy(7) == kDirDy[7],
              "step_dy must equal kDirDy");

// Where a solver keeps its per-tile working arrays.
enum class ScratchPlacement : int { Global = 0, Shared = 1, SharedDistance = 2 };

// The shared memory a solver's block may use: the workspace's limit (0: none set) capped by the device's opt-in maximum.
inline std::size_t shared_scratch_limit(std::size_t workspace_limit) {
  return workspace_limit ? std::min(workspace_limit, max_shared_bytes_per_block()) : max_shared_bytes_per_block();
}

struct MstWorkspace {
  DeviceBuffer<unsigned char> scratch;  // per tile: 33 bytes per cell when in global memory
  std::size_t shared_limit_bytes = 0;   // 0: the device's maximum
  ScratchPlacement last_placement = ScratchPlacement::Global;
};

struct ReduceWorkspace {
  DeviceBuffer<unsigned char> scratch;  // per tile: 1 byte per cell when in global memory
  DeviceBuffer<TileSummaryEdge> unsorted;  // per tile: kMaxSummaryEdgesPerSide * t edges before sorting
  DeviceBuffer<int> error;              // 1 when the forest bits held a cycle (precondition broken)
  std::size_t shared_limit_bytes = 0;
  ScratchPlacement last_placement = ScratchPlacement::Global;
};

struct SsspWorkspace {
  DeviceBuffer<unsigned char> scratch;  // per tile: edge weights (16 bytes per halo-grid cell)
  std::size_t shared_limit_bytes = 0;
  SsspSweep sweep = SsspSweep::Auto;
  ScratchPlacement last_placement = ScratchPlacement::Global;
  SsspSweep last_sweep = SsspSweep::Auto;
};

// Per-cell global scratch of each solver, for budgets: bytes per tile when nothing fits in shared memory.
std::uint64_t block_mst_scratch_bytes_per_tile(std::uint32_t t);
std::uint64_t block_reduce_scratch_bytes_per_tile(std::uint32_t t);  // the masks; plus 16 * 8t for the unsorted list
std::uint64_t block_sssp_scratch_bytes_per_tile(std::uint32_t t);

// d_values: tiles * t*t; d_forest_bits: tiles * t*t (written); *d_overflow set to 1 on overflow.
void launch_block_mst(const double* d_values, std::uint64_t tiles, std::uint32_t t, const WeightParams& params,
                      Connectivity connectivity, std::uint8_t* d_forest_bits, int* d_overflow, MstWorkspace& workspace,
                      cudaStream_t stream);

// d_summary: tiles * kMaxSummaryEdgesPerSide * t edges, tile i's sorted by key from i * capacity;
// d_counts[tiles] receives the number of summary edges of each tile (when it exceeds the capacity
// the tile's edges are not written: check_summary_counts reports it).
void launch_block_reduce(const std::uint8_t* d_forest_bits, const double* d_values, std::uint64_t tiles,
                         std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                         TileSummaryEdge* d_summary, std::uint32_t* d_counts, ReduceWorkspace& workspace,
                         cudaStream_t stream);
// Throws terrazo::Error when the last reduce on this workspace met a cycle (synchronizes the stream).
void check_block_reduce(ReduceWorkspace& workspace, cudaStream_t stream);
// Host side: throws terrazo::Error when a tile's summary exceeded its capacity.
void check_summary_counts(const std::uint32_t* counts, std::uint64_t tiles, std::uint32_t t);

// d_values, d_dist: tiles * (t+2)^2; d_changed: tiles * t*t; *d_changed_total += changed cells;
// *d_rounds (when not null) += the sweep rounds of all tiles (each tile's last round changes nothing).
void launch_block_sssp(const double* d_values, std::uint64_t tiles, std::uint32_t t, const WeightParams& params,
                       Connectivity connectivity, PathLength max_cost, PathLength* d_dist, std::uint8_t* d_changed,
                       unsigned long long* d_changed_total, int* d_overflow, SsspWorkspace& workspace,
                       cudaStream_t stream, unsigned long long* d_rounds = nullptr);

}  // namespace terrazo::cuda
