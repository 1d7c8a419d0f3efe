// kernels/index/tile_boundary_matrix.cu: the index build of a batch of tiles on the GPU: the leaves of
// all tiles (blocked_floyd_warshall.cu), then the merge levels, all merges of a level in each launch
// (boundary_merge.cu), device buffers sized from the batch. Contract: tile_boundary_matrix.h.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/index/boundary_merge.h"
#include "kernels/index/index_launch.cuh"
#include "kernels/index/tile_boundary_matrix.h"

namespace terrazo {
namespace {

std::uint64_t level_entries(std::uint32_t t, std::uint32_t s) {
  return static_cast<std::uint64_t>(t / s) * (t / s) * ring_size(s) * ring_size(s);
}

struct BatchSizes {
  std::uint64_t level = 0;  // entries of the largest level, per tile
  std::uint64_t work = 0;   // entries of leaf or merge scratch, per tile
};

BatchSizes batch_sizes(std::uint32_t t, std::uint32_t leaf) {
  tile_boundary_workspace_entries(t, leaf);  // checks the sides
  BatchSizes sizes;
  for (std::uint32_t s = leaf; s <= t; s *= 2) sizes.level = std::max(sizes.level, level_entries(t, s));
  sizes.work = static_cast<std::uint64_t>(t / leaf) * (t / leaf) * leaf * leaf * leaf * leaf;
  for (std::uint32_t s = leaf; s < t; s *= 2)
    sizes.work = std::max(sizes.work, static_cast<std::uint64_t>(t / (2 * s)) * (t / (2 * s)) * merge_workspace_entries(s));
  return sizes;
}

}  // namespace

std::uint64_t tile_boundary_cuda_bytes(std::uint32_t t, std::uint32_t leaf, std::uint64_t tile_count) {
  const BatchSizes sizes = batch_sizes(t, leaf);
  return tile_count * (static_cast<std::uint64_t>(t) * t * sizeof(double) + (2 * sizes.level + sizes.work) * sizeof(PathLength));
}

struct TileBoundaryCuda::State {
  BatchSizes sizes;
  cuda::CudaStream stream;
  cuda::DeviceBuffer<double> values;
  cuda::DeviceBuffer<PathLength> levels[2];
  cuda::DeviceBuffer<PathLength> work;
  cuda::DeviceBuffer<int> overflow;
  cuda::DeviceBuffer<std::uint32_t> order;
  cuda::PinnedBuffer<double> host_values;       // PinnedHost::Values: the callers' batch of values
  cuda::PinnedBuffer<PathLength> host_matrices;  // ...AndMatrices: the matrices back (page-locked: full-speed copies)
};

TileBoundaryCuda::TileBoundaryCuda(std::uint32_t t, std::uint32_t leaf, std::uint64_t max_tiles, PinnedHost pinned_host)
    : state_(new State), t_(t), leaf_(leaf), max_tiles_(max_tiles) {
  if (max_tiles == 0) throw Error("TileBoundaryCuda: no tile");
  State& s = *state_;
  s.sizes = batch_sizes(t, leaf);
  s.values.resize(max_tiles * t * t);
  s.levels[0].resize(max_tiles * s.sizes.level);
  s.levels[1].resize(max_tiles * s.sizes.level);
  s.work.resize(max_tiles * s.sizes.work);
  s.overflow.resize(1);
  s.order.resize(merge_union_size(t / 2));
  if (pinned_host != PinnedHost::None) s.host_values.resize(max_tiles * t * t);
  if (pinned_host == PinnedHost::ValuesAndMatrices) s.host_matrices.resize(max_tiles * ring_size(t) * ring_size(t));
}

double* TileBoundaryCuda::host_values() { return state_->host_values.get(); }
PathLength* TileBoundaryCuda::host_matrices() { return state_->host_matrices.get(); }

TileBoundaryCuda::~TileBoundaryCuda() = default;

double TileBoundaryCuda::build(const double* values, std::uint64_t tile_count, const WeightParams& params,
                               Connectivity connectivity, PathLength* out, bool out_on_device, bool* overflow) {
  if (tile_count == 0) return 0.0;
  if (tile_count > max_tiles_) throw Error("TileBoundaryCuda::build: more tiles than the buffers hold");
  State& s = *state_;
  const std::uint32_t t = t_, leaf = leaf_;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  cudaStream_t stream = s.stream.get();
  cuda::CudaEvent start, stop;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(s.values.get(), values, tile_count * cells * sizeof(double), cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.overflow.get(), 0, sizeof(int), stream));
  TERRAZO_CUDA_CHECK(cudaEventRecord(start.get(), stream));
  int current = 0;
  cuda::launch_leaf_boundary(s.values.get(), tile_count, t, leaf, params, connectivity, s.work.get(),
                             s.levels[current].get(), s.overflow.get(), stream);
  std::vector<std::uint32_t> order;
  for (std::uint32_t side = leaf; side < t; side *= 2) {
    order.resize(merge_union_size(side));
    merge_union_order(side, order.data());
    // The order is read by the launch below before the next level's copy (same stream, synchronous copy).
    TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream));
    TERRAZO_CUDA_CHECK(cudaMemcpy(s.order.get(), order.data(), order.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    cuda::launch_boundary_merge(s.values.get(), tile_count, t, side, params, connectivity, s.order.get(),
                                s.levels[current].get(), s.work.get(), s.levels[current ^ 1].get(), s.overflow.get(), stream);
    current ^= 1;
  }
  TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
  const std::uint64_t top = static_cast<std::uint64_t>(ring_size(t)) * ring_size(t);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(out, s.levels[current].get(), tile_count * top * sizeof(PathLength),
                                     out_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost, stream));
  int flag = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&flag, s.overflow.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (flag) *overflow = true;
  float ms = 0;
  TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

double tile_boundary_matrix_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t leaf,
                                 const WeightParams& params, Connectivity connectivity, PathLength* out,
                                 bool* overflow) {
  if (tile_count == 0) return 0.0;
  return TileBoundaryCuda(t, leaf, tile_count).build(values, tile_count, params, connectivity, out, false, overflow);
}

double tile_boundary_matrix_cuda_to_device(const double* values, std::uint64_t tile_count, std::uint32_t t,
                                           std::uint32_t leaf, const WeightParams& params, Connectivity connectivity,
                                           PathLength* d_out, bool* overflow) {
  if (tile_count == 0) return 0.0;
  return TileBoundaryCuda(t, leaf, tile_count).build(values, tile_count, params, connectivity, d_out, true, overflow);
}

}  // namespace terrazo
