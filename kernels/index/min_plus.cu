// kernels/index/min_plus.cu: min-plus products on the GPU: one thread block per (product, vector),
// thread j keeps y[v][j] in a register and walks the rows of m (coalesced: neighbouring threads read
// neighbouring entries of a row). 64-bit entries: Hopper's DPX min-plus instructions
// (__viaddmin_s32, ...) take 32-bit operands, so they do not apply (docs/index.md "Integer bounds").
// Contract: min_plus.h.
#include "kernels/common/cuda_support.cuh"
#include "kernels/index/min_plus.h"

namespace terrazo {
namespace {

constexpr unsigned kProductThreads = 256;

static __global__ void min_plus_rows(const PathLength* __restrict__ d_m, std::uint32_t b,
                                     const PathLength* __restrict__ d_x, std::uint32_t k, PathLength* __restrict__ d_y) {
  const std::uint64_t product = blockIdx.x;
  const std::uint32_t v = blockIdx.y;
  const PathLength* m = d_m + product * b * b;
  const PathLength* x = d_x + (product * k + v) * b;
  PathLength* y = d_y + (product * k + v) * b;
  for (std::uint32_t j = threadIdx.x; j < b; j += blockDim.x) {
    PathLength best = y[j];
    for (std::uint32_t i = 0; i < b; ++i) {
      const PathLength via = min_plus_add(x[i], m[static_cast<std::uint64_t>(i) * b + j]);
      if (via < best) best = via;
    }
    y[j] = best;
  }
}

}  // namespace

double min_plus_product_cuda(const PathLength* m, std::uint64_t count, std::uint32_t b, const PathLength* x,
                             std::uint32_t k, PathLength* y) {
  if (count == 0 || b == 0 || k == 0) return 0.0;
  if (count > 0x7FFFFFFFull || k > 65535) throw Error("min_plus_product_cuda: too many products in one call");
  cuda::CudaStream stream;
  cuda::CudaEvent start, stop;
  const std::uint64_t vectors = count * k * b;
  cuda::DeviceBuffer<PathLength> d_m(count * b * b), d_x(vectors), d_y(vectors);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(d_m.get(), m, d_m.bytes(), cudaMemcpyHostToDevice, stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(d_x.get(), x, d_x.bytes(), cudaMemcpyHostToDevice, stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(d_y.get(), y, d_y.bytes(), cudaMemcpyHostToDevice, stream.get()));
  TERRAZO_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
  min_plus_rows<<<dim3(static_cast<unsigned>(count), k), kProductThreads, 0, stream.get()>>>(d_m.get(), b, d_x.get(), k, d_y.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(y, d_y.get(), d_y.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  float ms = 0;
  TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace terrazo
