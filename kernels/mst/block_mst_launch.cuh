// kernels/mst/block_mst_launch.cuh: device-pointer entry points of the CUDA block solvers of MST phase 1
// (block_mst, block_reduce), shared by the host-pointer functions (block_mst_cuda, block_reduce_cuda)
// and the streamed CudaMstBatchSolver (kernels/mst/block_mst_batch.h). Included by kernels/*.cu only.
//
// Each launch_* runs one thread block per tile on `stream`, asynchronously; it sizes and keeps its
// own device scratch in the workspace (grown on demand, reused between launches), and decides per
// tile size whether that scratch lives in shared memory (when it fits under
// `shared_limit_bytes`, default: the device's opt-in maximum) or in global memory (L2-cached).
// Every launch is checked (TERRAZO_CUDA_CHECK_LAUNCH); tiles per launch are at most 2^31 - 1.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/block_solvers.cuh"
#include "kernels/mst/block_reduce.h"

namespace terrazo::cuda {

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

// Per-cell global scratch of each solver, for budgets: bytes per tile when nothing fits in shared memory.
std::uint64_t block_mst_scratch_bytes_per_tile(std::uint32_t t);
std::uint64_t block_reduce_scratch_bytes_per_tile(std::uint32_t t);  // the masks; plus 16 * 8t for the unsorted list

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

}  // namespace terrazo::cuda
