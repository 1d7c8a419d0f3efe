// kernels/sssp/block_sssp.cu: the CUDA block SSSP (contract: kernels/sssp/block_sssp.h), relaxation sweeps.
//
// Source: docs/sssp.md "Block solver"; [Malison2012] for relaxation on the GPU. One thread
// block per tile on the (t+2) x (t+2) grid with its halo ring:
//  1. weight[d][i]: the owned edges E, SE, S, SW of every grid cell i whose edge has at least one
//     interior end (halo-to-halo edges are never used), computed once with step_weight. Directed
//     models (walk, tobler: w(u, v) != w(v, u)) keep 8 planes instead: weight[d][i] = w(v, i), the
//     edge from i's neighbour v in direction d into interior cell i (what i pulls).
//  2. Sweeps until a whole round changes nothing. A round is a row phase (every interior row
//     west to east, then east to west) and a column phase (every column north to south, then
//     back). Each visited cell pulls
//        d(u) = min(d(u), min over neighbours v: d(v) + w(v, u)),
//     using only neighbours with d(v) <= max_cost and candidates <= max_cost; halo cells are read,
//     never written. Two ways to sweep a line (SsspSweep, kernels/sssp/block_sssp_batch.h):
//      - ThreadPerLine (the default): one thread walks the line cell by cell, each cell pulling
//        from its 8 neighbours (the cell behind it already updated). The 32 threads of a warp
//        walk 32 adjacent lines in lockstep, so a cell also sees the diagonal neighbours the
//        lines beside it updated a step earlier: a phase propagates along the whole half-plane
//        ahead of it, and terrain tiles converge in 2-5 rounds (measured, t = 32..512);
//      - WarpScan: one warp per line, 32 cells at a time: each lane pulls from all 8 neighbours
//        (value C), then a warp-wide inclusive scan composes the maps d -> min(C_i, d + W_i)
//        (W_i the weight from the previous cell of the line; composing (C1, W1) then (C2, W2)
//        gives (min(C2, C1 + W2), W1 + W2), saturating at kUnreached) and applies them to the
//        value carried in from the previous 32 cells (at first the halo cell). This is the same
//        propagation along the line as the sequential walk, with 32 times the threads, but the
//        lines do not see each other's progress within a phase: 6-54 rounds (measured), slower.
//     A value above max_cost is never stored; values derived from it are larger, so carrying
//     it along a scan stores nothing either. Every value stored is the length of a real path,
//     distances only decrease, and a round without a change is a fixpoint of the Bellman-Ford
//     equations, hence the exact shortest distances (weights are non-negative integers): the
//     same as block_sssp_cpu's Dijkstra. A cell may read a neighbour another thread is writing:
//     64-bit loads and stores are single accesses, and either value is a valid upper bound.
//  3. changed[u] = 1 for every cell whose distance was ever stored (it then decreased); the
//     block adds its count to *d_changed_total.
// The distances live in shared memory (row stride padded to an odd number of words, so the
// thread-per-row phase and the column scans are free of bank conflicts) when (t+2)^2 x 8 bytes
// fit, the weights too when both fit; otherwise they are used in place in global memory (L2).
#include <algorithm>
#include <string>

#include "kernels/sssp/block_sssp_launch.cuh"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/block_sssp_sweeps.cuh"
#include "kernels/sssp/knight.h"
#include "kernels/common/cuda_device.h"

namespace terrazo {
namespace cuda {
namespace {

// The 8- (or 4-) neighbour stencil of one tile's (t+2)^2 window (kernels/sssp/block_sssp_sweeps.cuh).
struct NeighbourGrid {
  static constexpr int kHalo = 1;
  PathLength* dist;        // (t+2) rows of dist_stride
  std::uint32_t* weight;   // 4 planes (8 when directed) of (t+2) rows of weight_stride
  std::uint32_t dist_stride, weight_stride, plane;
  bool directed;           // 8 planes of pull weights (walk, tobler)
  Connectivity connectivity;
  PathLength max_cost;

  // The weight of the edge into cell wi from its neighbour in direction dir (dx, dy).
  __device__ __forceinline__ Weight pull_weight(int dir, int dx, int dy, std::uint32_t wi) const {
    if (directed) return weight[dir * plane + wi];
    return dir < 4 ? weight[dir * plane + wi]
                   : weight[(dir - 4) * plane +
                            static_cast<std::uint32_t>(static_cast<int>(wi) + dy * static_cast<int>(weight_stride) + dx)];
  }

  // min(current, the neighbours' offers d(v) + w(v, u) <= max_cost) for cell (x, y), without storing.
  __device__ __forceinline__ PathLength pull(int x, int y, PathLength current) const {
    const std::uint32_t di = static_cast<std::uint32_t>(y) * dist_stride + static_cast<std::uint32_t>(x);
    const std::uint32_t wi = static_cast<std::uint32_t>(y) * weight_stride + static_cast<std::uint32_t>(x);
    PathLength best = current;
#pragma unroll
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const int dx = step_dx(dir), dy = step_dy(dir);
      const Weight w = pull_weight(dir, dx, dy, wi);
      if (w == kNoEdge) continue;
      const PathLength dn = dist[static_cast<std::uint32_t>(static_cast<int>(di) + dy * static_cast<int>(dist_stride) + dx)];
      if (dn == kUnreached || dn > max_cost) continue;
      const PathLength candidate = dn + w;
      if (candidate < dn || candidate > max_cost) continue;
      best = min(best, candidate);
    }
    return best;
  }

  // Pulls into cell (x, y); stores and returns true when its distance drops.
  __device__ __forceinline__ bool relax(int x, int y) const {
    const std::uint32_t di = static_cast<std::uint32_t>(y) * dist_stride + static_cast<std::uint32_t>(x);
    const PathLength current = dist[di];
    const PathLength best = pull(x, y, current);
    if (best < current) {
      dist[di] = best;
      return true;
    }
    return false;
  }
};

__device__ __forceinline__ PathLength add_saturated(PathLength a, PathLength b) {
  const PathLength sum = a + b;
  return (a == kUnreached || b == kUnreached || sum < a) ? kUnreached : sum;
}

// One phase of WarpScan sweeps: rows (kRows) or columns, each both ways. Returns whether this
// thread stored anything.
template <bool kRows>
__device__ bool scan_lines(const NeighbourGrid& g, int t, std::uint8_t* changed) {
  constexpr unsigned kFull = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int warps = static_cast<int>(blockDim.x >> 5);
  bool any = false;
  for (int line = 1 + static_cast<int>(threadIdx.x >> 5); line <= t; line += warps) {
    for (int pass = 0; pass < 2; ++pass) {
      const bool forward = pass == 0;
      const int start = forward ? 0 : t + 1;  // the halo cell before the first cell
      PathLength carry = g.dist[kRows ? static_cast<std::uint32_t>(line) * g.dist_stride + static_cast<std::uint32_t>(start)
                                      : static_cast<std::uint32_t>(start) * g.dist_stride + static_cast<std::uint32_t>(line)];
      for (int segment = 0; segment < t; segment += 32) {
        const int k = segment + lane;
        const bool valid = k < t;
        const int p = forward ? 1 + k : t - k;
        const int x = kRows ? p : line, y = kRows ? line : p;
        PathLength current = kUnreached, c = kUnreached, w = kUnreached;
        if (valid) {
          current = g.dist[static_cast<std::uint32_t>(y) * g.dist_stride + static_cast<std::uint32_t>(x)];
          c = g.pull(x, y, current);
          // The edge from the previous cell of the line: E of (x-1, y) or of (x, y); S of (x, y-1) or of (x, y).
          // Directed: the pull weight of (x, y) from W, E, N or S (directions 4, 0, 6, 2).
          const int ox = kRows && forward ? x - 1 : x, oy = !kRows && forward ? y - 1 : y;
          const Weight edge =
              g.directed ? g.weight[(kRows ? (forward ? 4 : 0) : (forward ? 6 : 2)) * g.plane +
                                    static_cast<std::uint32_t>(y) * g.weight_stride + static_cast<std::uint32_t>(x)]
                         : g.weight[(kRows ? kEast : kSouth) * g.plane + static_cast<std::uint32_t>(oy) * g.weight_stride +
                                    static_cast<std::uint32_t>(ox)];
          w = edge == kNoEdge ? kUnreached : edge;
        }
#pragma unroll
        for (int offset = 1; offset < 32; offset <<= 1) {
          const PathLength c_before = __shfl_up_sync(kFull, c, offset);
          const PathLength w_before = __shfl_up_sync(kFull, w, offset);
          if (lane >= offset) {
            c = min(c, add_saturated(c_before, w));
            w = add_saturated(w_before, w);
          }
        }
        const PathLength result = min(c, add_saturated(carry, w));
        if (valid && result < current && result <= g.max_cost) {
          g.dist[static_cast<std::uint32_t>(y) * g.dist_stride + static_cast<std::uint32_t>(x)] = result;
          changed[(y - 1) * t + (x - 1)] = 1;
          any = true;
        }
        carry = __shfl_sync(kFull, result, 31);
      }
    }
  }
  return any;
}

// Where the tile's distances and weights live (ScratchPlacement): shared memory from s_dynamic
// (odd row stride), or the tile's global window and its slice of d_scratch.
__device__ __forceinline__ NeighbourGrid place_grid(std::uint32_t t, const WeightParams& params,
                                                    Connectivity connectivity, PathLength max_cost, int placement,
                                                    unsigned char* shared_base, PathLength* dist_global,
                                                    unsigned char* tile_scratch) {
  const std::uint32_t g = t + 2;
  const std::uint32_t padded = g | 1u;  // odd row stride in shared memory
  NeighbourGrid a{};
  a.weight_stride = padded;
  a.plane = padded * g;
  a.directed = is_directed(params.model);
  a.connectivity = connectivity;
  a.max_cost = max_cost;
  if (placement != static_cast<int>(ScratchPlacement::Global)) {
    a.dist = reinterpret_cast<PathLength*>(shared_base);
    a.dist_stride = padded;
  } else {
    a.dist = dist_global;
    a.dist_stride = g;
  }
  if (placement == static_cast<int>(ScratchPlacement::Shared)) {
    a.weight = reinterpret_cast<std::uint32_t*>(shared_base + 8ull * a.plane);
  } else {
    a.weight = reinterpret_cast<std::uint32_t*>(tile_scratch);
  }
  return a;
}

// Phase 1: the weights of every window cell (its owned edges E, SE, S, SW with an interior end;
// directed: the 8 pull weights of an interior cell), and the distances into place when they are
// kept in shared memory. Returns whether this thread met a weight overflow.
__device__ __forceinline__ bool weigh_window(const NeighbourGrid& a, const double* values,
                                             const PathLength* dist_global, bool dist_shared, std::uint32_t t,
                                             const WeightParams& params) {
  bool overflowed = false;
  const std::uint32_t g = t + 2, grid = g * g;
  const int gi = static_cast<int>(g);
  for (std::uint32_t i = threadIdx.x; i < grid; i += blockDim.x) {
    const int x = static_cast<int>(i % g), y = static_cast<int>(i / g);
    const bool interior = x >= 1 && y >= 1 && x <= static_cast<int>(t) && y <= static_cast<int>(t);
    const double v = values[i];
    const std::uint32_t wi = static_cast<std::uint32_t>(y) * a.weight_stride + static_cast<std::uint32_t>(x);
    if (a.directed) {
      // Pull weights: the edge from the neighbour in direction dir into this interior cell.
      for (int dir = 0; dir < 8; ++dir) {
        Weight w = kNoEdge;
        const int nx = x + step_dx(dir), ny = y + step_dy(dir);
        if (interior && direction_used(dir, a.connectivity) && nx >= 0 && ny >= 0 && nx < gi && ny < gi)
          w = step_weight(params, values[ny * gi + nx], v, (dir + 4) & 7, ny, &overflowed);
        a.weight[dir * a.plane + wi] = w;
      }
    } else {
      for (int dir = 0; dir < 4; ++dir) {
        Weight w = kNoEdge;
        const int nx = x + step_dx(dir), ny = y + step_dy(dir);
        if (direction_used(dir, a.connectivity) && nx >= 0 && ny >= 0 && nx < gi && ny < gi) {
          const bool other_interior = nx >= 1 && ny >= 1 && nx <= static_cast<int>(t) && ny <= static_cast<int>(t);
          if (interior || other_interior) w = step_weight(params, v, values[ny * gi + nx], dir, y, &overflowed);
        }
        a.weight[dir * a.plane + wi] = w;
      }
    }
    if (dist_shared) a.dist[static_cast<std::uint32_t>(y) * a.dist_stride + static_cast<std::uint32_t>(x)] = dist_global[i];
  }
  return overflowed;
}

template <bool kWarpScan>
static __global__ void __launch_bounds__(1024)
    relax_block_sssp(const double* __restrict__ d_values, std::uint64_t first_tile, std::uint32_t t,
                     WeightParams params, Connectivity connectivity, PathLength max_cost, PathLength* __restrict__ d_dist,
                     std::uint8_t* __restrict__ d_changed, unsigned long long* __restrict__ d_changed_total,
                     int* __restrict__ d_overflow, unsigned char* __restrict__ d_scratch, std::uint64_t scratch_stride,
                     int placement, unsigned long long* __restrict__ d_rounds,
                     const std::int64_t* __restrict__ d_row0) {
  extern __shared__ unsigned long long s_dynamic[];
  __shared__ SweepCounters s_counters;
  const std::uint64_t tile = first_tile + blockIdx.x;
  const std::uint32_t g = t + 2;
  const double* values = d_values + tile * g * g;
  PathLength* dist_global = d_dist + tile * g * g;
  std::uint8_t* changed = d_changed + tile * static_cast<std::uint64_t>(t) * t;
  if (d_row0) params.steps.row0 = d_row0[tile];  // per-row step lengths: the window's first row
  unsigned char* tile_scratch = placement == static_cast<int>(ScratchPlacement::Shared)
                                    ? nullptr
                                    : d_scratch + (tile - first_tile) * scratch_stride;
  const NeighbourGrid a = place_grid(t, params, connectivity, max_cost, placement,
                                     reinterpret_cast<unsigned char*>(s_dynamic), dist_global, tile_scratch);

  const bool dist_shared = placement != static_cast<int>(ScratchPlacement::Global);

  // 1. Weights, distances into place, changed flags cleared.
  const bool overflowed = weigh_window(a, values, dist_global, dist_shared, t, params);
  begin_sweeps(changed, t, overflowed, d_overflow, s_counters);

  // 2. Rounds of row and column phases until nothing changes.
  const int ti = static_cast<int>(t);
  unsigned rounds = 0;
  if (kWarpScan) {
    rounds = sweep_to_fixpoint([&] { return scan_lines<true>(a, ti, changed); },
                               [&] { return scan_lines<false>(a, ti, changed); }, s_counters);
  } else {
    rounds = sweep_to_fixpoint([&] { return relax_lines<true>(a, ti, changed); },
                               [&] { return relax_lines<false>(a, ti, changed); }, s_counters);
  }

  // 3. Results back in place, changed count.
  finish_block_sssp<NeighbourGrid::kHalo>(dist_global, g, a.dist, a.dist_stride, dist_shared, changed, t,
                                          rounds, s_counters.count, d_changed_total, d_rounds);
}

unsigned threads_for_lines(std::uint32_t t, bool warp_per_line) {
  const std::uint64_t lanes = warp_per_line ? 32ull * t : (static_cast<std::uint64_t>(t) + 31) / 32 * 32;
  return static_cast<unsigned>(std::min<std::uint64_t>(1024, lanes));
}

std::uint64_t padded_plane(std::uint32_t t) {
  const std::uint64_t g = static_cast<std::uint64_t>(t) + 2;
  return (g | 1u) * g;
}

}  // namespace

std::uint64_t block_sssp_scratch_bytes_per_tile(std::uint32_t t, bool directed) {
  const std::uint64_t bytes = (directed ? 32 : 16) * padded_plane(t);
  return (bytes + 255) / 256 * 256;
}

void launch_block_sssp(const double* d_values, std::uint64_t tiles, std::uint32_t t, const WeightParams& params,
                       Connectivity connectivity, PathLength max_cost, PathLength* d_dist, std::uint8_t* d_changed,
                       unsigned long long* d_changed_total, int* d_overflow, SsspWorkspace& workspace,
                       cudaStream_t stream, unsigned long long* d_rounds, const std::int64_t* d_row0) {
  if (tiles == 0) return;
  if (connectivity == Connectivity::Sixteen) {  // knight's moves: kernels/sssp/block_sssp_knight.cu
    launch_block_sssp_knight(d_values, tiles, t, params, max_cost, d_dist, d_changed, d_changed_total, d_overflow,
                             workspace, stream, d_rounds);
    return;
  }
  if (t == 0 || t > 16384) throw Error("block SSSP: tile size " + std::to_string(t) + " is outside 1..16384");
  Weight step = 0;
  if (workspace.sweep == SsspSweep::FrontierBfs && block_bfs_step(params, &step) &&
      block_bfs_fits(t, workspace.shared_limit_bytes)) {
    launch_block_bfs(d_values, tiles, t, step, connectivity, max_cost, d_dist, d_changed, d_changed_total, workspace,
                     stream, d_rounds);
    return;
  }
  const std::uint64_t dist_bytes = 8 * padded_plane(t);
  const std::uint64_t weight_bytes = block_sssp_scratch_bytes_per_tile(t, is_directed(params.model));
  const std::size_t limit = shared_scratch_limit(workspace.shared_limit_bytes);
  ScratchPlacement placement = ScratchPlacement::Global;
  std::size_t shared_bytes = 0;
  if (dist_bytes + weight_bytes <= limit) {
    placement = ScratchPlacement::Shared;
    shared_bytes = static_cast<std::size_t>(dist_bytes + weight_bytes);
  } else if (dist_bytes <= limit) {
    placement = ScratchPlacement::SharedDistance;
    shared_bytes = static_cast<std::size_t>(dist_bytes);
  }
  workspace.last_placement = placement;
  const bool warp_scan = workspace.sweep == SsspSweep::WarpScan;  // Auto: ThreadPerLine (kernels/sssp/block_sssp_batch.h)
  workspace.last_sweep = warp_scan ? SsspSweep::WarpScan : SsspSweep::ThreadPerLine;
  if (placement != ScratchPlacement::Shared) workspace.scratch.resize(weight_bytes * std::min(tiles, kMaxBlocksPerLaunch));
  auto kernel = warp_scan ? relax_block_sssp<true> : relax_block_sssp<false>;
  if (shared_bytes) {
    TERRAZO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_bytes)));
  }
  const unsigned threads = threads_for_lines(t, warp_scan);
  launch_in_chunks(0, tiles, [&](std::uint64_t first, unsigned count) {
    kernel<<<count, threads, shared_bytes, stream>>>(d_values, first, t, params, connectivity, max_cost, d_dist,
                                                     d_changed, d_changed_total, d_overflow, workspace.scratch.get(),
                                                     weight_bytes, static_cast<int>(placement), d_rounds, d_row0);
  });
}

}  // namespace cuda

std::uint64_t block_sssp_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t,
                              const WeightParams& params, Connectivity connectivity, PathLength max_cost,
                              PathLength* dist, std::uint8_t* changed, bool* overflow) {
  if (!cuda_device().available) throw Error("block_sssp_cuda: " + cuda_device().reason);
  if (tile_count == 0) return 0;
  const std::uint64_t grid = static_cast<std::uint64_t>(t + 2 * halo_width(connectivity)) * (t + 2 * halo_width(connectivity));
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t per_tile = grid * 16 + cells +
                                 (connectivity == Connectivity::Sixteen ? cuda::block_sssp_knight_scratch_bytes_per_tile(t)
                                                                  : cuda::block_sssp_scratch_bytes_per_tile(t, is_directed(params.model)));
  const std::uint64_t chunk = std::max<std::uint64_t>(1, std::min<std::uint64_t>(tile_count, (1ull << 30) / per_tile));
  cuda::DeviceBuffer<double> d_values(chunk * grid);
  cuda::DeviceBuffer<PathLength> d_dist(chunk * grid);
  cuda::DeviceBuffer<std::uint8_t> d_changed(chunk * cells);
  cuda::DeviceBuffer<unsigned long long> d_total(1);
  cuda::DeviceBuffer<int> d_overflow(1);
  cuda::SsspWorkspace workspace;
  // A step-length table (geodesic) goes to the device; every tile uses params.steps.row0.
  WeightParams device_params = params;
  cuda::DeviceBuffer<double> d_steps;
  if (params.steps.rows) {
    d_steps.resize(static_cast<std::uint64_t>(params.steps.row_count) * 3);
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_steps.get(), params.steps.rows, params.steps.row_count * 3 * sizeof(double),
                                  cudaMemcpyHostToDevice));
    device_params.steps.rows = d_steps.get();
  }
  TERRAZO_CUDA_CHECK(cudaMemset(d_total.get(), 0, sizeof(unsigned long long)));
  TERRAZO_CUDA_CHECK(cudaMemset(d_overflow.get(), 0, sizeof(int)));
  for (std::uint64_t first = 0; first < tile_count; first += chunk) {
    const std::uint64_t count = std::min(chunk, tile_count - first);
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_values.get(), values + first * grid, count * grid * sizeof(double),
                                  cudaMemcpyHostToDevice));
    TERRAZO_CUDA_CHECK(cudaMemcpy(d_dist.get(), dist + first * grid, count * grid * sizeof(PathLength),
                                  cudaMemcpyHostToDevice));
    cuda::launch_block_sssp(d_values.get(), count, t, device_params, connectivity, max_cost, d_dist.get(), d_changed.get(),
                            d_total.get(), d_overflow.get(), workspace, nullptr);
    TERRAZO_CUDA_CHECK(cudaMemcpy(dist + first * grid, d_dist.get(), count * grid * sizeof(PathLength),
                                  cudaMemcpyDeviceToHost));
    TERRAZO_CUDA_CHECK(cudaMemcpy(changed + first * cells, d_changed.get(), count * cells, cudaMemcpyDeviceToHost));
  }
  unsigned long long total = 0;
  int flag = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpy(&total, d_total.get(), sizeof(total), cudaMemcpyDeviceToHost));
  TERRAZO_CUDA_CHECK(cudaMemcpy(&flag, d_overflow.get(), sizeof(int), cudaMemcpyDeviceToHost));
  if (flag) *overflow = true;
  return total;
}

}  // namespace terrazo
