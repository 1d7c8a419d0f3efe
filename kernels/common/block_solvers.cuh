// kernels/common/block_solvers.cuh: what the CUDA tile solvers of both pipelines share (included by
// kernels/*.cu only): where a solver's per-tile scratch lives and the host helpers of the streamed
// batch solvers (kernels/common/block_batch.h); the direction steps usable in device code are
// step_dx/step_dy of kernels/common/tile_geometry.h. Each pipeline's device-pointer entry points are
// in kernels/mst/block_mst_launch.cuh and kernels/sssp/block_sssp_launch.cuh.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_support.cuh"
#include "kernels/common/tile_geometry.h"

namespace terrazo::cuda {

// Where a solver keeps its per-tile working arrays.
enum class ScratchPlacement : int { Global = 0, Shared = 1, SharedDistance = 2 };

// The shared memory a solver's block may use: the workspace's limit (0: none set) capped by the device's opt-in maximum.
inline std::size_t shared_scratch_limit(std::size_t workspace_limit) {
  return workspace_limit ? std::min(workspace_limit, max_shared_bytes_per_block()) : max_shared_bytes_per_block();
}

// Threads of a block with one thread per cell: the cells rounded up to whole warps, 32 to 1024.
inline unsigned threads_for_cells(std::uint64_t cells) {
  const std::uint64_t rounded = (cells + 31) / 32 * 32;
  return static_cast<unsigned>(std::min<std::uint64_t>(1024, std::max<std::uint64_t>(32, rounded)));
}

// The most thread blocks one launch takes (grid x dimension 2^31 - 1): more tiles go in chunks.
constexpr std::uint64_t kMaxBlocksPerLaunch = 0x7fffffffull;

// Blocks [begin, end) in launches of at most kMaxBlocksPerLaunch: launch(first, count) launches
// one kernel of `count` blocks whose block 0 is block `first`; every launch is checked.
template <class Launch>
void launch_in_chunks(std::uint64_t begin, std::uint64_t end, Launch&& launch) {
  for (std::uint64_t first = begin; first < end; first += kMaxBlocksPerLaunch) {
    const std::uint64_t count = std::min(kMaxBlocksPerLaunch, end - first);
    launch(first, static_cast<unsigned>(count));
    TERRAZO_CUDA_CHECK_LAUNCH();
  }
}

// Where `kernel`'s per_tile bytes of scratch live for a launch of `tiles` tiles: in dynamic shared
// memory when they fit shared_scratch_limit(workspace_limit) (the kernel's limit raised to them),
// else in `global_scratch`, grown to one slice per tile of the largest chunk. Returns the dynamic
// shared bytes of the launch (0: global).
template <class Kernel>
std::size_t place_tile_scratch(Kernel kernel, std::uint64_t per_tile, std::uint64_t tiles,
                               std::size_t workspace_limit, DeviceBuffer<unsigned char>& global_scratch,
                               ScratchPlacement* placement) {
  if (per_tile <= shared_scratch_limit(workspace_limit)) {
    *placement = ScratchPlacement::Shared;
    const std::size_t shared_bytes = static_cast<std::size_t>(per_tile);
    TERRAZO_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
    return shared_bytes;
  }
  *placement = ScratchPlacement::Global;
  global_scratch.resize(per_tile * std::min(tiles, kMaxBlocksPerLaunch));
  return 0;
}

// ---- streamed batch solvers (kernels/common/block_batch.cu) -------------------------------------

// Throws terrazo::Error naming `what` when there is no CUDA device.
void require_cuda_device(const char* what);
// The device memory a batch solver may hold: `requested`, or when 0 a quarter of the free memory.
std::uint64_t batch_budget_bytes(std::uint64_t requested);
// Tiles per batch: as many as fit `budget` at `per_tile_both_slots` bytes each, capped by
// `max_tiles` (0: no cap); throws terrazo::Error naming `what` when not even one fits.
std::uint64_t batch_tiles_for_budget(std::uint64_t budget, std::uint64_t per_tile_both_slots, std::uint64_t max_tiles,
                                     const char* what);

}  // namespace terrazo::cuda
