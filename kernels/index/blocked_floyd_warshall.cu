// kernels/index/blocked_floyd_warshall.cu: the leaves of the index build on the GPU: adjacency,
// blocked Floyd-Warshall in shared memory (three phases per diagonal block, [PandeySharma]),
// ring extraction. Contract: blocked_floyd_warshall.h; launch: index_launch.cuh.
#include <algorithm>

#include "kernels/common/block_solvers.cuh"
#include "kernels/common/cuda_support.cuh"
#include "kernels/common/tile_geometry.h"
#include "kernels/index/blocked_floyd_warshall.h"
#include "kernels/index/index_launch.cuh"

namespace terrazo::cuda {
namespace {

constexpr int kB = static_cast<int>(kFloydBlock);

__device__ __forceinline__ PathLength add_paths(PathLength a, PathLength b) { return min_plus_add(a, b); }

// One thread block per leaf; thread u fills row u of the leaf's n x n matrix.
static __global__ void build_leaf_adjacency(const double* __restrict__ d_values, std::uint32_t t, std::uint32_t leaf,
                                            WeightParams params, Connectivity connectivity,
                                            PathLength* __restrict__ d_work, int* __restrict__ d_overflow) {
  const std::uint32_t per_row = t / leaf;
  const std::uint64_t leaf_index = blockIdx.x;
  const std::uint64_t tile = leaf_index / (static_cast<std::uint64_t>(per_row) * per_row);
  const std::uint32_t in_tile = static_cast<std::uint32_t>(leaf_index % (static_cast<std::uint64_t>(per_row) * per_row));
  const std::uint32_t ox = (in_tile % per_row) * leaf, oy = (in_tile / per_row) * leaf;
  const double* values = d_values + tile * t * t;
  const std::uint32_t n = leaf * leaf;
  PathLength* d = d_work + leaf_index * n * n;
  bool overflow = false;
  for (std::uint32_t u = threadIdx.x; u < n; u += blockDim.x) {
    PathLength* row = d + static_cast<std::uint64_t>(u) * n;
    for (std::uint32_t v = 0; v < n; ++v) row[v] = kUnreached;
    const std::uint32_t x = u % leaf, y = u / leaf;
    const double a = values[static_cast<std::uint64_t>(oy + y) * t + ox + x];
    if (a != a) continue;
    row[u] = 0;
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const int nx = static_cast<int>(x) + step_dx(dir), ny = static_cast<int>(y) + step_dy(dir);
      if (nx < 0 || ny < 0 || nx >= static_cast<int>(leaf) || ny >= static_cast<int>(leaf)) continue;
      const double b = values[static_cast<std::uint64_t>(oy + ny) * t + ox + nx];
      const Weight w = step_weight(params, a, b, dir, 0, &overflow);  // uniform steps (cells or map)
      if (w == kNoEdge) continue;
      row[static_cast<std::uint32_t>(ny) * leaf + static_cast<std::uint32_t>(nx)] = w;
    }
  }
  if (overflow) atomicExch(d_overflow, 1);
}

// Phase 1: close the diagonal block (kb, kb) of every leaf in shared memory. Row and column k do not
// change at step k (d[k][k] >= 0), and a thread writes only when it improves, so no entry is written
// while another thread reads it.
static __global__ void floyd_diagonal(PathLength* __restrict__ d_work, std::uint32_t n, std::uint32_t kb) {
  __shared__ PathLength block[kB][kB];
  const int i = threadIdx.y, j = threadIdx.x;
  PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * n * n;
  const std::uint64_t at = static_cast<std::uint64_t>(kb * kB + i) * n + kb * kB + j;
  block[i][j] = d[at];
  __syncthreads();
  for (int k = 0; k < kB; ++k) {
    const PathLength via = add_paths(block[i][k], block[k][j]);
    if (via < block[i][j]) block[i][j] = via;
    __syncthreads();
  }
  d[at] = block[i][j];
}

// Phase 2: the blocks of row kb (blockIdx.z 0) and column kb (blockIdx.z 1) through the closed diagonal block.
static __global__ void floyd_row_column(PathLength* __restrict__ d_work, std::uint32_t n, std::uint32_t kb) {
  __shared__ PathLength diagonal[kB][kB];
  __shared__ PathLength block[kB][kB];
  const int i = threadIdx.y, j = threadIdx.x;
  const std::uint32_t other = blockIdx.y < kb ? blockIdx.y : blockIdx.y + 1;
  const bool row = blockIdx.z == 0;
  PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * n * n;
  diagonal[i][j] = d[static_cast<std::uint64_t>(kb * kB + i) * n + kb * kB + j];
  const std::uint64_t at = row ? static_cast<std::uint64_t>(kb * kB + i) * n + other * kB + j
                               : static_cast<std::uint64_t>(other * kB + i) * n + kb * kB + j;
  block[i][j] = d[at];
  __syncthreads();
  for (int k = 0; k < kB; ++k) {
    const PathLength via = row ? add_paths(diagonal[i][k], block[k][j]) : add_paths(block[i][k], diagonal[k][j]);
    if (via < block[i][j]) block[i][j] = via;
    __syncthreads();
  }
  d[at] = block[i][j];
}

// Phase 3: every block (ib, jb) off row and column kb, from (ib, kb) and (kb, jb); one register per thread.
static __global__ void floyd_rest(PathLength* __restrict__ d_work, std::uint32_t n, std::uint32_t kb, std::uint32_t blocks) {
  __shared__ PathLength column[kB][kB];
  __shared__ PathLength row[kB][kB];
  const int i = threadIdx.y, j = threadIdx.x;
  const std::uint32_t rest = blocks - 1;
  std::uint32_t ib = blockIdx.y / rest, jb = blockIdx.y % rest;
  ib += ib >= kb ? 1 : 0;
  jb += jb >= kb ? 1 : 0;
  PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * n * n;
  column[i][j] = d[static_cast<std::uint64_t>(ib * kB + i) * n + kb * kB + j];
  row[i][j] = d[static_cast<std::uint64_t>(kb * kB + i) * n + jb * kB + j];
  const std::uint64_t at = static_cast<std::uint64_t>(ib * kB + i) * n + jb * kB + j;
  PathLength value = d[at];
  __syncthreads();
  for (int k = 0; k < kB; ++k) {
    const PathLength via = add_paths(column[i][k], row[k][j]);
    if (via < value) value = via;
  }
  d[at] = value;
}

// The leaf's ring-to-ring entries into its slot of the level.
static __global__ void extract_leaf_ring(const PathLength* __restrict__ d_work, std::uint32_t leaf,
                                         PathLength* __restrict__ d_out) {
  const std::uint32_t n = leaf * leaf, b = ring_size(leaf);
  const PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * n * n;
  PathLength* out = d_out + static_cast<std::uint64_t>(blockIdx.x) * b * b;
  for (std::uint32_t e = threadIdx.x; e < b * b; e += blockDim.x) {
    std::uint32_t px, py, qx, qy;
    ring_cell_of(leaf, e / b, &px, &py);
    ring_cell_of(leaf, e % b, &qx, &qy);
    out[e] = d[static_cast<std::uint64_t>(py * leaf + px) * n + qy * leaf + qx];
  }
}

}  // namespace

void launch_leaf_boundary(const double* d_values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t leaf,
                          const WeightParams& params, Connectivity connectivity, PathLength* d_leaf_work,
                          PathLength* d_out, int* d_overflow, cudaStream_t stream) {
  const std::uint64_t leaves = tile_count * (t / leaf) * (t / leaf);
  if (leaves == 0) return;
  if (leaves > 0x7FFFFFFFull) throw Error("index build: too many leaves in one batch");
  const unsigned grid = static_cast<unsigned>(leaves);
  const std::uint32_t n = leaf * leaf;
  build_leaf_adjacency<<<grid, 256, 0, stream>>>(d_values, t, leaf, params, connectivity, d_leaf_work, d_overflow);
  TERRAZO_CUDA_CHECK_LAUNCH();
  const std::uint32_t blocks = n / kFloydBlock;
  const dim3 threads(kB, kB);
  for (std::uint32_t kb = 0; kb < blocks; ++kb) {
    floyd_diagonal<<<grid, threads, 0, stream>>>(d_leaf_work, n, kb);
    TERRAZO_CUDA_CHECK_LAUNCH();
    if (blocks == 1) continue;
    floyd_row_column<<<dim3(grid, blocks - 1, 2), threads, 0, stream>>>(d_leaf_work, n, kb);
    TERRAZO_CUDA_CHECK_LAUNCH();
    floyd_rest<<<dim3(grid, (blocks - 1) * (blocks - 1), 1), threads, 0, stream>>>(d_leaf_work, n, kb, blocks);
    TERRAZO_CUDA_CHECK_LAUNCH();
  }
  extract_leaf_ring<<<grid, 256, 0, stream>>>(d_leaf_work, leaf, d_out);
  TERRAZO_CUDA_CHECK_LAUNCH();
}

}  // namespace terrazo::cuda
