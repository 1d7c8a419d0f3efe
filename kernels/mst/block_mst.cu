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

static __global__ void __launch_bounds__(1024)
    solve_block_mst(const double* __restrict__ d_values, std::uint64_t first_tile, std::uint32_t t,
                    WeightParams params, Connectivity connectivity, std::uint8_t* __restrict__ d_forest_bits,
                    int* __restrict__ d_overflow, unsigned char* __restrict__ d_scratch,
                    std::uint64_t scratch_stride, bool scratch_in_shared) {
  extern __shared__ unsigned long long s_dynamic[];
  __shared__ int s_found;
  const std::uint64_t tile = first_tile + blockIdx.x;
  const std::uint32_t cells = t * t;
  const double* values = d_values + tile * cells;
  std::uint8_t* forest = d_forest_bits + tile * cells;
  unsigned char* base = scratch_in_shared ? reinterpret_cast<unsigned char*>(s_dynamic)
                                          : d_scratch + (tile - first_tile) * scratch_stride;
  unsigned long long* best = reinterpret_cast<unsigned long long*>(base);
  std::uint32_t* weight = reinterpret_cast<std::uint32_t*>(base + 8ull * cells);
  std::uint32_t* comp = weight + 4ull * cells;
  std::uint32_t* parent = comp + cells;
  std::uint8_t* settled = reinterpret_cast<std::uint8_t*>(parent + cells);
  const int ti = static_cast<int>(t);

  // Initialization: weights of the owned edges, singleton components, empty forest.
  bool overflowed = false;
  for (std::uint32_t l = threadIdx.x; l < cells; l += blockDim.x) {
    const int x = static_cast<int>(l % t), y = static_cast<int>(l / t);
    const double a = values[l];
    for (int dir = 0; dir < 4; ++dir) {
      Weight w = kNoEdge;
      const int nx = x + step_dx(dir), ny = y + step_dy(dir);
      if (a == a && direction_used(dir, connectivity) && in_tile(nx, ny, ti)) {
        w = edge_weight(params, a, values[ny * ti + nx], is_diagonal(dir), &overflowed);
      }
      weight[dir * cells + l] = w;
    }
    comp[l] = l;
    parent[l] = l;
    best[l] = kNoKey;
    settled[l] = (a == a) ? 0 : 1;
    forest[l] = 0;
  }
  if (overflowed) atomicExch(d_overflow, 1);
  if (threadIdx.x == 0) s_found = 0;
  __syncthreads();
  if (cells < 4) return;  // t == 1: no edges (and forest words below need 4 cells)
  unsigned int* forest_words = reinterpret_cast<unsigned int*>(forest);

  for (;;) {
    // (A) minimum outgoing edge per component.
    bool found = false;
    for (std::uint32_t l = threadIdx.x; l < cells; l += blockDim.x) {
      if (settled[l]) continue;
      const std::uint32_t c = comp[l];
      const int x = static_cast<int>(l % t), y = static_cast<int>(l / t);
      unsigned long long key = kNoKey;
      for (int dir = 0; dir < 8; ++dir) {
        if (!direction_used(dir, connectivity)) continue;
        const int nx = x + step_dx(dir), ny = y + step_dy(dir);
        if (!in_tile(nx, ny, ti)) continue;
        const std::uint32_t n = static_cast<std::uint32_t>(ny * ti + nx);
        const Weight w = dir < 4 ? weight[dir * cells + l] : weight[(dir - 4) * cells + n];
        if (w == kNoEdge || settled[n] || comp[n] == c) continue;
        const std::uint32_t id = dir < 4 ? tile_edge_id(l, dir) : tile_edge_id(n, dir - 4);
        key = min(key, static_cast<unsigned long long>(tile_edge_key(w, id)));
      }
      if (key == kNoKey) {
        settled[l] = 1;
      } else {
        atomicMin(&best[c], key);
        found = true;
      }
    }
    if (found) s_found = 1;
    __syncthreads();
    if (!s_found) break;

    // (B) hook every root with a candidate; mark its edge.
    for (std::uint32_t r = threadIdx.x; r < cells; r += blockDim.x) {
      const unsigned long long key = best[r];
      if (key == kNoKey) continue;
      const std::uint32_t id = static_cast<std::uint32_t>(key);
      const std::uint32_t u = tile_edge_owner(id);
      const int dir = tile_edge_direction(id);
      const std::uint32_t v = u + static_cast<std::uint32_t>(step_dy(dir) * ti + step_dx(dir));
      const std::uint32_t cu = comp[u], cv = comp[v];
      const std::uint32_t other = cu == r ? cv : cu;
      const bool mutual = best[other] == key;
      parent[r] = (mutual && r < other) ? r : other;
      atomicOr(&forest_words[u >> 2], 1u << ((u & 3u) * 8u + static_cast<unsigned>(dir)));
    }
    __syncthreads();

    // (C) pointer jumping to the final roots; clear the candidates.
    if (threadIdx.x == 0) s_found = 0;  // everyone read it before (B)
    volatile std::uint32_t* vparent = parent;
    for (std::uint32_t r = threadIdx.x; r < cells; r += blockDim.x) {
      if (best[r] == kNoKey) continue;
      for (;;) {
        const std::uint32_t p = vparent[r];
        const std::uint32_t pp = vparent[p];
        if (p == pp) break;
        vparent[r] = pp;
      }
      best[r] = kNoKey;
    }
    __syncthreads();

    // (D) relabel the unsettled cells.
    for (std::uint32_t l = threadIdx.x; l < cells; l += blockDim.x) {
      if (!settled[l]) comp[l] = parent[comp[l]];
    }
    __syncthreads();
  }
}

unsigned threads_for_cells(std::uint64_t cells) {
  const std::uint64_t rounded = (cells + 31) / 32 * 32;
  return static_cast<unsigned>(std::min<std::uint64_t>(1024, std::max<std::uint64_t>(32, rounded)));
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
