// kernels/sssp/block_bfs.cu: the CUDA frontier BFS block solver (contract: kernels/sssp/block_bfs.h).
//
// Source: docs/sssp.md "Unit weights: the frontier BFS block solver"; [CS179-BFS, "GPU BFS"]: a
// frontier array and a visited array, one level per step, every thread looking only at the current
// frontier; [Leist2009, sec. 2.2.3 and 3.1.7]: the tile and its one-cell halo ring in shared memory,
// compact arrays walked in order instead of per-cell adjacency lists. One thread block per tile:
//  1. Load: a warp takes 32 consecutive cells of the (t+2)^2 window and builds, by __ballot_sync, one
//     32-bit word of the *valid* bitmap (value not NaN) and one of the first *frontier* (valid cells
//     with a finite distance <= max_cost: the seeds, halo or interior); the distances go to shared
//     memory when they fit beside the bitmaps (t <= 164 at 227 KiB), else they stay in global memory
//     (L2) and are read there with __ldcg.
//  2. Levels: thread k takes the frontier words k, k + blockDim, ...; for every set bit u (a cell whose
//     distance dropped in the last level, or a seed) and every neighbour v (4 or 8) that is interior
//     and valid, candidate = dist(u) + c (skipped when it wraps or exceeds max_cost); when it is below
//     dist(v) as loaded, atomicMin on dist(v) (no wait for the result), v's bit goes into the next
//     frontier and changed[v] = 1. The
//     distance array is the BFS's visited array: a cell is re-entered only when its distance drops,
//     which with seeds at one distance happens once (plain BFS levels) and otherwise stops when no
//     distance drops: a Bellman-Ford fixpoint restricted to the cells that changed, so the exact
//     shortest distances, whatever order the atomics land in (bit for bit block_bfs_cpu's).
//  3. The distances back in place, the changed flags counted (*d_changed_total), levels (*d_rounds).
// Barriers: one per level. The "anything new" flag rotates over three words so that resetting the
// next one never races with a thread still reading the last one.
#include <algorithm>
#include <string>

#include "kernels/common/error.h"
#include "kernels/common/cuda_device.h"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp_launch.cuh"
#include "kernels/sssp/block_sssp_sweeps.cuh"

namespace terrazo {
namespace cuda {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

std::uint64_t bfs_words(std::uint32_t t) {
  const std::uint64_t g = static_cast<std::uint64_t>(t) + 2;
  return (g * g + 31) / 32;
}

// Shared bytes of the bitmaps (valid, two frontiers), rounded up to 8 for the distances behind them.
std::uint64_t bfs_bitmap_bytes(std::uint32_t t) { return (3 * 4 * bfs_words(t) + 7) / 8 * 8; }

template <bool kShared>
__device__ __forceinline__ PathLength load_dist(const PathLength* p) {
  if (kShared) return *reinterpret_cast<const volatile PathLength*>(p);
  return __ldcg(reinterpret_cast<const unsigned long long*>(p));
}

// One tile's BFS state: the (t+2)^2 window's distances (shared or global), its valid bitmap, and
// the step and bounds of the expansion.
struct BfsWindow {
  PathLength* dist;
  const std::uint32_t* valid;
  std::uint8_t* changed;
  std::uint32_t t, g;
  Weight step;
  Connectivity connectivity;
  PathLength max_cost;
};

// Step 1: the valid bitmap, the first frontier (the seeds) and a cleared second one, one 32-bit word
// per warp step by __ballot_sync; the distances into shared memory when kSharedDist.
template <bool kSharedDist>
__device__ __forceinline__ void load_bfs_window(const double* values, const PathLength* dist_global, PathLength* dist,
                                                std::uint32_t grid, PathLength max_cost, std::uint32_t* s_valid,
                                                std::uint32_t* const* s_front) {
  const std::uint32_t words = (grid + 31) / 32;
  const unsigned lane = threadIdx.x & 31u;
  for (std::uint32_t base = 0; base < grid; base += blockDim.x) {
    const std::uint32_t i = base + threadIdx.x;
    bool ok = false, seed = false;
    if (i < grid) {
      const double v = values[i];
      const PathLength d = dist_global[i];
      if (kSharedDist) dist[i] = d;
      ok = v == v;
      seed = ok && d != kUnreached && d <= max_cost;
    }
    const unsigned valid_bits = __ballot_sync(kFullMask, ok);
    const unsigned seed_bits = __ballot_sync(kFullMask, seed);
    const std::uint32_t w = (base + threadIdx.x - lane) / 32;
    if (lane == 0 && w < words) {
      s_valid[w] = valid_bits;
      s_front[0][w] = seed_bits;
      s_front[1][w] = 0;
    }
  }
}

// Step 2 for frontier cell u: offers dist(u) + step to its valid interior neighbours; those it
// improves join `next` and are marked changed. Returns whether any was improved.
template <bool kSharedDist>
__device__ __forceinline__ bool expand_from(const BfsWindow& b, std::uint32_t u, std::uint32_t* next) {
  const PathLength du = load_dist<kSharedDist>(b.dist + u);
  const PathLength candidate = du + b.step;
  if (du == kUnreached || du > b.max_cost || candidate < du || candidate > b.max_cost) return false;
  const int ti = static_cast<int>(b.t), gi = static_cast<int>(b.g);
  const int ux = static_cast<int>(u % b.g), uy = static_cast<int>(u / b.g);
  // All neighbours' distances are loaded first (independent loads in flight together), then
  // every improvement is a fire-and-forget atomicMin (a reduction: nothing waits for its
  // result). A neighbour whose loaded distance is above the candidate joins the next frontier
  // even when another thread's smaller candidate wins the race: it is then expanded once more
  // with its final distance, which changes nothing; and it did drop below its input distance
  // (candidate < loaded <= input), so changed = 1 is exact.
  std::uint32_t target[8];
  PathLength seen[8];
#pragma unroll
  for (int dir = 0; dir < 8; ++dir) {
    target[dir] = ~0u;
    seen[dir] = 0;
    if (!direction_used(dir, b.connectivity)) continue;
    const int vx = ux + step_dx(dir), vy = uy + step_dy(dir);
    if (vx < 1 || vy < 1 || vx > ti || vy > ti) continue;
    const std::uint32_t v = static_cast<std::uint32_t>(vy * gi + vx);
    if (!((b.valid[v >> 5] >> (v & 31u)) & 1u)) continue;
    target[dir] = v;
    seen[dir] = load_dist<kSharedDist>(b.dist + v);
  }
  bool any = false;
#pragma unroll
  for (int dir = 0; dir < 8; ++dir) {
    const std::uint32_t v = target[dir];
    if (v == ~0u || candidate >= seen[dir]) continue;
    atomicMin(reinterpret_cast<unsigned long long*>(b.dist + v), static_cast<unsigned long long>(candidate));
    atomicOr(&next[v >> 5], 1u << (v & 31u));
    b.changed[(v / b.g - 1) * b.t + (v % b.g - 1)] = 1;
    any = true;
  }
  return any;
}

template <bool kSharedDist>
static __global__ void __launch_bounds__(1024)
    expand_bfs_frontier(const double* __restrict__ d_values, std::uint64_t first_tile, std::uint32_t t, Weight step,
                        Connectivity connectivity, PathLength max_cost, PathLength* __restrict__ d_dist,
                        std::uint8_t* __restrict__ d_changed, unsigned long long* __restrict__ d_changed_total,
                        unsigned long long* __restrict__ d_rounds) {
  extern __shared__ unsigned long long s_dynamic[];
  __shared__ int s_any[3];
  __shared__ unsigned long long s_count;
  const std::uint64_t tile = first_tile + blockIdx.x;
  const std::uint32_t g = t + 2;
  const std::uint32_t grid = g * g;
  const std::uint32_t words = (grid + 31) / 32;
  PathLength* dist_global = d_dist + tile * grid;
  std::uint8_t* changed = d_changed + tile * static_cast<std::uint64_t>(t) * t;
  std::uint32_t* s_valid = reinterpret_cast<std::uint32_t*>(s_dynamic);
  std::uint32_t* s_front[2] = {s_valid + words, s_valid + 2 * words};
  PathLength* dist = kSharedDist ? reinterpret_cast<PathLength*>(s_dynamic) + (3 * words + 1) / 2 : dist_global;

  // 1. Bitmaps and distances.
  load_bfs_window<kSharedDist>(d_values + tile * grid, dist_global, dist, grid, max_cost, s_valid, s_front);
  for (std::uint32_t l = threadIdx.x; l < t * t; l += blockDim.x) changed[l] = 0;
  if (threadIdx.x == 0) {
    s_any[0] = s_any[1] = s_any[2] = 0;
    s_count = 0;
  }
  __syncthreads();

  // 2. One level per pass over the frontier.
  const BfsWindow window{dist, s_valid, changed, t, g, step, connectivity, max_cost};
  unsigned level = 0;
  int current = 0;
  for (;; ++level) {
    std::uint32_t* front = s_front[current];
    std::uint32_t* next = s_front[current ^ 1];
    if (threadIdx.x == 0) s_any[(level + 1) % 3] = 0;  // last read two levels ago, before the last barrier
    bool any = false;
    for (std::uint32_t w = threadIdx.x; w < words; w += blockDim.x) {
      unsigned bits = front[w];
      if (!bits) continue;
      front[w] = 0;
      while (bits) {
        const std::uint32_t u = w * 32 + static_cast<std::uint32_t>(__ffs(bits) - 1);
        bits &= bits - 1;
        if (expand_from<kSharedDist>(window, u, next)) any = true;
      }
    }
    if (any) s_any[level % 3] = 1;
    __syncthreads();
    current ^= 1;
    if (!s_any[level % 3]) break;
  }

  // 3. Results back in place, changed count.
  finish_block_sssp<1>(dist_global, g, dist, g, kSharedDist, changed, t, level + 1, s_count, d_changed_total,
                       d_rounds);
}

}  // namespace

bool block_bfs_fits(std::uint32_t t, std::size_t shared_limit_bytes) {
  return t >= 1 && t <= 16384 && bfs_bitmap_bytes(t) <= shared_scratch_limit(shared_limit_bytes);
}

void launch_block_bfs(const double* d_values, std::uint64_t tiles, std::uint32_t t, Weight step,
                      Connectivity connectivity, PathLength max_cost, PathLength* d_dist, std::uint8_t* d_changed,
                      unsigned long long* d_changed_total, SsspWorkspace& workspace, cudaStream_t stream,
                      unsigned long long* d_rounds) {
  if (tiles == 0) return;
  const std::size_t limit = shared_scratch_limit(workspace.shared_limit_bytes);
  if (!block_bfs_fits(t, workspace.shared_limit_bytes))
    throw Error("block BFS: the bitmaps of a tile of " + std::to_string(t) + " do not fit in shared memory");
  const std::uint64_t g = static_cast<std::uint64_t>(t) + 2;
  const std::uint64_t bitmaps = bfs_bitmap_bytes(t);
  const bool shared_dist = bitmaps + 8 * g * g <= limit;
  const std::size_t shared_bytes = static_cast<std::size_t>(bitmaps + (shared_dist ? 8 * g * g : 0));
  workspace.last_placement = shared_dist ? ScratchPlacement::Shared : ScratchPlacement::Global;
  workspace.last_sweep = SsspSweep::FrontierBfs;
  auto kernel = shared_dist ? expand_bfs_frontier<true> : expand_bfs_frontier<false>;
  TERRAZO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const unsigned threads = static_cast<unsigned>(std::min<std::uint64_t>(1024, (g * g + 31) / 32 * 32));
  launch_in_chunks(0, tiles, [&](std::uint64_t first, unsigned count) {
    kernel<<<count, threads, shared_bytes, stream>>>(d_values, first, t, step, connectivity, max_cost, d_dist,
                                                     d_changed, d_changed_total, d_rounds);
  });
}

}  // namespace cuda

std::uint64_t block_bfs_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, const WeightParams& params,
                             Connectivity connectivity, PathLength max_cost, PathLength* dist, std::uint8_t* changed) {
  if (!cuda_device().available) throw Error("block_bfs_cuda: " + cuda_device().reason);
  Weight step = 0;
  if (!block_bfs_step(params, &step)) throw Error("internal: block_bfs_cuda needs the unit weight model with a weight that fits");
  if (tile_count == 0) return 0;
  const std::uint64_t grid = static_cast<std::uint64_t>(t + 2) * (t + 2);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t chunk = std::max<std::uint64_t>(1, std::min<std::uint64_t>(tile_count, (1ull << 30) / (grid * 16 + cells)));
  cuda::DeviceBuffer<double> d_values(chunk * grid);
  cuda::DeviceBuffer<PathLength> d_dist(chunk * grid);
  cuda::DeviceBuffer<std::uint8_t> d_changed(chunk * cells);
  cuda::DeviceBuffer<unsigned long long> d_total(1);
  cuda::SsspWorkspace workspace;
  TERRAZO_CUDA_CHECK(cudaMemset(d_total.get(), 0, sizeof(unsigned long long)));
  for (std::uint64_t first = 0; first < tile_count; first += chunk) {
    const std::uint64_t count = std::min(chunk, tile_count - first);
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_values.get(), values + first * grid, count * grid * sizeof(double), cudaMemcpyHostToDevice));
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_dist.get(), dist + first * grid, count * grid * sizeof(PathLength), cudaMemcpyHostToDevice));
    cuda::launch_block_bfs(d_values.get(), count, t, step, connectivity, max_cost, d_dist.get(), d_changed.get(),
                           d_total.get(), workspace, nullptr, nullptr);
    TERRAZO_CUDA_CHECK(cudaMemcpy(dist + first * grid, d_dist.get(), count * grid * sizeof(PathLength), cudaMemcpyDeviceToHost));
    TERRAZO_CUDA_CHECK(cudaMemcpy(changed + first * cells, d_changed.get(), count * cells, cudaMemcpyDeviceToHost));
  }
  unsigned long long total = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpy(&total, d_total.get(), sizeof(total), cudaMemcpyDeviceToHost));
  return total;
}

}  // namespace terrazo
