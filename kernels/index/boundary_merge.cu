// kernels/index/boundary_merge.cu: one merge level of the index build on the GPU: one thread block
// per parent block; the union of the children's rings in global scratch, then the elimination of the
// vertices that leave (one pivot per step, a barrier between steps). Contract: boundary_merge.h;
// launch: index_launch.cuh.
#include "kernels/common/block_solvers.cuh"
#include "kernels/common/cuda_support.cuh"
#include "kernels/common/tile_geometry.h"
#include "kernels/index/boundary_merge.h"
#include "kernels/index/index_launch.cuh"

namespace terrazo::cuda {
namespace {

constexpr unsigned kMergeThreads = 512;

// Steps of one merge, each for all threads of the block.
__device__ void fill_union(PathLength* d, std::uint64_t entries) {
  for (std::uint64_t e = threadIdx.x; e < entries; e += blockDim.x) d[e] = kUnreached;
}

// Edges between cells of different children; each (cell, direction) is one thread's, so each entry is
// written once.
__device__ void add_cross_edges(const double* __restrict__ values, std::uint32_t t, std::uint32_t s,
                                const WeightParams& params, Connectivity connectivity,
                                const std::uint32_t* __restrict__ d_order, std::uint32_t u, PathLength* d,
                                bool* overflow) {
  const std::uint32_t b = ring_size(s);
  for (std::uint32_t e = threadIdx.x; e < 4 * b; e += blockDim.x) {
    const std::uint32_t c = e / b, p = e % b;
    std::uint32_t x, y;
    ring_cell_of(s, p, &x, &y);
    const std::uint32_t gx = (c & 1u) * s + x, gy = (c >> 1) * s + y;
    const double a = values[static_cast<std::uint64_t>(gy) * t + gx];
    if (a != a) continue;
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const int nx = static_cast<int>(gx) + step_dx(dir), ny = static_cast<int>(gy) + step_dy(dir);
      if (nx < 0 || ny < 0 || nx >= static_cast<int>(2 * s) || ny >= static_cast<int>(2 * s)) continue;
      const std::uint32_t c2 = (static_cast<std::uint32_t>(nx) >= s ? 1u : 0u) + (static_cast<std::uint32_t>(ny) >= s ? 2u : 0u);
      if (c2 == c) continue;
      const Weight w = step_weight(params, a, values[static_cast<std::uint64_t>(ny) * t + nx], dir, 0, overflow);
      if (w == kNoEdge) continue;
      const std::int32_t q = ring_position(s, static_cast<std::uint32_t>(nx) - (c2 & 1u) * s,
                                           static_cast<std::uint32_t>(ny) - (c2 >> 1) * s);
      d[static_cast<std::uint64_t>(d_order[c * b + p]) * u + d_order[c2 * b + static_cast<std::uint32_t>(q)]] = w;
    }
  }
}

// Pivots u-1 down to keep: entries (i, j), i, j < k, through k. Row and column k are not written at step k.
__device__ void eliminate_pivots(PathLength* d, std::uint32_t u, std::uint32_t keep) {
  for (std::uint32_t k = u; k-- > keep;) {
    const std::uint64_t entries = static_cast<std::uint64_t>(k) * k;
    for (std::uint64_t e = threadIdx.x; e < entries; e += blockDim.x) {
      const std::uint32_t i = static_cast<std::uint32_t>(e / k), j = static_cast<std::uint32_t>(e % k);
      const PathLength via = min_plus_add(d[static_cast<std::uint64_t>(i) * u + k], d[static_cast<std::uint64_t>(k) * u + j]);
      PathLength& entry = d[static_cast<std::uint64_t>(i) * u + j];
      if (via < entry) entry = via;
    }
    __syncthreads();
  }
}

// Floyd-Warshall over the first pb vertices (the parent's ring), in place: at step k row and column k
// do not change (d[k][k] >= 0) and a thread writes only an improvement, so no entry read at step k is
// written at step k.
__device__ void close_parent_ring(PathLength* d, std::uint32_t u, std::uint32_t pb) {
  const std::uint64_t entries = static_cast<std::uint64_t>(pb) * pb;
  for (std::uint32_t k = 0; k < pb; ++k) {
    for (std::uint64_t e = threadIdx.x; e < entries; e += blockDim.x) {
      const std::uint32_t i = static_cast<std::uint32_t>(e / pb), j = static_cast<std::uint32_t>(e % pb);
      const PathLength via = min_plus_add(d[static_cast<std::uint64_t>(i) * u + k], d[static_cast<std::uint64_t>(k) * u + j]);
      PathLength& entry = d[static_cast<std::uint64_t>(i) * u + j];
      if (via < entry) entry = via;
    }
    __syncthreads();
  }
}

static __global__ void merge_children(const double* __restrict__ d_values, std::uint32_t t, std::uint32_t s,
                                      WeightParams params, Connectivity connectivity,
                                      const std::uint32_t* __restrict__ d_order, const PathLength* __restrict__ d_children,
                                      PathLength* __restrict__ d_work, PathLength* __restrict__ d_parents,
                                      int* __restrict__ d_overflow) {
  const std::uint32_t per_row = t / (2 * s);  // parents per tile row
  const std::uint64_t merge = blockIdx.x;
  const std::uint64_t tile = merge / (static_cast<std::uint64_t>(per_row) * per_row);
  const std::uint32_t in_tile = static_cast<std::uint32_t>(merge % (static_cast<std::uint64_t>(per_row) * per_row));
  const std::uint32_t px = in_tile % per_row, py = in_tile / per_row;
  const std::uint32_t b = ring_size(s), pb = ring_size(2 * s), u = 4 * b;
  const std::uint64_t b2 = static_cast<std::uint64_t>(b) * b;
  const double* values = d_values + tile * t * t + static_cast<std::uint64_t>(py) * 2 * s * t + px * 2 * s;
  PathLength* d = d_work + merge * u * u;
  fill_union(d, static_cast<std::uint64_t>(u) * u);
  __syncthreads();
  // The children (2px + c&1, 2py + c>>1) of the level below, row-major 2 per_row per row, copied one by one.
  const std::uint32_t child_row = 2 * per_row;
  const std::uint64_t tile_children = tile * child_row * child_row;
  for (std::uint32_t c = 0; c < 4; ++c) {
    const std::uint64_t child = tile_children + static_cast<std::uint64_t>(2 * py + (c >> 1)) * child_row + 2 * px + (c & 1u);
    const PathLength* m = d_children + child * b2;
    for (std::uint64_t e = threadIdx.x; e < b2; e += blockDim.x) {
      const std::uint32_t p = static_cast<std::uint32_t>(e / b), q = static_cast<std::uint32_t>(e % b);
      d[static_cast<std::uint64_t>(d_order[c * b + p]) * u + d_order[c * b + q]] = m[e];
    }
  }
  bool overflow = false;
  add_cross_edges(values, t, s, params, connectivity, d_order, u, d, &overflow);
  if (overflow) atomicExch(d_overflow, 1);
  __syncthreads();
  eliminate_pivots(d, u, pb);
  close_parent_ring(d, u, pb);
  PathLength* parent = d_parents + merge * pb * pb;
  for (std::uint64_t e = threadIdx.x; e < static_cast<std::uint64_t>(pb) * pb; e += blockDim.x)
    parent[e] = d[(e / pb) * u + e % pb];
}

}  // namespace

void launch_boundary_merge(const double* d_values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t s,
                           const WeightParams& params, Connectivity connectivity, const std::uint32_t* d_order,
                           const PathLength* d_children, PathLength* d_work, PathLength* d_parents, int* d_overflow,
                           cudaStream_t stream) {
  const std::uint64_t merges = tile_count * (t / (2 * s)) * (t / (2 * s));
  if (merges == 0) return;
  if (merges > 0x7FFFFFFFull) throw Error("index build: too many merges in one batch");
  merge_children<<<static_cast<unsigned>(merges), kMergeThreads, 0, stream>>>(d_values, t, s, params, connectivity, d_order,
                                                                             d_children, d_work, d_parents, d_overflow);
  TERRAZO_CUDA_CHECK_LAUNCH();
}

}  // namespace terrazo::cuda
