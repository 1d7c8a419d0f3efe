// kernels/common/block_scan.cuh: warp- and block-wide building blocks of the CUDA kernels: appending
// to a list with one shared-memory atomic per warp, and a block-wide exclusive prefix sum. Both must
// be called by every thread of the warp (warp_append) or block (block_exclusive_scan), with uniform
// trip counts around them; blockDim.x must be a multiple of 32. Included by kernels/*.cu only.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace terrazo::cuda {

constexpr unsigned kWarpFullMask = 0xFFFFFFFFu;

// Appends `value` to list[*count ...] for the lanes with `take` set: one shared atomicAdd per warp.
// Every lane of the warp must call it (uniform trip counts).
__device__ __forceinline__ void warp_append(bool take, std::uint32_t value, std::uint32_t* list,
                                            std::uint32_t* s_count) {
  const unsigned mask = __ballot_sync(kWarpFullMask, take);
  if (mask == 0) return;
  const unsigned lane = threadIdx.x & 31u;
  const int leader = __ffs(mask) - 1;
  std::uint32_t base = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(s_count, static_cast<std::uint32_t>(__popc(mask)));
  base = __shfl_sync(kWarpFullMask, base, leader);
  if (take) list[base + static_cast<std::uint32_t>(__popc(mask & ((1u << lane) - 1u)))] = value;
}

// Block-wide exclusive prefix sum of one value per thread; *total receives the sum. Every thread of
// the block must call it; it contains barriers (and ends with one, so it can be called in a loop).
__device__ inline std::uint32_t block_exclusive_scan(std::uint32_t value, std::uint32_t* total) {
  __shared__ std::uint32_t s_warp[32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned warps = (blockDim.x + 31u) >> 5;
  std::uint32_t x = value;
  for (unsigned offset = 1; offset < 32; offset <<= 1) {
    const std::uint32_t y = __shfl_up_sync(kWarpFullMask, x, offset);
    if (lane >= offset) x += y;
  }
  if (lane == 31) s_warp[warp] = x;
  __syncthreads();
  if (warp == 0) {
    std::uint32_t w = lane < warps ? s_warp[lane] : 0u;
    for (unsigned offset = 1; offset < 32; offset <<= 1) {
      const std::uint32_t y = __shfl_up_sync(kWarpFullMask, w, offset);
      if (lane >= offset) w += y;
    }
    if (lane < warps) s_warp[lane] = w;
  }
  __syncthreads();
  const std::uint32_t before = warp > 0 ? s_warp[warp - 1] : 0u;
  *total = s_warp[warps - 1];
  __syncthreads();
  return before + x - value;
}

}  // namespace terrazo::cuda
