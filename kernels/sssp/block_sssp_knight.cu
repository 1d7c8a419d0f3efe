// kernels/sssp/block_sssp_knight.cu: the CUDA block SSSP with knight's moves (--connectivity 16), the
// twin of kernels/sssp/block_sssp_cpu_knight.cpp (contract: kernels/sssp/block_sssp.h, (t+4)^2
// windows with a two-cell halo, kernels/sssp/knight.h).
//
// The relaxation sweeps of kernels/sssp/block_sssp_sweeps.cuh (thread per line) on the
// 16-direction KnightGrid stencil: one thread block per tile; 16 planes of pull weights
// (weight[d][u] = the edge from u's neighbour in direction d into interior cell u, knight's moves
// weighed over the two cells they cross with knight_weight, the same function the CPU twin calls)
// in global scratch; distances in shared
// memory when (t+4)^2 x 8 bytes fit, else in place in global memory. Rows west to east and back,
// then columns north to south and back, until a round changes nothing: a fixpoint of the
// Bellman-Ford equations, the exact shortest distances, so the CPU's Dijkstra labels bit for bit.
// changed[u] = 1 where a distance was stored (it decreased).
#include <algorithm>
#include <string>

#include "kernels/common/error.h"
#include "kernels/common/cuda_device.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/block_sssp_launch.cuh"
#include "kernels/sssp/block_sssp_sweeps.cuh"
#include "kernels/sssp/knight.h"

namespace terrazo {
namespace cuda {
namespace {

// The 16-neighbour stencil of one tile's (t+4)^2 window (kernels/sssp/block_sssp_sweeps.cuh).
struct KnightGrid {
  static constexpr int kHalo = 2;
  PathLength* dist;
  std::uint32_t dist_stride;
  std::uint32_t* weight;  // 16 planes of g rows of g
  std::uint32_t g, plane;
  PathLength max_cost;

  // Pulls into cell (x, y) from its 16 neighbours; stores and returns true when its distance drops.
  __device__ __forceinline__ bool relax(int x, int y) const {
    const std::uint32_t di = static_cast<std::uint32_t>(y) * dist_stride + static_cast<std::uint32_t>(x);
    const std::uint32_t wi = static_cast<std::uint32_t>(y) * g + static_cast<std::uint32_t>(x);
    const PathLength current = dist[di];
    PathLength best = current;
#pragma unroll
    for (int dir = 0; dir < 16; ++dir) {
      const Weight w = weight[dir * plane + wi];
      if (w == kNoEdge) continue;
      const PathLength dn =
          dist[static_cast<std::uint32_t>(static_cast<int>(di) + step_dy16(dir) * static_cast<int>(dist_stride) + step_dx16(dir))];
      if (dn == kUnreached || dn > max_cost) continue;
      const PathLength candidate = dn + w;
      if (candidate < dn || candidate > max_cost) continue;
      best = min(best, candidate);
    }
    if (best < current) {
      dist[di] = best;
      return true;
    }
    return false;
  }
};

// Phase 1: the 16 pull weights of every interior cell (kNoEdge elsewhere), the distances into
// place when they are kept in shared memory. Returns whether this thread met a weight overflow.
__device__ __forceinline__ bool weigh_knight_window(const KnightGrid& k, const double* values,
                                                    const PathLength* dist_global, bool dist_shared, std::uint32_t t,
                                                    const WeightParams& params, double length_h, double length_v) {
  bool overflowed = false;
  const std::uint32_t g = k.g, grid = g * g;
  const int gi = static_cast<int>(g), ti = static_cast<int>(t);
  for (std::uint32_t i = threadIdx.x; i < grid; i += blockDim.x) {
    const int x = static_cast<int>(i % g), y = static_cast<int>(i / g);
    const bool interior = x >= 2 && y >= 2 && x < ti + 2 && y < ti + 2;
    const double v = values[i];
    for (int dir = 0; dir < 16; ++dir) {
      Weight w = kNoEdge;
      if (interior) {  // the neighbour, and a knight's crossed cells, are inside the window
        const int n = (y + step_dy16(dir)) * gi + x + step_dx16(dir);
        if (dir < 8) {
          w = step_weight(params, values[n], v, (dir + 4) & 7, y + step_dy16(dir), &overflowed);
        } else {
          int ax, ay, bx, by;
          knight_crossed(dir, &ax, &ay, &bx, &by);
          const double length = (step_dx16(dir) == 2 || step_dx16(dir) == -2) ? length_h : length_v;
          w = knight_weight(params, values[n], values[(y + ay) * gi + x + ax], values[(y + by) * gi + x + bx], v,
                            length, &overflowed);
        }
      }
      k.weight[dir * k.plane + i] = w;
    }
    if (dist_shared) k.dist[static_cast<std::uint32_t>(y) * k.dist_stride + static_cast<std::uint32_t>(x)] = dist_global[i];
  }
  return overflowed;
}

static __global__ void __launch_bounds__(1024)
    relax_block_sssp_knight(const double* __restrict__ d_values, std::uint64_t first_tile, std::uint32_t t,
                            WeightParams params, double length_h, double length_v, PathLength max_cost,
                            PathLength* __restrict__ d_dist, std::uint8_t* __restrict__ d_changed,
                            unsigned long long* __restrict__ d_changed_total, int* __restrict__ d_overflow,
                            unsigned char* __restrict__ d_scratch, std::uint64_t scratch_stride, int dist_shared,
                            unsigned long long* __restrict__ d_rounds) {
  extern __shared__ unsigned long long s_dynamic[];
  __shared__ SweepCounters s_counters;
  const std::uint64_t tile = first_tile + blockIdx.x;
  const std::uint32_t g = t + 4;
  const std::uint32_t grid = g * g;
  const double* values = d_values + tile * grid;
  PathLength* dist_global = d_dist + tile * grid;
  std::uint8_t* changed = d_changed + tile * static_cast<std::uint64_t>(t) * t;

  KnightGrid k{};
  k.g = g;
  k.plane = grid;
  k.weight = reinterpret_cast<std::uint32_t*>(d_scratch + (tile - first_tile) * scratch_stride);
  k.max_cost = max_cost;
  k.dist = dist_shared ? reinterpret_cast<PathLength*>(s_dynamic) : dist_global;
  k.dist_stride = dist_shared ? (g | 1u) : g;  // odd row stride in shared memory

  // 1. Pull weights of the interior cells, distances into place, changed flags cleared.
  const bool overflowed = weigh_knight_window(k, values, dist_global, dist_shared, t, params, length_h, length_v);
  begin_sweeps(changed, t, overflowed, d_overflow, s_counters);

  // 2. Rounds of row and column phases until nothing changes.
  const int ti = static_cast<int>(t);
  const unsigned rounds = sweep_to_fixpoint([&] { return relax_lines<true>(k, ti, changed); },
                                            [&] { return relax_lines<false>(k, ti, changed); }, s_counters);

  // 3. Results back in place, changed count.
  finish_block_sssp<KnightGrid::kHalo>(dist_global, g, k.dist, k.dist_stride, dist_shared, changed, t, rounds,
                                       s_counters.count, d_changed_total, d_rounds);
}

}  // namespace

std::uint64_t block_sssp_knight_scratch_bytes_per_tile(std::uint32_t t) {
  const std::uint64_t g = static_cast<std::uint64_t>(t) + 4;
  return (16 * 4 * g * g + 255) / 256 * 256;
}

void launch_block_sssp_knight(const double* d_values, std::uint64_t tiles, std::uint32_t t, const WeightParams& params,
                              PathLength max_cost, PathLength* d_dist, std::uint8_t* d_changed,
                              unsigned long long* d_changed_total, int* d_overflow, SsspWorkspace& workspace,
                              cudaStream_t stream, unsigned long long* d_rounds) {
  if (tiles == 0) return;
  if (t < 2 || t > 16384) throw Error("block SSSP (knight's moves): tile size " + std::to_string(t) + " is outside 2..16384");
  if (params.steps.rows) throw Error("internal: knight's moves take uniform step lengths");
  const std::uint64_t g = static_cast<std::uint64_t>(t) + 4;
  const std::uint64_t dist_bytes = 8 * (g | 1u) * g;
  const std::uint64_t weight_bytes = block_sssp_knight_scratch_bytes_per_tile(t);
  const std::size_t limit = shared_scratch_limit(workspace.shared_limit_bytes);
  const bool dist_shared = dist_bytes <= limit;
  const std::size_t shared_bytes = dist_shared ? static_cast<std::size_t>(dist_bytes) : 0;
  workspace.last_placement = dist_shared ? ScratchPlacement::SharedDistance : ScratchPlacement::Global;
  workspace.last_sweep = SsspSweep::ThreadPerLine;
  workspace.scratch.resize(weight_bytes * std::min(tiles, kMaxBlocksPerLaunch));
  if (shared_bytes) {
    TERRAZO_CUDA_CHECK(cudaFuncSetAttribute(relax_block_sssp_knight, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_bytes)));
  }
  // The knight's step lengths from the host's knight_length, so both twins weigh the same doubles.
  const double length_h = knight_length(params.steps, 8), length_v = knight_length(params.steps, 9);
  const unsigned threads = static_cast<unsigned>(std::min<std::uint64_t>(1024, (static_cast<std::uint64_t>(t) + 31) / 32 * 32));
  launch_in_chunks(0, tiles, [&](std::uint64_t first, unsigned count) {
    relax_block_sssp_knight<<<count, threads, shared_bytes, stream>>>(
        d_values, first, t, params, length_h, length_v, max_cost, d_dist, d_changed, d_changed_total, d_overflow,
        workspace.scratch.get(), weight_bytes, dist_shared ? 1 : 0, d_rounds);
  });
}

}  // namespace cuda
}  // namespace terrazo
