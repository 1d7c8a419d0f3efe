// kernels/flow/resident_cuda.cuh: what the CUDA resident flow accumulation and watershed labelling
// (kernels/flow/resident_flowacc.cu, resident_watershed.cu) share: grid-stride loops over 64-bit
// cell indices, their launch sizes, and the windows' trips across the bus through page-locked t x t
// staging tiles. Included by those .cu files only.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/common/cuda_support.cuh"
#include "kernels/flow/resident_window.h"

namespace terrazo::cuda {

constexpr unsigned kThreads = 256;

// A grid-stride loop: for (i = first_cell(); i < n; i += cell_stride()).
__device__ __forceinline__ std::uint64_t first_cell() { return blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; }
__device__ __forceinline__ std::uint64_t cell_stride() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

// Blocks of kThreads for `items` grid-stride items: one item per thread up to the grid's limit.
inline unsigned blocks_for(std::uint64_t items) {
  const std::uint64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, 0x7fffffffu)));
}

// A w x h window of values (row stride `pitch`) as code bytes into the device raster `d_code` of
// `width` columns at (x0, y0), through the page-locked tile `host`; returns once `host` is free again.
inline void upload_code_window(const double* values, std::uint32_t pitch, std::uint64_t x0, std::uint64_t y0,
                               std::uint32_t w, std::uint32_t h, std::uint8_t* host, std::uint8_t* d_code,
                               std::uint64_t width, const CudaStream& stream) {
  resident_code_window(values, pitch, w, h, host, w);
  TERRAZO_CUDA_CHECK(cudaMemcpy2DAsync(d_code + y0 * width + x0, width, host, w, w, h, cudaMemcpyHostToDevice,
                                       stream.get()));
  stream.synchronize();  // the host tile is reused by the next window
}

// The w x h window staged on the device (`d_staged`, row stride w) into `out` (row stride `pitch`),
// through the page-locked tile `host`.
template <class T>
void download_window(const T* d_staged, T* host, std::uint32_t w, std::uint32_t h, T* out, std::uint32_t pitch,
                     const CudaStream& stream) {
  const std::uint64_t n = std::uint64_t{w} * h;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(host, d_staged, n * sizeof(T), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  for (std::uint32_t y = 0; y < h; ++y) std::memcpy(out + std::size_t{y} * pitch, host + std::size_t{y} * w, w * sizeof(T));
}

}  // namespace terrazo::cuda
