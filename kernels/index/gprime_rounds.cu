// kernels/index/gprime_rounds.cu: the CUDA twin of gprime_rounds.h. Per round three launches on one
// stream: the solves of the active tiles (a thread block per tile: its sources with a due label, found
// from their least pending labels, are multiplied in groups of kSolveGroup, thread j keeping the
// group's acc[j] in registers and walking the matrix rows that carry a due label of the group, so
// each matrix entry read serves the whole group; a source with nothing due costs its key alone), the
// push into every tile next to an active one (a thread block per (tile, run of kPushRun sources),
// thread q reads its in-edges once and pulls only the sources whose `out` changed; improvements
// lower the source's and the tile's keys by atomicMin), then the next round's threshold (the least
// key) and its active tiles, compacted into a list (their order does not matter: a tile's solve reads
// and writes only its own labels). The host reads back the active count. The push runs over the
// tiles next to an active one only (marked from the active list, then compacted: a push reads the
// `out` of active neighbours alone, so no other tile can change), not over all tiles.
// Contract: gprime_rounds.h.
#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/index/gprime_rounds.h"

namespace terrazo {
namespace {

constexpr unsigned kSolveThreads = 256, kSolveGroup = 8, kSolveChunk = 128;
constexpr unsigned kPushThreads = 256, kPushRun = 16;
// The fast path's "no path" (a pending label not due, an entry with no path): sums of two of them, or
// of one with a real sum, stay >= kFastNone and below 2^63 (no overflow); real sums stay below it
// while every due label is below kFastLimit (entries are below 2^56: boundary_ring.h).
constexpr PathLength kFastNone = PathLength{1} << 62, kFastLimit = kFastNone - (PathLength{1} << 56);

// The group's min-plus pass over one chunk of rows for the columns of this thread: acc[g] = min over
// rows i with a due label of xs[g][i] + m[i][j]. Fast: plain 64-bit adds and minima against
// kFastNone (xs holds kFastNone where not due, an entry with no path skips the row); else
// min_plus_add with kUnreached absorbing (xs holds kUnreached where not due), as the CPU twin.
template <bool Fast>
__device__ __forceinline__ void gprime_solve_rows(const PathLength* __restrict__ m, std::uint32_t b, std::uint32_t i0,
                                                  std::uint32_t rows, std::uint32_t j,
                                                  const PathLength (*xs)[kSolveChunk], const std::uint8_t* row_due,
                                                  PathLength (&acc)[kSolveGroup]) {
  for (std::uint32_t i = 0; i < rows; ++i) {
    if (!row_due[i]) continue;  // the same for every thread of the block
    const PathLength mij = m[static_cast<std::uint64_t>(i0 + i) * b + j];
    if (Fast) {
      if (mij == kUnreached) continue;
#pragma unroll
      for (unsigned g = 0; g < kSolveGroup; ++g) {
        const PathLength via = xs[g][i] + mij;
        acc[g] = via < acc[g] ? via : acc[g];
      }
    } else {
#pragma unroll
      for (unsigned g = 0; g < kSolveGroup; ++g) {
        const PathLength via = min_plus_add(xs[g][i], mij);
        acc[g] = via < acc[g] ? via : acc[g];
      }
    }
  }
}

// gprime_solve's shared memory: the group's due labels of a chunk of rows and which rows carry one,
// the group's sources, the warps' least pending labels and changed flags, the tile's least key.
struct SolveShared {
  PathLength xs[kSolveGroup][kSolveChunk];
  std::uint8_t row_due[kSolveChunk];
  std::uint32_t group[kSolveGroup];
  PathLength warp_least[kSolveThreads / 32][kSolveGroup];
  unsigned warp_changed[kSolveThreads / 32];
  PathLength tile_least;
  unsigned group_size;
};

// Warp 0: the next group, the first kSolveGroup sources from `next` on with a due label (32 sources
// at a time; the others' keys go into the tile's key, their flags are cleared); its size to
// sh.group_size.
__device__ __forceinline__ void take_due_group(std::uint32_t kb, PathLength threshold, const PathLength* src_key,
                                               std::uint8_t* src_changed, unsigned lane, std::uint32_t& next,
                                               SolveShared& sh) {
  unsigned size = 0;
  while (next < kb && size < kSolveGroup) {
    const std::uint32_t v = next + lane;
    const PathLength k = v < kb ? src_key[v] : kUnreached;
    const bool is_due = k != kUnreached && k <= threshold;  // (no window: the threshold is kUnreached)
    const unsigned ballot = __ballot_sync(0xFFFFFFFFu, is_due);
    // Keep the first (kSolveGroup - size) due sources. When that fills the group, the scan resumes
    // after the last one kept; else every source of these 32 is settled.
    const unsigned room = kSolveGroup - size;
    unsigned kept = ballot;
    for (unsigned c = __popc(ballot); c > room; --c) kept &= ~(1u << (31 - __clz(kept)));
    const bool full = static_cast<unsigned>(__popc(kept)) == room;
    const unsigned last = full ? 31 - __clz(kept) : 31;
    const bool settled = lane <= last && v < kb;
    if (is_due && (kept >> lane & 1u)) sh.group[size + __popc(kept & ((1u << lane) - 1u))] = v;
    if (settled && !is_due) {
      src_changed[v] = 0;
      if (k != kUnreached) atomicMin(reinterpret_cast<unsigned long long*>(&sh.tile_least), static_cast<unsigned long long>(k));
    }
    size += __popc(kept);
    next += last + 1;
  }
  if (lane == 0) sh.group_size = size;
}

// The group's solve, a slice of blockDim.x columns at a time: acc[j] over the rows with a due label
// (chunks of kSolveChunk rows staged in shared memory), then each column's label, and its `out`
// (the new label where it improved or where a due pending label was taken). Returns bit g: source
// g's out holds a change (this thread's columns).
__device__ __forceinline__ unsigned solve_group_columns(const PathLength* __restrict__ m, std::uint32_t b,
                                                        std::uint32_t kb, PathLength max_cost, PathLength threshold,
                                                        std::uint64_t tile, unsigned size,
                                                        PathLength* __restrict__ d_label,
                                                        const PathLength* __restrict__ d_pending,
                                                        PathLength* __restrict__ d_out, SolveShared& sh) {
  // The fast path when every due label (<= the threshold) is below kFastLimit: every round of a
  // label window; plain Bellman-Ford rounds (no window, threshold kUnreached) take the other.
  const bool fast = threshold < kFastLimit;
  const PathLength none = fast ? kFastNone : kUnreached;
  unsigned changed = 0;
  for (std::uint32_t j0 = 0; j0 < b; j0 += blockDim.x) {
    const std::uint32_t j = j0 + threadIdx.x;
    PathLength acc[kSolveGroup];
#pragma unroll
    for (unsigned g = 0; g < kSolveGroup; ++g) acc[g] = none;
    for (std::uint32_t i0 = 0; i0 < b; i0 += kSolveChunk) {
      const std::uint32_t rows = min(static_cast<std::uint32_t>(kSolveChunk), b - i0);
      __syncthreads();
      for (unsigned i = threadIdx.x; i < kSolveChunk; i += blockDim.x) sh.row_due[i] = 0;
      __syncthreads();
      int mine = 0;
      for (unsigned e = threadIdx.x; e < kSolveGroup * kSolveChunk; e += blockDim.x) {
        const unsigned g = e / kSolveChunk, i = e % kSolveChunk;
        PathLength value = g < size && i < rows ? d_pending[(tile * kb + sh.group[g]) * b + i0 + i] : kUnreached;
        const bool is_due = value != kUnreached && value <= threshold;
        sh.xs[g][i] = is_due ? value : none;
        if (is_due) sh.row_due[i] = 1;
        mine |= is_due;
      }
      if (!__syncthreads_or(mine)) continue;  // no due label in these rows
      if (j < b) {
        if (fast) gprime_solve_rows<true>(m, b, i0, rows, j, sh.xs, sh.row_due, acc);
        else gprime_solve_rows<false>(m, b, i0, rows, j, sh.xs, sh.row_due, acc);
      }
    }
    if (j < b)
      for (unsigned g = 0; g < size; ++g) {
        const std::uint64_t at = (tile * kb + sh.group[g]) * b + j;
        const PathLength via = fast && acc[g] >= kFastNone ? kUnreached : acc[g];
        const PathLength y = d_label[at];
        const PathLength best = via < y ? via : y;
        const PathLength now = best > max_cost ? kUnreached : best;
        const PathLength xj = d_pending[at];
        const bool xj_due = xj != kUnreached && xj <= threshold;
        const PathLength out = now < y || xj_due ? now : kUnreached;
        d_out[at] = out;
        if (out != kUnreached) changed |= 1u << g;
        d_label[at] = now;
      }
  }
  return changed;
}

// After the group's solve: a pending entry that was due, or that the solve improved on (dominated),
// is cleared; what is left gives each source of the group its key (and the tile's), and `changed`
// (reduced over the block) its changed flag.
__device__ __forceinline__ void settle_group(std::uint32_t b, std::uint32_t kb, PathLength threshold, std::uint64_t tile,
                                             unsigned size, unsigned changed, unsigned lane, unsigned warp,
                                             const PathLength* __restrict__ d_label, PathLength* __restrict__ d_pending,
                                             PathLength* src_key, std::uint8_t* src_changed, SolveShared& sh) {
  PathLength least[kSolveGroup];
#pragma unroll
  for (unsigned g = 0; g < kSolveGroup; ++g) least[g] = kUnreached;
  for (std::uint32_t j = threadIdx.x; j < b; j += blockDim.x)
#pragma unroll
    for (unsigned g = 0; g < kSolveGroup; ++g)
      if (g < size) {
        const std::uint64_t at = (tile * kb + sh.group[g]) * b + j;
        const PathLength x = d_pending[at];
        if (x == kUnreached) continue;
        if (x <= threshold || d_label[at] < x) d_pending[at] = kUnreached;
        else least[g] = x < least[g] ? x : least[g];
      }
#pragma unroll
  for (unsigned g = 0; g < kSolveGroup; ++g)
    for (int offset = 16; offset > 0; offset >>= 1) {
      const PathLength other = __shfl_down_sync(0xFFFFFFFFu, least[g], offset);
      least[g] = other < least[g] ? other : least[g];
    }
  changed = __reduce_or_sync(0xFFFFFFFFu, changed);
  if (lane == 0) {
#pragma unroll
    for (unsigned g = 0; g < kSolveGroup; ++g) sh.warp_least[warp][g] = least[g];
    sh.warp_changed[warp] = changed;
  }
  __syncthreads();
  if (threadIdx.x < size) {
    const unsigned g = threadIdx.x;
    PathLength k = kUnreached;
    unsigned any = 0;
    for (unsigned w = 0; w < kSolveThreads / 32; ++w) {
      k = sh.warp_least[w][g] < k ? sh.warp_least[w][g] : k;
      any |= sh.warp_changed[w] >> g & 1u;
    }
    src_key[sh.group[g]] = k;
    src_changed[sh.group[g]] = any ? 1 : 0;
    if (k != kUnreached) atomicMin(reinterpret_cast<unsigned long long*>(&sh.tile_least), static_cast<unsigned long long>(k));
  }
}

// The solve of one active tile (a thread block per tile of the round's list). Its due sources (a
// source's least pending label, d_src_key, within the threshold) are taken in groups of
// kSolveGroup: one pass over the matrix rows that carry a due label of the group, thread j keeping
// the group's acc[j] in registers and the group's due labels of a chunk of rows in shared memory.
// Sources with nothing due cost nothing but their key: their labels and pending entries do not change
// (the CPU twin's shortcut), and their changed flag says that their `out` holds nothing, so the push
// does not read it.
static __global__ void gprime_solve(const PathLength* __restrict__ d_m, std::uint32_t b, std::uint32_t kb,
                                    PathLength max_cost, const PathLength* __restrict__ d_threshold,
                                    PathLength* __restrict__ d_key, const std::uint64_t* __restrict__ d_list,
                                    PathLength* __restrict__ d_label, PathLength* __restrict__ d_pending,
                                    PathLength* __restrict__ d_out, PathLength* __restrict__ d_src_key,
                                    std::uint8_t* __restrict__ d_src_changed, unsigned long long* __restrict__ d_due_sources) {
  __shared__ SolveShared sh;
  const std::uint64_t tile = d_list[blockIdx.x];
  const PathLength* m = d_m + tile * b * b;
  const PathLength threshold = *d_threshold;
  PathLength* src_key = d_src_key + tile * kb;
  std::uint8_t* src_changed = d_src_changed + tile * kb;
  if (threadIdx.x == 0) sh.tile_least = kUnreached;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  std::uint32_t next = 0;  // the first source not yet looked at
  unsigned long long due = 0;
  for (;;) {
    __syncthreads();
    if (warp == 0) take_due_group(kb, threshold, src_key, src_changed, lane, next, sh);
    __syncthreads();
    const unsigned size = sh.group_size;
    if (size == 0) break;
    due += size;
    const unsigned changed =
        solve_group_columns(m, b, kb, max_cost, threshold, tile, size, d_label, d_pending, d_out, sh);
    // (The pending entries change only now: with a ring wider than the block, a later slice of
    // columns reads every row's pending entries again.)
    __syncthreads();
    settle_group(b, kb, threshold, tile, size, changed, lane, warp, d_label, d_pending, src_key, src_changed, sh);
  }
  if (threadIdx.x == 0) {
    if (sh.tile_least != kUnreached)
      atomicMin(reinterpret_cast<unsigned long long*>(d_key + tile), static_cast<unsigned long long>(sh.tile_least));
    if (due) atomicAdd(d_due_sources, due);  // (statistics)
  }
}

// gprime_push for ring cell q of `tile` and the `count` sources v0.. of its push run: pulls
// min over in-edges s (from a neighbour whose source changed, bits changed[edge.from]) of
// out[from] + w into label and pending when smaller and <= max_cost, lowering the source's key.
// Returns the least label stored (kUnreached: none).
__device__ __forceinline__ PathLength pull_ring_cell(std::uint64_t tile, std::uint32_t q, std::uint32_t b,
                                                     std::uint32_t kb, std::uint32_t v0, std::uint32_t count,
                                                     PathLength max_cost, const unsigned* changed,
                                                     const GPrimeInEdge* __restrict__ d_edges,
                                                     const std::int64_t* __restrict__ nb,
                                                     const PathLength* __restrict__ d_out,
                                                     PathLength* __restrict__ d_label, PathLength* __restrict__ d_pending,
                                                     PathLength* __restrict__ d_src_key) {
  const std::uint64_t block = static_cast<std::uint64_t>(kb) * b;
  PathLength improved = kUnreached;
  const GPrimeInEdge* e = d_edges + (tile * b + q) * kGPrimeInEdges;
  const PathLength* from[kGPrimeInEdges];
  Weight w[kGPrimeInEdges];
  unsigned from_sources[kGPrimeInEdges];  // the sources each in-edge carries changes for (bits)
  unsigned cell_sources = 0;
#pragma unroll
  for (unsigned s = 0; s < kGPrimeInEdges; ++s) {
    const GPrimeInEdge edge = e[s];
    const std::int64_t src = edge.w == kNoEdge ? -1 : nb[edge.from];
    from_sources[s] = src >= 0 ? changed[edge.from] : 0u;
    from[s] = from_sources[s] ? d_out + static_cast<std::uint64_t>(src) * block + edge.p : nullptr;
    w[s] = edge.w;
    cell_sources |= from_sources[s];
  }
  if (cell_sources == 0) return improved;  // no in-edge of this ring cell brings a change
  for (unsigned g = 0; g < count; ++g) {
    const unsigned bit = 1u << g;
    if (!(cell_sources & bit)) continue;
    const std::uint64_t v = v0 + g;
    const std::uint64_t at = tile * block + v * b + q;
    const PathLength was = d_label[at];
    PathLength best = was;
#pragma unroll
    for (unsigned s = 0; s < kGPrimeInEdges; ++s) {
      if (!(from_sources[s] & bit)) continue;
      const PathLength o = from[s][v * b];
      if (o == kUnreached) continue;
      const PathLength c = o + w[s];
      if (c <= max_cost && c < best) best = c;
    }
    if (best < was) {
      d_label[at] = best;
      d_pending[at] = best;
      improved = best < improved ? best : improved;
      atomicMin(reinterpret_cast<unsigned long long*>(d_src_key + tile * kb + v), static_cast<unsigned long long>(best));
    }
  }
  return improved;
}

static __global__ void gprime_push(std::uint32_t b, std::uint32_t kb, PathLength max_cost,
                                   const GPrimeInEdge* __restrict__ d_edges, const std::int64_t* __restrict__ d_neighbours,
                                   const std::uint8_t* __restrict__ d_active, const PathLength* __restrict__ d_out,
                                   PathLength* __restrict__ d_label, PathLength* __restrict__ d_pending,
                                   PathLength* __restrict__ d_key, PathLength* __restrict__ d_src_key,
                                   const std::uint8_t* __restrict__ d_src_changed,
                                   const std::uint64_t* __restrict__ d_push_list,
                                   const unsigned long long* __restrict__ d_push_count) {
  static_assert(kPushRun <= 32, "a push run's sources are bits of one word");
  __shared__ unsigned changed_bits[9];
  const std::uint32_t runs = (kb + kPushRun - 1) / kPushRun;
  // The grid is sized for the most tiles the round can mark; the list holds the ones it did.
  if (blockIdx.x / runs >= *d_push_count) return;
  const std::uint64_t tile = d_push_list[blockIdx.x / runs];
  const std::uint32_t v0 = (blockIdx.x % runs) * kPushRun;
  const std::uint32_t count = min(kPushRun, kb - v0);
  const std::int64_t* nb = d_neighbours + tile * 9;
  // Per neighbour, a bit per source of this push run whose `out` holds a change this round (the
  // neighbour solved, and that source changed a ring label); no bit: nothing to pull.
  if (threadIdx.x < 9) changed_bits[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x < 9 * kPushRun) {
    const unsigned k = threadIdx.x / kPushRun, g = threadIdx.x % kPushRun;
    const std::int64_t n = nb[k];
    if (k != 4 && g < count && n >= 0 && d_active[n] && d_src_changed[static_cast<std::uint64_t>(n) * kb + v0 + g])
      atomicOr(&changed_bits[k], 1u << g);
  }
  __syncthreads();
  unsigned changed[9];
  bool any = false;
#pragma unroll
  for (int k = 0; k < 9; ++k) {
    changed[k] = changed_bits[k];
    any = any || changed[k] != 0;
  }
  if (!any) return;  // the same for the whole block
  PathLength improved = kUnreached;
  for (std::uint32_t q = threadIdx.x; q < b; q += blockDim.x) {
    const PathLength cell = pull_ring_cell(tile, q, b, kb, v0, count, max_cost, changed, d_edges, nb, d_out, d_label,
                                           d_pending, d_src_key);
    improved = cell < improved ? cell : improved;
  }
  if (improved != kUnreached)
    atomicMin(reinterpret_cast<unsigned long long*>(d_key + tile), static_cast<unsigned long long>(improved));
}

static __global__ void gprime_least_key(std::uint64_t tiles, const PathLength* __restrict__ d_key,
                                        unsigned long long* __restrict__ d_least) {
  PathLength least = kUnreached;
  for (std::uint64_t tile = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; tile < tiles;
       tile += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    least = d_key[tile] < least ? d_key[tile] : least;
  if (least != kUnreached) atomicMin(d_least, static_cast<unsigned long long>(least));
}

// The round's threshold from the least key, then the active tiles (key <= T), their keys reset (the
// solve sets them again from what stays pending).
static __global__ void gprime_select(std::uint64_t tiles, PathLength window, const unsigned long long* __restrict__ d_least,
                                     PathLength* __restrict__ d_threshold, PathLength* __restrict__ d_key,
                                     std::uint8_t* __restrict__ d_active, std::uint64_t* __restrict__ d_list,
                                     unsigned long long* __restrict__ d_count) {
  const PathLength least = *d_least;
  const PathLength threshold = gprime_round_threshold(least, window);
  if (blockIdx.x == 0 && threadIdx.x == 0) *d_threshold = threshold;
  for (std::uint64_t tile = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; tile < tiles;
       tile += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const PathLength key = d_key[tile];
    const bool a = key != kUnreached && key <= threshold;
    d_active[tile] = a;
    if (a) {
      d_key[tile] = kUnreached;
      d_list[atomicAdd(d_count, 1ull)] = tile;
    }
  }
}

// The tiles the round's pushes can change: every neighbour (the 3 x 3 around, the tile itself
// left out) of an active tile, marked once however many active tiles share it. (On 65,536 tiles
// the push had been 65,536 x 7 blocks a round whatever the active count; with the list its kernels
// took 3.3 s of 13.7 at K = 100 on 268 M cells: docs/benchmarks.md.)
static __global__ void gprime_mark_push(const std::uint64_t* __restrict__ d_list, const unsigned long long* __restrict__ d_count,
                                        const std::int64_t* __restrict__ d_neighbours, std::uint8_t* __restrict__ d_mark) {
  const std::uint64_t active = *d_count;
  for (std::uint64_t e = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; e < active * 9;
       e += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    if (e % 9 == 4) continue;
    const std::int64_t n = d_neighbours[d_list[e / 9] * 9 + e % 9];
    if (n >= 0) d_mark[n] = 1;
  }
}

// The marked tiles into the push list (any order: a push writes only its own tile), marks cleared.
static __global__ void gprime_list_push(std::uint64_t tiles, std::uint8_t* __restrict__ d_mark,
                                        std::uint64_t* __restrict__ d_push_list, unsigned long long* __restrict__ d_push_count) {
  for (std::uint64_t tile = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; tile < tiles;
       tile += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    if (!d_mark[tile]) continue;
    d_mark[tile] = 0;
    d_push_list[atomicAdd(d_push_count, 1ull)] = tile;
  }
}

}  // namespace

struct GPrimeRoundsCuda::State {
  cuda::CudaStream stream;
  cuda::DeviceBuffer<PathLength> matrices, label, pending, out;
  cuda::DeviceBuffer<GPrimeInEdge> edges;
  cuda::DeviceBuffer<std::int64_t> neighbours;
  cuda::DeviceBuffer<std::uint8_t> active;
  cuda::DeviceBuffer<PathLength> key, threshold;
  cuda::DeviceBuffer<PathLength> src_key;        // per (tile, source): its least pending label
  cuda::DeviceBuffer<std::uint8_t> src_changed;  // per (tile, source): its out holds a change this round
  cuda::DeviceBuffer<std::uint64_t> list;
  cuda::DeviceBuffer<unsigned long long> count;  // [0] active tiles, [1] least key, [2] push tiles, [3] due sources
  cuda::DeviceBuffer<std::uint8_t> push_mark;     // per tile: a push may change it this round
  cuda::DeviceBuffer<std::uint64_t> push_list;
  std::vector<cuda::PinnedBuffer<PathLength>> staging;  // begin_staging .. finish_staging
  std::vector<std::unique_ptr<cuda::CudaEvent>> staged;  // per slot: its last copy
  std::uint64_t chunk = 0;
};

GPrimeRoundsCuda::GPrimeRoundsCuda(std::uint32_t b, std::uint64_t tiles, std::uint64_t kb_max)
    : state_(new State), b_(b), tiles_(tiles), kb_max_(kb_max) {
  if (b == 0 || tiles == 0 || kb_max == 0) throw Error("GPrimeRoundsCuda: no tile or source");
  State& s = *state_;
  const std::uint64_t labels = tiles * kb_max * b;
  s.matrices.resize(tiles * b * b);
  s.label.resize(labels);
  s.pending.resize(labels);
  s.out.resize(labels);
  s.edges.resize(tiles * b * kGPrimeInEdges);
  s.neighbours.resize(tiles * 9);
  s.active.resize(tiles);
  s.key.resize(tiles);
  s.src_key.resize(tiles * kb_max);
  s.src_changed.resize(tiles * kb_max);
  s.threshold.resize(1);
  s.list.resize(tiles);
  s.count.resize(4);
  s.push_mark.resize(tiles);
  s.push_list.resize(tiles);
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.active.get(), 0, tiles, s.stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.push_mark.get(), 0, tiles, s.stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.key.get(), 0xFF, tiles * sizeof(PathLength), s.stream.get()));
  s.stream.synchronize();
}

GPrimeRoundsCuda::~GPrimeRoundsCuda() = default;

void GPrimeRoundsCuda::upload_edges(const GPrimeInEdge* edges, const std::int64_t* neighbours) {
  State& s = *state_;
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.edges.get(), edges, s.edges.bytes(), cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.neighbours.get(), neighbours, s.neighbours.bytes(), cudaMemcpyHostToDevice));
}

void GPrimeRoundsCuda::upload_matrix(std::uint64_t d, const PathLength* matrix) {
  if (d >= tiles_) throw Error("GPrimeRoundsCuda::upload_matrix: tile out of range");
  const std::uint64_t b2 = static_cast<std::uint64_t>(b_) * b_;
  TERRAZO_CUDA_CHECK(cudaMemcpy(state_->matrices.get() + d * b2, matrix, b2 * sizeof(PathLength), cudaMemcpyHostToDevice));
}

PathLength* GPrimeRoundsCuda::device_matrices(std::uint64_t first) {
  if (first >= tiles_) throw Error("GPrimeRoundsCuda::device_matrices: tile out of range");
  return state_->matrices.get() + first * b_ * b_;
}

void GPrimeRoundsCuda::download_matrix(std::uint64_t d, PathLength* matrix) const {
  if (d >= tiles_) throw Error("GPrimeRoundsCuda::download_matrix: tile out of range");
  const std::uint64_t b2 = static_cast<std::uint64_t>(b_) * b_;
  TERRAZO_CUDA_CHECK(cudaMemcpy(matrix, state_->matrices.get() + d * b2, b2 * sizeof(PathLength), cudaMemcpyDeviceToHost));
}

void GPrimeRoundsCuda::begin_staging(unsigned slots, std::uint64_t chunk) {
  State& s = *state_;
  if (slots == 0 || chunk == 0) throw Error("GPrimeRoundsCuda::begin_staging: no slot");
  const std::uint64_t b2 = static_cast<std::uint64_t>(b_) * b_;
  s.staging.clear();
  s.staged.clear();
  for (unsigned i = 0; i < slots; ++i) {
    s.staging.emplace_back(chunk * b2);
    s.staged.push_back(std::make_unique<cuda::CudaEvent>());
  }
  s.chunk = chunk;
}

PathLength* GPrimeRoundsCuda::staging(unsigned slot) { return state_->staging.at(slot).get(); }

void GPrimeRoundsCuda::wait_staging(unsigned slot) const { state_->staged.at(slot)->synchronize(); }

void GPrimeRoundsCuda::upload_staged(unsigned slot, std::uint64_t first, std::uint64_t count) {
  State& s = *state_;
  if (count > s.chunk || first + count > tiles_) throw Error("GPrimeRoundsCuda::upload_staged: tiles out of range");
  const std::uint64_t b2 = static_cast<std::uint64_t>(b_) * b_;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(s.matrices.get() + first * b2, s.staging.at(slot).get(), count * b2 * sizeof(PathLength),
                                     cudaMemcpyHostToDevice, s.stream.get()));
  s.staged[slot]->record(s.stream.get());
}

void GPrimeRoundsCuda::finish_staging() {
  State& s = *state_;
  s.stream.synchronize();
  s.staging.clear();
  s.staged.clear();
  s.chunk = 0;
}

void GPrimeRoundsCuda::reset(std::uint64_t kb) {
  if (kb == 0 || kb > kb_max_) throw Error("GPrimeRoundsCuda::reset: batch out of range");
  kb_ = kb;
  State& s = *state_;
  const std::uint64_t bytes = tiles_ * kb * b_ * sizeof(PathLength);
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.label.get(), 0xFF, bytes, s.stream.get()));  // kUnreached: all ones
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.pending.get(), 0xFF, bytes, s.stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.active.get(), 0, tiles_, s.stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.key.get(), 0xFF, tiles_ * sizeof(PathLength), s.stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.src_key.get(), 0xFF, tiles_ * kb * sizeof(PathLength), s.stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.src_changed.get(), 0, tiles_ * kb, s.stream.get()));
  s.stream.synchronize();
}

void GPrimeRoundsCuda::seed(std::uint64_t d, const PathLength* labels) {
  if (d >= tiles_ || kb_ == 0) throw Error("GPrimeRoundsCuda::seed: tile out of range or no reset");
  State& s = *state_;
  const std::uint64_t block = kb_ * b_;
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.label.get() + d * block, labels, block * sizeof(PathLength), cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.pending.get() + d * block, labels, block * sizeof(PathLength), cudaMemcpyHostToDevice));
  PathLength key = kUnreached;
  std::vector<PathLength> src_keys(kb_, kUnreached);
  for (std::uint64_t e = 0; e < block; ++e) {
    PathLength& sk = src_keys[e / b_];
    sk = labels[e] < sk ? labels[e] : sk;
    key = labels[e] < key ? labels[e] : key;
  }
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.key.get() + d, &key, sizeof key, cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.src_key.get() + d * kb_, src_keys.data(), kb_ * sizeof(PathLength), cudaMemcpyHostToDevice));
}

std::uint64_t GPrimeRoundsCuda::run(PathLength max_cost, PathLength window, std::vector<std::uint64_t>* active_per_round) {
  State& s = *state_;
  cudaStream_t stream = s.stream.get();
  const auto kb = static_cast<std::uint32_t>(kb_);
  const unsigned compact_blocks = static_cast<unsigned>(std::min<std::uint64_t>((tiles_ + 255) / 256, 4096));
  const std::uint64_t push_runs = (kb_ + kPushRun - 1) / kPushRun;
  if (tiles_ * push_runs > 0x7FFFFFFFull) throw Error("GPrimeRoundsCuda::run: too many blocks");
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.count.get() + 3, 0, sizeof(unsigned long long), stream));
  cuda::CudaEvent start, stop;
  // Per round: before the solves, before the pushes, after them; read at the next round's
  // synchronisation (done by then). The rest of the time (selection, push lists, the host's turn
  // at each round's synchronisation) is the selection's.
  cuda::CudaEvent solve_start, push_start, push_end;
  double solve_ms = 0, push_ms = 0;
  auto elapsed = [](const cuda::CudaEvent& a, const cuda::CudaEvent& b) {
    float ms = 0;
    TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
    return static_cast<double>(ms);
  };
  TERRAZO_CUDA_CHECK(cudaEventRecord(start.get(), stream));
  std::uint64_t solves = 0;
  bool solved_before = false;
  for (;;) {
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.count.get(), 0, sizeof(unsigned long long), stream));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.count.get() + 1, 0xFF, sizeof(unsigned long long), stream));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.count.get() + 2, 0, sizeof(unsigned long long), stream));
    gprime_least_key<<<compact_blocks, 256, 0, stream>>>(tiles_, s.key.get(), s.count.get() + 1);
    TERRAZO_CUDA_CHECK_LAUNCH();
    gprime_select<<<compact_blocks, 256, 0, stream>>>(tiles_, window, s.count.get() + 1, s.threshold.get(), s.key.get(),
                                                      s.active.get(), s.list.get(), s.count.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    unsigned long long active = 0;
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&active, s.count.get(), sizeof active, cudaMemcpyDeviceToHost, stream));
    TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (solved_before) {  // the previous round's
      solve_ms += elapsed(solve_start, push_start);
      push_ms += elapsed(push_start, push_end);
    }
    if (active == 0) break;
    if (active_per_round) active_per_round->push_back(active);
    solves += active;
    // The push list: neighbours of the active tiles (at most 8 each, at most every tile).
    const std::uint64_t most_pushed = std::min<std::uint64_t>(tiles_, 8 * active);
    const unsigned mark_blocks = static_cast<unsigned>(std::min<std::uint64_t>((9 * active + 255) / 256, 4096));
    gprime_mark_push<<<mark_blocks, 256, 0, stream>>>(s.list.get(), s.count.get(), s.neighbours.get(), s.push_mark.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    gprime_list_push<<<compact_blocks, 256, 0, stream>>>(tiles_, s.push_mark.get(), s.push_list.get(), s.count.get() + 2);
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaEventRecord(solve_start.get(), stream));
    gprime_solve<<<static_cast<unsigned>(active), kSolveThreads, 0, stream>>>(
        s.matrices.get(), b_, kb, max_cost, s.threshold.get(), s.key.get(), s.list.get(), s.label.get(), s.pending.get(),
        s.out.get(), s.src_key.get(), s.src_changed.get(), s.count.get() + 3);
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaEventRecord(push_start.get(), stream));
    gprime_push<<<static_cast<unsigned>(most_pushed * push_runs), kPushThreads, 0, stream>>>(
        b_, kb, max_cost, s.edges.get(), s.neighbours.get(), s.active.get(), s.out.get(), s.label.get(), s.pending.get(),
        s.key.get(), s.src_key.get(), s.src_changed.get(), s.push_list.get(), s.count.get() + 2);
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaEventRecord(push_end.get(), stream));
    solved_before = true;
  }
  TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
  TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream));
  float ms = 0;
  TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  kernel_ms_ += ms;
  unsigned long long due_sources = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpy(&due_sources, s.count.get() + 3, sizeof due_sources, cudaMemcpyDeviceToHost));
  due_sources_ += due_sources;
  solve_ms_ += solve_ms;
  push_ms_ += push_ms;
  select_ms_ += std::max(0.0, ms - solve_ms - push_ms);
  return solves;
}

void GPrimeRoundsCuda::download(std::uint64_t d, PathLength* labels) const {
  if (d >= tiles_ || kb_ == 0) throw Error("GPrimeRoundsCuda::download: tile out of range or no reset");
  const std::uint64_t block = kb_ * b_;
  TERRAZO_CUDA_CHECK(cudaMemcpy(labels, state_->label.get() + d * block, block * sizeof(PathLength), cudaMemcpyDeviceToHost));
}

}  // namespace terrazo
