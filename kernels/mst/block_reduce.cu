// kernels/mst/block_reduce.cu: the CUDA reduction of a tile's forest to its boundary summary
// (contract: kernels/mst/block_reduce.h; CPU twin: kernels/mst/block_reduce_cpu.cpp).
//
// Source: [Gerritsen2012, ch. 2, Observations 3-4]; the thesis did this step on the CPU.
// One thread block per tile, three steps separated by barriers:
//  1. Incidence: mask[l] = the set of directions (E, SE, S, SW, W, NW, N, NE) of l's forest edges,
//     one byte per cell (shared memory when the tile's t*t bytes fit, else global).
//  2. Dead ends, by asynchronous leaf peeling: every non-boundary cell with one edge starts a
//     walker. A walker takes all of its cell's remaining bits with one atomicAnd on the cell's
//     32-bit word (so a cell is peeled once, whoever reaches it), then clears the opposite bit at
//     the neighbour with a second atomicAnd; the walker whose atomicAnd took a non-boundary
//     neighbour from two edges to one continues with it. Each degree drop is seen by exactly one
//     atomic, so the result is the unique fixpoint of sequential peeling (block_reduce_cpu's).
//  3. Paths: kept vertices are those with >= 3 edges, or >= 1 edge on the tile's outer ring. From
//     every kept vertex, along each of its edges, a thread walks through the degree-2 vertices to
//     the next kept vertex, keeping the largest tile_edge_key; the walk from the smaller end emits
//     the summary edge (shared atomicAdd on the tile's count) into an unsorted scratch list.
//  4. Key order: keys are distinct, so edge i goes to position rank(i) = #{j : key_j < key_i}
//     (each thread counts over the tile's list; m <= 8t edges, typically a few per boundary cell).
// Cost O(t^2 + m^2) work per tile; the longest dead-end branch or path is walked by one thread.
#include <algorithm>
#include <string>

#include "kernels/mst/block_reduce.h"
#include "kernels/mst/block_mst_launch.cuh"
#include "kernels/common/cuda_device.h"

namespace terrazo {
namespace cuda {
namespace {

__device__ __forceinline__ bool on_ring(std::uint32_t l, std::uint32_t t) {
  const std::uint32_t x = l % t, y = l / t;
  return x == 0 || y == 0 || x == t - 1 || y == t - 1;
}

__device__ __forceinline__ std::uint32_t step(std::uint32_t l, int dir, std::uint32_t t) {
  return l + static_cast<std::uint32_t>(step_dy(dir) * static_cast<int>(t) + step_dx(dir));
}

__device__ __forceinline__ bool kept(std::uint32_t mask, std::uint32_t l, std::uint32_t t) {
  const int degree = __popc(mask);
  return degree >= 3 || (degree >= 1 && on_ring(l, t));
}

// The key of the forest edge from cell l in direction dir (0..7), as block_reduce_cpu computes it.
__device__ __forceinline__ std::uint64_t edge_key_at(const double* values, std::uint32_t l, int dir, std::uint32_t t,
                                                     const WeightParams& params) {
  const std::uint32_t n = step(l, dir, t);
  const std::uint32_t owner = dir < 4 ? l : n;
  const std::uint32_t other = dir < 4 ? n : l;
  const int owned = dir & 3;
  bool ignored = false;
  const Weight w = edge_weight(params, values[owner], values[other], is_diagonal(owned), &ignored);
  return tile_edge_key(w, tile_edge_id(owner, owned));
}

// Peels the dead-end branch that starts at leaf v (see step 2 above).
__device__ void peel_from(unsigned int* words, std::uint32_t v, std::uint32_t t) {
  for (;;) {
    const unsigned shift = (v & 3u) * 8u;
    const unsigned taken = (atomicAnd(&words[v >> 2], ~(0xffu << shift)) >> shift) & 0xffu;
    if (taken == 0) return;  // peeled already, or its partner took its last edge
    const int dir = __ffs(taken) - 1;
    const std::uint32_t w = step(v, dir, t);
    const int back = opposite(dir);
    const unsigned wshift = (w & 3u) * 8u;
    const unsigned before = (atomicAnd(&words[w >> 2], ~(1u << (wshift + back))) >> wshift) & 0xffu;
    if (!((before >> back) & 1u)) return;  // w let go of this edge itself
    if (__popc(before) != 2 || on_ring(w, t)) return;
    v = w;  // w just became a non-boundary leaf, and only this walker saw it happen
  }
}

// Step 1: masks[l] = the directions of l's forest edges (only edges between cells of the tile;
// bits 4..7 of the forest bits are not edges).
__device__ __forceinline__ void build_incidence_masks(const std::uint8_t* bits, std::uint8_t* masks, std::uint32_t t) {
  const std::uint32_t cells = t * t;
  const int ti = static_cast<int>(t);
  for (std::uint32_t l = threadIdx.x; l < cells; l += blockDim.x) {
    const int x = static_cast<int>(l % t), y = static_cast<int>(l / t);
    const unsigned own = bits[l] & 0x0fu;
    unsigned mask = 0;
    for (int dir = 0; dir < 8; ++dir) {
      const int nx = x + step_dx(dir), ny = y + step_dy(dir);
      if (nx < 0 || ny < 0 || nx >= ti || ny >= ti) continue;
      const unsigned present = dir < 4 ? (own >> dir) & 1u : (bits[ny * ti + nx] >> (dir - 4)) & 1u;
      mask |= present << dir;
    }
    masks[l] = static_cast<std::uint8_t>(mask);
  }
}

// Step 3 for one edge: from kept vertex v along direction dir through the degree-2 vertices to the
// next kept vertex *end, the largest key on the way in *key. Returns false on a broken path (a
// dead end or a branch among the non-kept vertices, or more steps than cells).
__device__ __forceinline__ bool walk_path(const double* values, const std::uint8_t* masks, std::uint32_t v, int dir,
                                          std::uint32_t t, const WeightParams& params, std::uint32_t* end,
                                          std::uint64_t* key) {
  const std::uint32_t cells = t * t;
  *key = edge_key_at(values, v, dir, t, params);
  std::uint32_t current = step(v, dir, t);
  int came_from = opposite(dir);
  std::uint32_t steps = 0;
  for (;;) {
    const std::uint32_t current_mask = masks[current];
    if (kept(current_mask, current, t)) break;
    const unsigned onward = current_mask & ~(1u << came_from);
    if (onward == 0 || __popc(onward) != 1 || ++steps > cells) return false;
    const int next_dir = __ffs(onward) - 1;
    *key = max(*key, edge_key_at(values, current, next_dir, t, params));
    came_from = opposite(next_dir);
    current = step(current, next_dir, t);
  }
  *end = current;
  return true;
}

// Step 4: the count edges of `unsorted` into `sorted` by key (distinct): edge i at rank(i).
__device__ __forceinline__ void order_by_key(const TileSummaryEdge* unsorted, std::uint32_t count,
                                             TileSummaryEdge* sorted) {
  for (std::uint32_t i = threadIdx.x; i < count; i += blockDim.x) {
    const TileSummaryEdge edge = unsorted[i];
    std::uint32_t rank = 0;
    for (std::uint32_t j = 0; j < count; ++j) rank += unsorted[j].key < edge.key ? 1u : 0u;
    sorted[rank] = edge;
  }
}

static __global__ void __launch_bounds__(1024)
    reduce_block_forest(const std::uint8_t* __restrict__ d_forest_bits, const double* __restrict__ d_values,
                        std::uint64_t first_tile, std::uint32_t t, WeightParams params,
                        TileSummaryEdge* __restrict__ d_summary, std::uint32_t* __restrict__ d_counts,
                        std::uint32_t capacity, int* __restrict__ d_error, unsigned char* __restrict__ d_scratch,
                        std::uint64_t scratch_stride, bool scratch_in_shared, TileSummaryEdge* __restrict__ d_unsorted) {
  extern __shared__ unsigned int s_words[];
  __shared__ std::uint32_t s_count;
  const std::uint64_t tile = first_tile + blockIdx.x;
  const std::uint32_t cells = t * t;
  const double* values = d_values + tile * cells;
  unsigned int* words = scratch_in_shared ? s_words
                                          : reinterpret_cast<unsigned int*>(d_scratch + (tile - first_tile) * scratch_stride);
  std::uint8_t* masks = reinterpret_cast<std::uint8_t*>(words);
  TileSummaryEdge* unsorted = d_unsorted + (tile - first_tile) * capacity;

  // 1. Incidence masks.
  build_incidence_masks(d_forest_bits + tile * cells, masks, t);
  // Pad the last word (t*t not a multiple of 4 only for t = 1).
  if (threadIdx.x == 0) {
    for (std::uint32_t l = cells; l % 4u != 0; ++l) masks[l] = 0;
    s_count = 0;
  }
  __syncthreads();

  // 2. Dead ends.
  const volatile std::uint8_t* vmasks = masks;
  for (std::uint32_t l = threadIdx.x; l < cells; l += blockDim.x) {
    if (!on_ring(l, t) && __popc(static_cast<unsigned>(vmasks[l])) == 1) peel_from(words, l, t);
  }
  __syncthreads();

  // 3. Paths between kept vertices, each emitted by the walk from its smaller end.
  for (std::uint32_t v = threadIdx.x; v < cells; v += blockDim.x) {
    const std::uint32_t mask = masks[v];
    if (!kept(mask, v, t)) continue;
    for (unsigned rest = mask; rest != 0; rest &= rest - 1) {
      std::uint32_t end = 0;
      std::uint64_t key = 0;
      if (!walk_path(values, masks, v, __ffs(rest) - 1, t, params, &end, &key) || end == v) {
        atomicExch(d_error, 1);
        continue;
      }
      if (v < end) {
        const std::uint32_t slot = atomicAdd(&s_count, 1u);
        if (slot < capacity) unsorted[slot] = TileSummaryEdge{v, end, key};
      }
    }
  }
  __syncthreads();

  // 4. Key order.
  const std::uint32_t count = s_count;
  if (threadIdx.x == 0) d_counts[tile] = count;
  if (count > capacity) return;  // the host reports it
  order_by_key(unsorted, count, d_summary + tile * capacity);
}

}  // namespace

std::uint64_t block_reduce_scratch_bytes_per_tile(std::uint32_t t) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(t) * t;
  return (bytes + 255) / 256 * 256;
}

void launch_block_reduce(const std::uint8_t* d_forest_bits, const double* d_values, std::uint64_t tiles,
                         std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                         TileSummaryEdge* d_summary, std::uint32_t* d_counts, ReduceWorkspace& workspace,
                         cudaStream_t stream) {
  (void)connectivity;  // the forest bits already respect it (as in block_reduce_cpu)
  if (tiles == 0) return;
  if (t == 0 || t > 32768) throw Error("block reduce: tile size " + std::to_string(t) + " is outside 1..32768");
  const std::uint64_t per_tile = block_reduce_scratch_bytes_per_tile(t);
  const std::size_t shared_bytes = place_tile_scratch(reduce_block_forest, per_tile, tiles, workspace.shared_limit_bytes,
                                                      workspace.scratch, &workspace.last_placement);
  const bool in_shared = shared_bytes != 0;
  if (workspace.error.size() == 0) {
    workspace.error.resize(1);
  }
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(workspace.error.get(), 0, sizeof(int), stream));
  const std::uint32_t capacity = kMaxSummaryEdgesPerSide * t;
  workspace.unsorted.resize(static_cast<std::uint64_t>(capacity) * std::min(tiles, kMaxBlocksPerLaunch));
  const unsigned threads = threads_for_cells(static_cast<std::uint64_t>(t) * t);
  launch_in_chunks(0, tiles, [&](std::uint64_t first, unsigned count) {
    reduce_block_forest<<<count, threads, shared_bytes, stream>>>(
        d_forest_bits, d_values, first, t, params, d_summary, d_counts, capacity, workspace.error.get(),
        workspace.scratch.get(), per_tile, in_shared, workspace.unsorted.get());
  });
}

void check_block_reduce(ReduceWorkspace& workspace, cudaStream_t stream) {
  if (workspace.error.size() == 0) return;
  int flag = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&flag, workspace.error.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (flag) throw Error("block reduce: the forest bits contain a cycle or a broken path (not a block_mst forest)");
}

void check_summary_counts(const std::uint32_t* counts, std::uint64_t tiles, std::uint32_t t) {
  const std::uint32_t capacity = kMaxSummaryEdgesPerSide * t;
  for (std::uint64_t i = 0; i < tiles; ++i) {
    if (counts[i] > capacity) {
      throw Error("block reduce: tile " + std::to_string(i) + " has " + std::to_string(counts[i]) +
                  " summary edges, more than the capacity " + std::to_string(capacity));
    }
  }
}

}  // namespace cuda

void block_reduce_cuda(const std::uint8_t* forest_bits, const double* values, std::uint64_t tile_count, std::uint32_t t,
                       const WeightParams& params, Connectivity connectivity,
                       std::vector<std::vector<TileSummaryEdge>>* summaries) {
  if (!cuda_device().available) throw Error("block_reduce_cuda: " + cuda_device().reason);
  summaries->clear();
  summaries->resize(tile_count);
  if (tile_count == 0) return;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t capacity = static_cast<std::uint64_t>(kMaxSummaryEdgesPerSide) * t;
  const std::uint64_t per_tile = cells * 9 + 2 * capacity * sizeof(TileSummaryEdge) + 4 +
                                 cuda::block_reduce_scratch_bytes_per_tile(t);
  const std::uint64_t chunk = std::max<std::uint64_t>(1, std::min<std::uint64_t>(tile_count, (1ull << 30) / per_tile));
  cuda::DeviceBuffer<double> d_values(chunk * cells);
  cuda::DeviceBuffer<std::uint8_t> d_bits(chunk * cells);
  cuda::DeviceBuffer<TileSummaryEdge> d_summary(chunk * capacity);
  cuda::DeviceBuffer<std::uint32_t> d_counts(chunk);
  std::vector<TileSummaryEdge> summary(chunk * capacity);
  std::vector<std::uint32_t> counts(chunk);
  cuda::ReduceWorkspace workspace;
  for (std::uint64_t first = 0; first < tile_count; first += chunk) {
    const std::uint64_t count = std::min(chunk, tile_count - first);
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_values.get(), values + first * cells, count * cells * sizeof(double),
                                  cudaMemcpyHostToDevice));
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_bits.get(), forest_bits + first * cells, count * cells, cudaMemcpyHostToDevice));
    cuda::launch_block_reduce(d_bits.get(), d_values.get(), count, t, params, connectivity, d_summary.get(),
                              d_counts.get(), workspace, nullptr);
    cuda::check_block_reduce(workspace, nullptr);
    TERRAZO_CUDA_CHECK(cudaMemcpy(counts.data(), d_counts.get(), count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    TERRAZO_CUDA_CHECK(cudaMemcpy(summary.data(), d_summary.get(), count * capacity * sizeof(TileSummaryEdge),
                                  cudaMemcpyDeviceToHost));
    cuda::check_summary_counts(counts.data(), count, t);
    for (std::uint64_t i = 0; i < count; ++i) {
      (*summaries)[first + i].assign(summary.begin() + static_cast<std::ptrdiff_t>(i * capacity),
                                     summary.begin() + static_cast<std::ptrdiff_t>(i * capacity + counts[i]));
    }
  }
}

}  // namespace terrazo
