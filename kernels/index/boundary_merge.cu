// kernels/index/boundary_merge.cu: one merge level of the index build on the GPU, all merges of the
// batch in each launch: the union of the children's rings in global scratch (a thread block per merge),
// then the blocked elimination of boundary_merge.h: per block K of 32 pivots, one launch closes D[K][K]
// (a thread block per merge, in shared memory), one computes the panels through it (a thread block per
// merge and 32 rows or columns), one the trailing min-plus product D[R][R] = min(D[R][R], D[R][K] (x)
// D[K][R]) (a thread block per merge and 64 x 64 output tile, the 64 x 32 and 32 x 64 panels in shared
// memory, 4 x 4 outputs in each thread's registers). The same three launches run the blocked
// Floyd-Warshall rounds that close P ([PandeySharma]). Contract: boundary_merge.h; launch:
// index_launch.cuh.
#include <algorithm>

#include "kernels/common/block_solvers.cuh"
#include "kernels/common/cuda_support.cuh"
#include "kernels/common/tile_geometry.h"
#include "kernels/index/boundary_merge.h"
#include "kernels/index/index_launch.cuh"

namespace terrazo::cuda {
namespace {

constexpr unsigned kMergeThreads = 512;
constexpr std::uint32_t kPivots = 32;       // pivots per block
constexpr std::uint32_t kOutTile = 64;      // side of a trailing update's output tile
constexpr std::uint32_t kTileThreads = 16;  // 16 x 16 threads per output tile, 4 x 4 outputs each

// Inside the kernels kUnreached is held as kFar: finite path lengths stay below 2^56 (boundary_ring.h),
// so a sum of two values <= kFar never wraps, and every sum through a kFar is >= kFar. Plain adds and
// mins then give min_plus_add's results; values >= kFar go back as kUnreached.
constexpr PathLength kFar = PathLength{1} << 62;
__device__ __forceinline__ PathLength to_far(PathLength v) { return v < kFar ? v : kFar; }
__device__ __forceinline__ PathLength from_far(PathLength v) { return v < kFar ? v : kUnreached; }
__device__ __forceinline__ PathLength min_path(PathLength a, PathLength b) { return b < a ? b : a; }

// The vertices [0, extent) other than the pivots [k0, k0 + w): the o-th of them.
__device__ __forceinline__ std::uint32_t other_vertex(std::uint32_t o, std::uint32_t k0, std::uint32_t w) {
  return o < k0 ? o : o + w;
}

// Steps of the union's assembly, each for all threads of the block.
__device__ void fill_union(PathLength* d, std::uint32_t entries) {
  for (std::uint32_t e = threadIdx.x; e < entries; e += blockDim.x) d[e] = kUnreached;
}

// Edges between cells of different children, a ring cell of a child per thread.
__device__ void add_cross_edges(const double* __restrict__ values, std::uint32_t t, std::uint32_t s,
                                const WeightParams& params, Connectivity connectivity,
                                const std::uint32_t* __restrict__ d_order, std::uint32_t u, PathLength* d,
                                bool* overflow) {
  const std::uint32_t b = ring_size(s);
  for (std::uint32_t e = threadIdx.x; e < 4 * b; e += blockDim.x)
    add_cross_child_edges(values, t, s, params, connectivity, d_order, u, e / b, e % b, d, overflow);
}

// The union matrix of every merge: kUnreached, the children's matrices, the edges between children.
static __global__ void assemble_union(const double* __restrict__ d_values, std::uint32_t t, std::uint32_t s,
                                      WeightParams params, Connectivity connectivity,
                                      const std::uint32_t* __restrict__ d_order, const PathLength* __restrict__ d_children,
                                      PathLength* __restrict__ d_work, int* __restrict__ d_overflow) {
  const std::uint32_t per_row = t / (2 * s);  // parents per tile row
  const std::uint64_t merge = blockIdx.x;
  const std::uint64_t tile = merge / (static_cast<std::uint64_t>(per_row) * per_row);
  const std::uint32_t in_tile = static_cast<std::uint32_t>(merge % (static_cast<std::uint64_t>(per_row) * per_row));
  const std::uint32_t px = in_tile % per_row, py = in_tile / per_row;
  const std::uint32_t b = ring_size(s), u = 4 * b;
  const std::uint32_t b2 = b * b;
  const double* values = d_values + tile * t * t + static_cast<std::uint64_t>(py) * 2 * s * t + px * 2 * s;
  PathLength* d = d_work + merge * u * u;
  fill_union(d, u * u);
  __syncthreads();
  // The children (2px + c&1, 2py + c>>1) of the level below, row-major 2 per_row per row, copied one by one.
  const std::uint32_t child_row = 2 * per_row;
  const std::uint64_t tile_children = tile * child_row * child_row;
  for (std::uint32_t c = 0; c < 4; ++c) {
    const std::uint64_t child = tile_children + static_cast<std::uint64_t>(2 * py + (c >> 1)) * child_row + 2 * px + (c & 1u);
    const PathLength* m = d_children + child * b2;
    for (std::uint32_t e = threadIdx.x; e < b2; e += blockDim.x) {
      const std::uint32_t p = e / b, q = e % b;
      d[d_order[c * b + p] * u + d_order[c * b + q]] = m[e];
    }
  }
  bool overflow = false;
  add_cross_edges(values, t, s, params, connectivity, d_order, u, d, &overflow);
  if (overflow) atomicExch(d_overflow, 1);
}

// Phase 1 of a pivot block: Floyd-Warshall inside D[K][K], K = [k0, k0 + w), w <= 32, in shared memory;
// a thread per entry (32 x 32 threads). Row and column k do not change at step k, and a thread writes
// only an improvement, so no entry read at step k is written at step k.
static __global__ void close_pivot_block(PathLength* __restrict__ d_work, std::uint32_t u, std::uint32_t k0,
                                         std::uint32_t w) {
  __shared__ PathLength block[kPivots][kPivots + 1];
  const std::uint32_t i = threadIdx.y, j = threadIdx.x;
  PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * u * u;
  const bool inside = i < w && j < w;
  block[i][j] = inside ? to_far(d[(k0 + i) * u + k0 + j]) : kFar;
  __syncthreads();
  for (std::uint32_t k = 0; k < w; ++k) {
    const PathLength via = block[i][k] + block[k][j];
    if (via < block[i][j]) block[i][j] = via;
    __syncthreads();
  }
  if (inside) d[(k0 + i) * u + k0 + j] = from_far(block[i][j]);
}

// Phase 2 through the closed D[K][K] (D*): blockIdx.z 0, the column panel: for 32 of the vertices
// [0, extent) off K (blockIdx.y), D[i][K] = min(D[i][K], D[i][K] (x) D*); blockIdx.z 1 (Floyd-Warshall
// rounds only), the row panel: for 32 of them, D[K][j] = min(D[K][j], D* (x) D[K][j]). A thread per
// entry; the two panels read and write disjoint entries.
static __global__ void pivot_panels(PathLength* __restrict__ d_work, std::uint32_t u, std::uint32_t k0,
                                    std::uint32_t w, std::uint32_t others) {
  __shared__ PathLength closed[kPivots][kPivots + 1];
  __shared__ PathLength panel[kPivots][kPivots + 1];
  const std::uint32_t ty = threadIdx.y, tx = threadIdx.x;
  PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * u * u;
  const std::uint32_t o = blockIdx.y * kPivots + (blockIdx.z == 0 ? ty : tx);
  const bool valid = o < others;
  const std::uint32_t v = valid ? other_vertex(o, k0, w) : 0;
  closed[ty][tx] = ty < w && tx < w ? to_far(d[(k0 + ty) * u + k0 + tx]) : kFar;
  // Column panel: panel[r][c] = D[v_r][k0 + c]; row panel: panel[r][c] = D[k0 + r][v_c].
  std::uint32_t at = 0;
  bool inside = false;
  if (blockIdx.z == 0) {
    inside = valid && tx < w;
    at = v * u + k0 + tx;
  } else {
    inside = valid && ty < w;
    at = (k0 + ty) * u + v;
  }
  panel[ty][tx] = inside ? to_far(d[at]) : kFar;
  __syncthreads();
  PathLength best = panel[ty][tx];
  if (blockIdx.z == 0) {
    for (std::uint32_t a = 0; a < w; ++a) best = min_path(best, panel[ty][a] + closed[a][tx]);
  } else {
    for (std::uint32_t a = 0; a < w; ++a) best = min_path(best, closed[ty][a] + panel[a][tx]);
  }
  if (inside && best < panel[ty][tx]) d[at] = from_far(best);
}

// Phase 3: D[i][j] = min(D[i][j], D[i][K] (x) D[K][j]) for i, j among the vertices [0, extent) off K
// (`others` of them), a 64 x 64 output tile per thread block (blockIdx.y = tile row * tiles + tile
// column), the two panels in shared memory, each thread 4 x 4 outputs (rows ty + 16 r, columns
// tx + 16 c) in registers. Entries off K only are written; the panels only are read across blocks.
static __global__ void pivot_trailing(PathLength* __restrict__ d_work, std::uint32_t u, std::uint32_t k0,
                                      std::uint32_t w, std::uint32_t others, std::uint32_t tiles) {
  __shared__ PathLength column[kOutTile][kPivots + 1];  // D[i][K] of the tile's rows
  __shared__ PathLength row[kPivots][kOutTile];         // D[K][j] of the tile's columns
  const std::uint32_t tile_row = blockIdx.y / tiles, tile_column = blockIdx.y - tile_row * tiles;
  const std::uint32_t o_row = tile_row * kOutTile, o_column = tile_column * kOutTile;
  PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * u * u;
  const std::uint32_t thread = threadIdx.y * kTileThreads + threadIdx.x;
  constexpr std::uint32_t kThreads = kTileThreads * kTileThreads;
  for (std::uint32_t e = thread; e < kOutTile * kPivots; e += kThreads) {
    const std::uint32_t r = e / kPivots, a = e % kPivots;  // constant powers of two: shifts
    const std::uint32_t o = o_row + r;
    column[r][a] = o < others && a < w ? to_far(d[other_vertex(o, k0, w) * u + k0 + a]) : kFar;
  }
  for (std::uint32_t e = thread; e < kOutTile * kPivots; e += kThreads) {
    const std::uint32_t a = e / kOutTile, c = e % kOutTile;
    const std::uint32_t o = o_column + c;
    row[a][c] = o < others && a < w ? to_far(d[(k0 + a) * u + other_vertex(o, k0, w)]) : kFar;
  }
  const std::uint32_t tx = threadIdx.x, ty = threadIdx.y;
  std::uint32_t rows[4], columns[4];
  bool row_ok[4], column_ok[4];
  for (int q = 0; q < 4; ++q) {
    const std::uint32_t orow = o_row + ty + kTileThreads * q, ocol = o_column + tx + kTileThreads * q;
    row_ok[q] = orow < others;
    column_ok[q] = ocol < others;
    rows[q] = row_ok[q] ? other_vertex(orow, k0, w) : 0;
    columns[q] = column_ok[q] ? other_vertex(ocol, k0, w) : 0;
  }
  PathLength old[4][4], best[4][4];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      old[r][c] = row_ok[r] && column_ok[c] ? to_far(d[rows[r] * u + columns[c]]) : kFar;
      best[r][c] = old[r][c];
    }
  __syncthreads();
  for (std::uint32_t a = 0; a < w; ++a) {
    PathLength x[4], y[4];
    for (int q = 0; q < 4; ++q) {
      x[q] = column[ty + kTileThreads * q][a];
      y[q] = row[a][tx + kTileThreads * q];
    }
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) best[r][c] = min_path(best[r][c], x[r] + y[c]);
  }
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c)
      if (row_ok[r] && column_ok[c] && best[r][c] < old[r][c]) d[rows[r] * u + columns[c]] = from_far(best[r][c]);
}

// The parent's ring block of each merge's matrix (the first pb rows and columns) into its level slot.
static __global__ void extract_parent(const PathLength* __restrict__ d_work, std::uint32_t u, std::uint32_t pb,
                                      PathLength* __restrict__ d_parents) {
  const PathLength* d = d_work + static_cast<std::uint64_t>(blockIdx.x) * u * u;
  PathLength* parent = d_parents + static_cast<std::uint64_t>(blockIdx.x) * pb * pb;
  for (std::uint32_t i = threadIdx.y; i < pb; i += blockDim.y)
    for (std::uint32_t j = threadIdx.x; j < pb; j += blockDim.x) parent[i * pb + j] = d[i * u + j];
}

// The three launches of one pivot block K = [k0, k0 + w) over the vertices [0, extent): elimination
// onto R = [0, k0) when extent = k0 (the column panel only), a Floyd-Warshall round when K lies
// inside [0, extent) (both panels).
void launch_pivot_block(PathLength* d_work, unsigned merges, std::uint32_t u, std::uint32_t k0, std::uint32_t w,
                        std::uint32_t extent, cudaStream_t stream) {
  close_pivot_block<<<merges, dim3(kPivots, kPivots), 0, stream>>>(d_work, u, k0, w);
  TERRAZO_CUDA_CHECK_LAUNCH();
  const bool floyd_round = k0 < extent;
  const std::uint32_t others = floyd_round ? extent - w : extent;
  if (others == 0) return;
  const std::uint32_t chunks = (others + kPivots - 1) / kPivots;
  pivot_panels<<<dim3(merges, chunks, floyd_round ? 2 : 1), dim3(kPivots, kPivots), 0, stream>>>(d_work, u, k0, w, others);
  TERRAZO_CUDA_CHECK_LAUNCH();
  const std::uint32_t tiles = (others + kOutTile - 1) / kOutTile;
  pivot_trailing<<<dim3(merges, tiles * tiles), dim3(kTileThreads, kTileThreads), 0, stream>>>(d_work, u, k0, w, others,
                                                                                               tiles);
  TERRAZO_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_boundary_merge(const double* d_values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t s,
                           const WeightParams& params, Connectivity connectivity, const std::uint32_t* d_order,
                           const PathLength* d_children, PathLength* d_work, PathLength* d_parents, int* d_overflow,
                           cudaStream_t stream) {
  const std::uint64_t merges = tile_count * (t / (2 * s)) * (t / (2 * s));
  if (merges == 0) return;
  if (merges > 0x7FFFFFFFull) throw Error("index build: too many merges in one batch");
  const unsigned grid = static_cast<unsigned>(merges);
  const std::uint32_t u = static_cast<std::uint32_t>(merge_union_size(s)), pb = ring_size(2 * s);
  assemble_union<<<grid, kMergeThreads, 0, stream>>>(d_values, t, s, params, connectivity, d_order, d_children, d_work,
                                                      d_overflow);
  TERRAZO_CUDA_CHECK_LAUNCH();
  // Eliminate S = [pb, u) in blocks of 32 pivots, last block first, each onto the vertices below it.
  for (std::uint32_t k1 = u; k1 > pb;) {
    const std::uint32_t k0 = k1 - std::min(kPivots, k1 - pb);
    launch_pivot_block(d_work, grid, u, k0, k1 - k0, k0, stream);
    k1 = k0;
  }
  // Close P = [0, pb): blocked Floyd-Warshall rounds.
  for (std::uint32_t k0 = 0; k0 < pb; k0 += kPivots) launch_pivot_block(d_work, grid, u, k0, std::min(kPivots, pb - k0), pb, stream);
  extract_parent<<<grid, dim3(32, 16), 0, stream>>>(d_work, u, pb, d_parents);
  TERRAZO_CUDA_CHECK_LAUNCH();
}

}  // namespace terrazo::cuda
