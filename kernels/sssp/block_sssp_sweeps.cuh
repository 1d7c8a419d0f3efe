// kernels/sssp/block_sssp_sweeps.cuh: the relaxation sweeps of the CUDA block SSSP, written once and
// templated on the stencil: the 8- and 4-neighbour one of kernels/sssp/block_sssp.cu and the
// knight's moves of kernels/sssp/block_sssp_knight.cu (the GPU twins of the CPU solve() of
// kernels/sssp/block_sssp_cpu_solve.h). Included by kernels/sssp/*.cu only.
//
// Source: docs/sssp.md "Block solver". One thread block per tile, its window (halo kHalo cells wide)
// already weighed by the stencil (phase 1, the stencil's own). Then:
//  2. Rounds until one changes nothing. A round is a row phase (every interior row west to east,
//     then east to west) and a column phase (every column north to south, then back); each visited
//     cell u pulls
//        d(u) = min(d(u), min over neighbours v: d(v) + w(v, u))
//     through Stencil::relax(x, y), which stores only a smaller value <= max_cost. A round without a
//     change is a fixpoint of the Bellman-Ford equations, the exact shortest distances.
//  3. The interior distances back into the tile's global window when they were kept in shared
//     memory, changed[u] counted into *d_changed_total, the rounds into *d_rounds.
// The round flag alternates between two words so that clearing the next one never races with a
// thread still reading the last one.
//
// A Stencil has: static constexpr int kHalo; __device__ bool relax(int x, int y) const (x, y in
// window coordinates, interior cells only; true when it stored).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/block_solvers.cuh"

namespace terrazo::cuda {

// The block's shared counters of phases 2 and 3.
struct SweepCounters {
  int changed[2];            // whether the round (parity) changed anything
  unsigned long long count;  // changed cells of the tile
};

// The end of phase 1: the tile's changed flags cleared, an overflow reported, the counters reset;
// then a barrier.
__device__ __forceinline__ void begin_sweeps(std::uint8_t* changed, std::uint32_t t, bool overflowed,
                                             int* d_overflow, SweepCounters& counters) {
  for (std::uint32_t l = threadIdx.x; l < t * t; l += blockDim.x) changed[l] = 0;
  if (overflowed) atomicExch(d_overflow, 1);
  if (threadIdx.x == 0) {
    counters.changed[0] = 0;
    counters.changed[1] = 0;
    counters.count = 0;
  }
  __syncthreads();
}

// One thread-per-line phase: rows (kRows) or columns, thread k taking lines k, k + blockDim, ...,
// each walked forth and back. The 32 threads of a warp walk 32 adjacent lines in lockstep, so a
// cell also sees what the lines beside it stored a step earlier. Returns whether this thread stored.
template <bool kRows, class Stencil>
__device__ __forceinline__ bool relax_lines(const Stencil& stencil, int t, std::uint8_t* changed) {
  constexpr int h = Stencil::kHalo;
  bool any = false;
  for (int line = h + static_cast<int>(threadIdx.x); line < t + h; line += static_cast<int>(blockDim.x)) {
    for (int p = h; p < t + h; ++p) {
      const int x = kRows ? p : line, y = kRows ? line : p;
      if (stencil.relax(x, y)) {
        changed[(y - h) * t + (x - h)] = 1;
        any = true;
      }
    }
    for (int p = t + h - 1; p >= h; --p) {
      const int x = kRows ? p : line, y = kRows ? line : p;
      if (stencil.relax(x, y)) {
        changed[(y - h) * t + (x - h)] = 1;
        any = true;
      }
    }
  }
  return any;
}

// Phase 2: row phase, barrier, column phase, until a round changes nothing. row_phase() and
// column_phase() each return whether this thread stored. Returns the rounds run (the last one
// changed nothing).
template <class RowPhase, class ColumnPhase>
__device__ __forceinline__ unsigned sweep_to_fixpoint(RowPhase&& row_phase, ColumnPhase&& column_phase,
                                                      SweepCounters& counters) {
  unsigned round = 0;
  for (;; ++round) {
    bool any = row_phase();
    __syncthreads();
    if (threadIdx.x == 0) counters.changed[(round + 1) & 1u] = 0;  // everyone read it in the last round
    any = column_phase() || any;
    if (any) counters.changed[round & 1u] = 1;
    __syncthreads();
    if (!counters.changed[round & 1u]) break;
  }
  return round + 1;
}

// Phase 3: the interior of `dist` (row stride dist_stride) back into the tile's global window
// (row stride g) when copy_back, the changed flags counted into *d_changed_total, `rounds` added to
// *d_rounds when it is not null. s_count (shared) must be 0 on entry.
template <int kHalo>
__device__ __forceinline__ void finish_block_sssp(PathLength* dist_global, std::uint32_t g, const PathLength* dist,
                                                  std::uint32_t dist_stride, bool copy_back,
                                                  const std::uint8_t* changed, std::uint32_t t, unsigned rounds,
                                                  unsigned long long& s_count, unsigned long long* d_changed_total,
                                                  unsigned long long* d_rounds) {
  unsigned long long count = 0;
  for (std::uint32_t l = threadIdx.x; l < t * t; l += blockDim.x) {
    const std::uint32_t x = l % t + kHalo, y = l / t + kHalo;
    if (copy_back) dist_global[y * g + x] = dist[y * dist_stride + x];
    count += changed[l];
  }
  for (int offset = 16; offset > 0; offset /= 2) count += __shfl_down_sync(0xffffffffu, count, offset);
  if ((threadIdx.x & 31u) == 0 && count) atomicAdd(&s_count, count);
  __syncthreads();
  if (threadIdx.x == 0 && s_count) atomicAdd(d_changed_total, s_count);
  if (threadIdx.x == 0 && d_rounds) atomicAdd(d_rounds, static_cast<unsigned long long>(rounds));
}

}  // namespace terrazo::cuda
