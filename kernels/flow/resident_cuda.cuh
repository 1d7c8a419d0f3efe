// kernels/flow/resident_cuda.cuh: what the CUDA resident flow accumulation and watershed labelling
// (kernels/flow/resident_flowacc.cu, resident_watershed.cu) share: grid-stride loops over 64-bit
// cell indices, their launch sizes, the code raster, and the windows' trips across the bus through
// page-locked t x t staging tiles. Included by those .cu files only.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/common/batch_solver.h"  // Device
#include "kernels/common/cuda_support.cuh"
#include "kernels/flow/d8_codes.h"
#include "kernels/flow/resident_flowacc_steps.h"  // ResidentCodeRaster
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

// The CUDA solvers' code raster: the whole raster's code bytes in device memory (kD8Nodata until
// written), written in checked t x t windows through one page-locked tile, on its stream, which the
// solver's kernels run on too (stream()).
class ResidentCodesCuda {
 public:
  static constexpr Device kDevice = Device::Cuda;

  // `what` names the solver in errors; windows are at most tile x tile.
  ResidentCodesCuda(const char* what, std::uint64_t width, std::uint64_t height, std::uint32_t tile)
      : windows_{what, width, height, tile}, code_(width * height), host_codes_(std::uint64_t{tile} * tile) {
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(code_.get(), kD8Nodata, code_.bytes(), stream_.get()));
  }

  // A window of raster values as code bytes; returns once the page-locked tile is free again.
  void write_code_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                         const double* values) {
    check_window(x0, y0, w, h);
    std::uint8_t* host = host_codes_.get();
    resident_code_window(values, pitch, w, h, host, w);
    const std::uint64_t width = windows_.width;
    TERRAZO_CUDA_CHECK(cudaMemcpy2DAsync(code_.get() + y0 * width + x0, width, host, w, w, h, cudaMemcpyHostToDevice,
                                         stream_.get()));
    stream_.synchronize();  // the host tile is reused by the next window
  }

  void check_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h) const {
    windows_.check(x0, y0, w, h);
  }

  // The codes as the steps see them (resident_flowacc_steps.h).
  ResidentCodeRaster raster() { return ResidentCodeRaster{windows_.width, windows_.height, code_.get()}; }

  const CudaStream& stream() const { return stream_; }

 private:
  ResidentWindows windows_;
  CudaStream stream_;  // before the buffers: destroyed after them
  DeviceBuffer<std::uint8_t> code_;
  PinnedBuffer<std::uint8_t> host_codes_;
};

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
