// kernels/mst/block_mst.cu: the CUDA block MST (contract: kernels/mst/block_mst.h), Boruvka per tile.
//
// Source: [Gerritsen2012, sec. 3.1], after [Harish2007]: every component picks
// its minimum outgoing edge with atomicMin on a packed key; the total order rules out cycles, so
// no cycle repair is needed. The thesis packed weight, index and direction into 32 bits (blocks of
// at most 512 x 512); here the key is kernels/common/tile_geometry.h's 64-bit tile_edge_key(weight, edge
// id), which is the (weight, min id, max id) order of docs/mst.md, so the forest equals Kruskal's
// (block_mst_cpu) bit for bit, for any t up to 32768.
//
// One thread block per tile; per tile the working arrays (33 bytes per cell) live in shared memory
// when they fit (t <= 64 on Hopper), else in global memory:
//   weight[d][l]  the owned edges E, SE, S, SW of cell l (kNoEdge: no edge), computed once
//   comp[l]       the root cell of l's component (kept current for unsettled cells only)
//   parent[r]     for roots: the root they hook onto this round (itself when they stay root)
//   best[r]       for roots: the minimum key of an edge leaving the component (atomicMin)
//   settled[l]    every neighbour of l is in l's component (or l is nodata); stays true
// Round (4 barriers): (A) each unsettled cell takes the minimum key over its edges into other
// components and atomicMins it into best[comp]; cells with none become settled. (B) each root with
// a candidate marks the edge in the forest and hooks onto the other component; of a mutual pair
// (both chose the same edge, the only possible cycle) the smaller root stays root. (C) pointer
// jumping makes every hooked root point to its final root. (D) unsettled cells relabel
// comp[l] = parent[comp[l]]. Settled cells are skipped in (A): a settled neighbour is always in
// the cell's own component. Rounds end when no cell finds a candidate: at most log2(t*t) + 1.
#include <algorithm>
#include <string>

#include "kernels/mst/block_mst.h"
#include "kernels/mst/block_mst_launch.cuh"
#include "kernels/common/cuda_device.h"

namespace terrazo {
namespace cuda {
namespace {

constexpr unsigned long long kNoKey = ~0ull;
constexpr std::uint64_t kMstBytesPerCell = 33;

__device__ __forceinline__ bool in_tile(int x, int y, int t) { return x >= 0 && y >= 0 && x < t && y < t; }

// One tile's working arrays (in shared memory or its slice of global scratch) and geometry.
struct MstTile {
  const double* values;
  std::uint8_t* forest;
  unsigned long long* best;  // per root: the smallest outgoing key (kNoKey: none)
  std::uint32_t* weight;     // 4 planes: the owned edges E, SE, S, SW
  std::uint32_t* comp;       // per cell: its component's root
  std::uint32_t* parent;     // per root: the root it hooks to
  std::uint8_t* settled;     // per cell: nodata, or no outgoing edge left
  std::uint32_t t, cells;
  Connectivity connectivity;
};

// Initialization: weights of the owned edges, singleton components, empty forest. Returns whether
// this thread met a weight overflow.
__device__ __forceinline__ bool init_mst_tile(const MstTile& m, const WeightParams& params) {
  bool overflowed = false;
  const int ti = static_cast<int>(m.t);
  for (std::uint32_t l = threadIdx.x; l < m.cells; l += blockDim.x) {
    const int x = static_cast<int>(l % m.t), y = static_cast<int>(l / m.t);
    const double a = m.values[l];
    for (int dir = 0; dir < 4; ++dir) {
      Weight w = kNoEdge;
      const int nx = x + step_dx(dir), ny = y + step_dy(dir);
      if (a == a && direction_used(dir, m.connectivity) && in_tile(nx, ny, ti)) {
        w = edge_weight(params, a, m.values[ny * ti + nx], is_diagonal(dir), &overflowed);
      }
      m.weight[dir * m.cells + l] = w;
    }
    m.comp[l] = l;
    m.parent[l] = l;
    m.best[l] = kNoKey;
    m.settled[l] = (a == a) ? 0 : 1;
    m.forest[l] = 0;
  }
  return overflowed;
}

// (A) The minimum outgoing edge key of every component into best[root]; a cell without an
// outgoing edge settles. Returns whether this thread found an edge.
__device__ __forceinline__ bool find_min_edges(const MstTile& m) {
  bool found = false;
  const int ti = static_cast<int>(m.t);
  for (std::uint32_t l = threadIdx.x; l < m.cells; l += blockDim.x) {
    if (m.settled[l]) continue;
    const std::uint32_t c = m.comp[l];
    const int x = static_cast<int>(l % m.t), y = static_cast<int>(l / m.t);
    unsigned long long key = kNoKey;
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, m.connectivity)) continue;
      const int nx = x + step_dx(dir), ny = y + step_dy(dir);
      if (!in_tile(nx, ny, ti)) continue;
      const std::uint32_t n = static_cast<std::uint32_t>(ny * ti + nx);
      const Weight w = dir < 4 ? m.weight[dir * m.cells + l] : m.weight[(dir - 4) * m.cells + n];
      if (w == kNoEdge || m.settled[n] || m.comp[n] == c) continue;
      const std::uint32_t id = dir < 4 ? tile_edge_id(l, dir) : tile_edge_id(n, dir - 4);
      key = min(key, static_cast<unsigned long long>(tile_edge_key(w, id)));
    }
    if (key == kNoKey) {
      m.settled[l] = 1;
    } else {
      atomicMin(&m.best[c], key);
      found = true;
    }
  }
  return found;
}

// (B) Hooks every root with a candidate to the other end's root (a mutual pair: the smaller root
// stays) and marks its edge in the forest bits.
__device__ __forceinline__ void hook_roots(const MstTile& m) {
  const int ti = static_cast<int>(m.t);
  unsigned int* forest_words = reinterpret_cast<unsigned int*>(m.forest);
  for (std::uint32_t r = threadIdx.x; r < m.cells; r += blockDim.x) {
    const unsigned long long key = m.best[r];
    if (key == kNoKey) continue;
    const std::uint32_t id = static_cast<std::uint32_t>(key);
    const std::uint32_t u = tile_edge_owner(id);
    const int dir = tile_edge_direction(id);
    const std::uint32_t v = u + static_cast<std::uint32_t>(step_dy(dir) * ti + step_dx(dir));
    const std::uint32_t cu = m.comp[u], cv = m.comp[v];
    const std::uint32_t other = cu == r ? cv : cu;
    const bool mutual = m.best[other] == key;
    m.parent[r] = (mutual && r < other) ? r : other;
    atomicOr(&forest_words[u >> 2], 1u << ((u & 3u) * 8u + static_cast<unsigned>(dir)));
  }
}

// (C) Pointer jumping of the hooked roots to their final roots; their candidates cleared.
__device__ __forceinline__ void jump_to_roots(const MstTile& m) {
  volatile std::uint32_t* vparent = m.parent;
  for (std::uint32_t r = threadIdx.x; r < m.cells; r += blockDim.x) {
    if (m.best[r] == kNoKey) continue;
    for (;;) {
      const std::uint32_t p = vparent[r];
      const std::uint32_t pp = vparent[p];
      if (p == pp) break;
      vparent[r] = pp;
    }
    m.best[r] = kNoKey;
  }
}

static __global__ void __launch_bounds__(1024)
    solve_block_mst(const double* __restrict__ d_values, std::uint64_t first_tile, std::uint32_t t,
                    WeightParams params, Connectivity connectivity, std::uint8_t* __restrict__ d_forest_bits,
                    int* __restrict__ d_overflow, unsigned char* __restrict__ d_scratch,
                    std::uint64_t scratch_stride, bool scratch_in_shared) {
  extern __shared__ unsigned long long s_dynamic[];
  __shared__ int s_found;
  const std::uint64_t tile = first_tile + blockIdx.x;
  const std::uint32_t cells = t * t;
  unsigned char* base = scratch_in_shared ? reinterpret_cast<unsigned char*>(s_dynamic)
                                          : d_scratch + (tile - first_tile) * scratch_stride;
  MstTile m;
  m.values = d_values + tile * cells;
  m.forest = d_forest_bits + tile * cells;
  m.best = reinterpret_cast<unsigned long long*>(base);
  m.weight = reinterpret_cast<std::uint32_t*>(base + 8ull * cells);
  m.comp = m.weight + 4ull * cells;
  m.parent = m.comp + cells;
  m.settled = reinterpret_cast<std::uint8_t*>(m.parent + cells);
  m.t = t;
  m.cells = cells;
  m.connectivity = connectivity;

  if (init_mst_tile(m, params)) atomicExch(d_overflow, 1);
  if (threadIdx.x == 0) s_found = 0;
  __syncthreads();
  if (cells < 4) return;  // t == 1: no edges (and forest words below need 4 cells)

  for (;;) {
    if (find_min_edges(m)) s_found = 1;
    __syncthreads();
    if (!s_found) break;
    hook_roots(m);
    __syncthreads();
    if (threadIdx.x == 0) s_found = 0;  // everyone read it before (B)
    jump_to_roots(m);
    __syncthreads();
    // (D) relabel the unsettled cells.
    for (std::uint32_t l = threadIdx.x; l < cells; l += blockDim.x) {
      if (!m.settled[l]) m.comp[l] = m.parent[m.comp[l]];
    }
    __syncthreads();
  }
}

}  // namespace

std::uint64_t block_mst_scratch_bytes_per_tile(std::uint32_t t) {
  const std::uint64_t bytes = kMstBytesPerCell * t * t;
  return (bytes + 255) / 256 * 256;
}

void launch_block_mst(const double* d_values, std::uint64_t tiles, std::uint32_t t, const WeightParams& params,
                      Connectivity connectivity, std::uint8_t* d_forest_bits, int* d_overflow, MstWorkspace& workspace,
                      cudaStream_t stream) {
  if (tiles == 0) return;
  if (t == 0 || t > 32768 || (t & (t - 1)) != 0) {
    throw Error("block MST: tile size " + std::to_string(t) + " is not a power of two in 1..32768");
  }
  const std::uint64_t per_tile = block_mst_scratch_bytes_per_tile(t);
  const std::size_t shared_bytes = place_tile_scratch(solve_block_mst, per_tile, tiles, workspace.shared_limit_bytes,
                                                      workspace.scratch, &workspace.last_placement);
  const bool in_shared = shared_bytes != 0;
  const unsigned threads = threads_for_cells(static_cast<std::uint64_t>(t) * t);
  launch_in_chunks(0, tiles, [&](std::uint64_t first, unsigned count) {
    solve_block_mst<<<count, threads, shared_bytes, stream>>>(d_values, first, t, params, connectivity, d_forest_bits,
                                                             d_overflow, workspace.scratch.get(), per_tile, in_shared);
  });
}

}  // namespace cuda

void block_mst_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, const WeightParams& params,
                    Connectivity connectivity, std::uint8_t* forest_bits, bool* overflow) {
  if (!cuda_device().available) throw Error("block_mst_cuda: " + cuda_device().reason);
  if (tile_count == 0) return;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  // Chunks of at most ~1 GiB of device memory (values, bits and scratch).
  const std::uint64_t per_tile = cells * 9 + cuda::block_mst_scratch_bytes_per_tile(t);
  const std::uint64_t chunk = std::max<std::uint64_t>(1, std::min<std::uint64_t>(tile_count, (1ull << 30) / per_tile));
  cuda::DeviceBuffer<double> d_values(chunk * cells);
  cuda::DeviceBuffer<std::uint8_t> d_bits(chunk * cells);
  cuda::DeviceBuffer<int> d_overflow(1);
  cuda::MstWorkspace workspace;
  TERRAZO_CUDA_CHECK(cudaMemset(d_overflow.get(), 0, sizeof(int)));
  for (std::uint64_t first = 0; first < tile_count; first += chunk) {
    const std::uint64_t count = std::min(chunk, tile_count - first);
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_values.get(), values + first * cells, count * cells * sizeof(double),
                                  cudaMemcpyHostToDevice));
    cuda::launch_block_mst(d_values.get(), count, t, params, connectivity, d_bits.get(), d_overflow.get(), workspace,
                           nullptr);
    TERRAZO_CUDA_CHECK(cudaMemcpy(forest_bits + first * cells, d_bits.get(), count * cells, cudaMemcpyDeviceToHost));
  }
  int flag = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpy(&flag, d_overflow.get(), sizeof(int), cudaMemcpyDeviceToHost));
  if (flag) *overflow = true;
}

}  // namespace terrazo
