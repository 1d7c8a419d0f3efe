// kernels/index/tile_boundary_matrix.cu: the index build of a batch of tiles on the GPU: the leaves of
// all tiles (blocked_floyd_warshall.cu), then the merge levels, all merges of a level in each launch
// (boundary_merge.cu), device buffers sized from the batch. Contract: tile_boundary_matrix.h.
#include <algorithm>
#include <string>
#include <vector>

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

double tile_boundary_matrix_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t leaf,
                                 const WeightParams& params, Connectivity connectivity, PathLength* out,
                                 bool* overflow) {
  if (tile_count == 0) return 0.0;
  const BatchSizes sizes = batch_sizes(t, leaf);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  cuda::CudaStream stream;
  cuda::CudaEvent start, stop;
  cuda::DeviceBuffer<double> d_values(tile_count * cells);
  cuda::DeviceBuffer<PathLength> d_levels[2] = {cuda::DeviceBuffer<PathLength>(tile_count * sizes.level),
                                                cuda::DeviceBuffer<PathLength>(tile_count * sizes.level)};
  cuda::DeviceBuffer<PathLength> d_work(tile_count * sizes.work);
  cuda::DeviceBuffer<int> d_overflow(1);
  cuda::DeviceBuffer<std::uint32_t> d_order(merge_union_size(t / 2));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(d_values.get(), values, d_values.bytes(), cudaMemcpyHostToDevice, stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(d_overflow.get(), 0, sizeof(int), stream.get()));
  TERRAZO_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
  int current = 0;
  cuda::launch_leaf_boundary(d_values.get(), tile_count, t, leaf, params, connectivity, d_work.get(),
                             d_levels[current].get(), d_overflow.get(), stream.get());
  std::vector<std::uint32_t> order;
  for (std::uint32_t s = leaf; s < t; s *= 2) {
    order.resize(merge_union_size(s));
    merge_union_order(s, order.data());
    // The order is read by the launch below before the next level's copy (same stream, synchronous copy).
    TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_order.get(), order.data(), order.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    cuda::launch_boundary_merge(d_values.get(), tile_count, t, s, params, connectivity, d_order.get(),
                                d_levels[current].get(), d_work.get(), d_levels[current ^ 1].get(), d_overflow.get(),
                                stream.get());
    current ^= 1;
  }
  TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
  const std::uint64_t top = static_cast<std::uint64_t>(ring_size(t)) * ring_size(t);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(out, d_levels[current].get(), tile_count * top * sizeof(PathLength),
                                     cudaMemcpyDeviceToHost, stream.get()));
  int flag = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&flag, d_overflow.get(), sizeof(int), cudaMemcpyDeviceToHost, stream.get()));
  TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  if (flag) *overflow = true;
  float ms = 0;
  TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace terrazo
