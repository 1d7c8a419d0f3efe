// kernels/index/min_plus.cu: min-plus products on the GPU: one thread block per (product, vector),
// thread j keeps y[v][j] in a register and walks the rows of m (coalesced: neighbouring threads read
// neighbouring entries of a row). 64-bit entries: Hopper's DPX min-plus instructions
// (__viaddmin_s32, ...) take 32-bit operands, so they do not apply (docs/index.md "Integer bounds").
// Contract: min_plus.h.
#include <algorithm>
#include <vector>

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

// MinPlusCuda::gather: a thread block per run of up to kGatherRun adjacent vectors of one slot. Thread
// j keeps y[g][j] of the run's vectors in registers and walks the slot's rows (coalesced); the run's x
// entries of a chunk of rows sit in shared memory, so each matrix entry read serves every vector of
// the run. Vectors past the run's count see kUnreached, which absorbs.
constexpr unsigned kGatherThreads = 256, kGatherRun = 8, kGatherChunk = 128;

struct GatherRun {
  std::uint64_t first = 0;  // first vector
  std::uint32_t slot = 0, count = 0;
};

static __global__ void min_plus_gather_runs(const PathLength* __restrict__ d_m, std::uint32_t b,
                                            const GatherRun* __restrict__ d_runs, const PathLength* __restrict__ d_x,
                                            PathLength* __restrict__ d_y) {
  __shared__ PathLength xs[kGatherRun][kGatherChunk];
  const GatherRun run = d_runs[blockIdx.x];
  const PathLength* m = d_m + static_cast<std::uint64_t>(run.slot) * b * b;
  const PathLength* x = d_x + run.first * b;
  PathLength* y = d_y + run.first * b;
  for (std::uint32_t j0 = 0; j0 < b; j0 += blockDim.x) {
    const std::uint32_t j = j0 + threadIdx.x;
    const bool active = j < b;
    PathLength acc[kGatherRun];
#pragma unroll
    for (unsigned g = 0; g < kGatherRun; ++g) acc[g] = active && g < run.count ? y[static_cast<std::uint64_t>(g) * b + j] : kUnreached;
    for (std::uint32_t i0 = 0; i0 < b; i0 += kGatherChunk) {
      const std::uint32_t rows = min(static_cast<std::uint32_t>(kGatherChunk), b - i0);
      __syncthreads();
      for (unsigned e = threadIdx.x; e < kGatherRun * kGatherChunk; e += blockDim.x) {
        const unsigned g = e / kGatherChunk, i = e % kGatherChunk;
        xs[g][i] = g < run.count && i < rows ? x[static_cast<std::uint64_t>(g) * b + i0 + i] : kUnreached;
      }
      __syncthreads();
      if (active)
        for (std::uint32_t i = 0; i < rows; ++i) {
          const PathLength mij = m[static_cast<std::uint64_t>(i0 + i) * b + j];
#pragma unroll
          for (unsigned g = 0; g < kGatherRun; ++g) {
            const PathLength via = min_plus_add(xs[g][i], mij);
            acc[g] = via < acc[g] ? via : acc[g];
          }
        }
    }
    if (active)
      for (unsigned g = 0; g < run.count; ++g) y[static_cast<std::uint64_t>(g) * b + j] = acc[g];
  }
}

}  // namespace

struct MinPlusCuda::State {
  cuda::CudaStream stream;
  cuda::DeviceBuffer<PathLength> matrices, x, y;
  cuda::DeviceBuffer<GatherRun> runs;
  std::vector<GatherRun> host_runs;
};

MinPlusCuda::MinPlusCuda(std::uint32_t b, std::uint64_t slots) : state_(new State), b_(b), slots_(slots) {
  if (b == 0 || slots == 0) throw Error("MinPlusCuda: no slot");
  state_->matrices.resize(slots * b * b);
}

MinPlusCuda::~MinPlusCuda() = default;

std::uint64_t MinPlusCuda::free_device_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  TERRAZO_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

void MinPlusCuda::upload(std::uint64_t slot, const PathLength* matrix) {
  if (slot >= slots_) throw Error("MinPlusCuda::upload: slot out of range");
  const std::uint64_t b2 = static_cast<std::uint64_t>(b_) * b_;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(state_->matrices.get() + slot * b2, matrix, b2 * sizeof(PathLength),
                                     cudaMemcpyHostToDevice, state_->stream.get()));
  ++uploads_;
}

double MinPlusCuda::gather(const std::uint32_t* slot_of, std::uint64_t n, const PathLength* x, PathLength* y) {
  if (n == 0) return 0.0;
  State& s = *state_;
  s.host_runs.clear();
  for (std::uint64_t e = 0; e < n; ++e) {
    if (slot_of[e] >= slots_) throw Error("MinPlusCuda::gather: slot out of range");
    if (!s.host_runs.empty() && s.host_runs.back().slot == slot_of[e] && s.host_runs.back().count < kGatherRun &&
        s.host_runs.back().first + s.host_runs.back().count == e)
      ++s.host_runs.back().count;
    else
      s.host_runs.push_back(GatherRun{e, slot_of[e], 1});
  }
  if (s.host_runs.size() > 0x7FFFFFFFull) throw Error("MinPlusCuda::gather: too many vectors in one call");
  const std::uint64_t entries = n * b_;
  s.x.resize(entries);
  s.y.resize(entries);
  s.runs.resize(s.host_runs.size());
  cudaStream_t stream = s.stream.get();
  cuda::CudaEvent start, stop;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(s.x.get(), x, entries * sizeof(PathLength), cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(s.y.get(), y, entries * sizeof(PathLength), cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(s.runs.get(), s.host_runs.data(), s.host_runs.size() * sizeof(GatherRun),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaEventRecord(start.get(), stream));
  min_plus_gather_runs<<<static_cast<unsigned>(s.host_runs.size()), kGatherThreads, 0, stream>>>(
      s.matrices.get(), b_, s.runs.get(), s.x.get(), s.y.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(y, s.y.get(), entries * sizeof(PathLength), cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream));
  float ms = 0;
  TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

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
