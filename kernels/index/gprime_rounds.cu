// kernels/index/gprime_rounds.cu: the CUDA twin of gprime_rounds.h. Per round three launches on one
// stream: the solves of the active tiles (a thread block per (tile, run of kSolveRun sources): thread
// j keeps the run's acc[j] in registers and walks the matrix rows that carry a pending label, the
// run's pending entries of a chunk of rows in shared memory, so each matrix entry read serves the run;
// consecutive blocks are the same tile's runs, so its matrix is read from L2; a run with nothing due
// only clears its `out` and reports its least pending label), the push into every
// tile next to an active one (a thread block per (tile, run of kPushRun sources), thread q reads its
// in-edges once, improvements lower the tile's key by atomicMin), then the next round's threshold
// (the least key) and its active tiles, compacted into a list (their order does not matter: a tile's
// solve reads and writes only its own labels). The host reads back the active count. The push runs
// over the tiles next to an active one only (marked from the active list, then compacted: a push
// reads the `out` of active neighbours alone, so no other tile can change), not over all tiles.
// Contract: gprime_rounds.h.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/error.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/index/gprime_rounds.h"

namespace terrazo {
namespace {

constexpr unsigned kSolveThreads = 256, kSolveRun = 8, kSolveChunk = 128;
constexpr unsigned kPushThreads = 256, kPushRun = 16;

static __global__ void gprime_solve(const PathLength* __restrict__ d_m, std::uint32_t b, std::uint32_t kb,
                                    PathLength max_cost, const PathLength* __restrict__ d_threshold,
                                    PathLength* __restrict__ d_key, const std::uint64_t* __restrict__ d_list,
                                    PathLength* __restrict__ d_label, PathLength* __restrict__ d_pending,
                                    PathLength* __restrict__ d_out, PathLength* __restrict__ d_run_key,
                                    std::uint8_t* __restrict__ d_run_changed, unsigned long long* __restrict__ d_due_runs) {
  __shared__ PathLength xs[kSolveRun][kSolveChunk];
  __shared__ PathLength warp_least[kSolveThreads / 32];
  const std::uint32_t runs = (kb + kSolveRun - 1) / kSolveRun;
  const std::uint64_t tile = d_list[blockIdx.x / runs];
  const std::uint32_t v0 = (blockIdx.x % runs) * kSolveRun;
  const std::uint32_t count = min(kSolveRun, kb - v0);
  const PathLength* m = d_m + tile * b * b;
  const std::uint64_t base = (tile * kb + v0) * b;
  PathLength* x = d_pending + base;
  PathLength* y = d_label + base;
  PathLength* o = d_out + base;
  const PathLength threshold = *d_threshold;
  // The run's least pending label is kept in d_run_key, so a run with nothing due (most runs of a
  // round: the fronts of the other sources are elsewhere) costs no pass over its labels: its labels
  // and pending entries do not change (the CPU twin's shortcut), it only gives the tile its key and
  // marks its `out` as holding nothing, which the push then does not read.
  PathLength* run_key = d_run_key + tile * runs + blockIdx.x % runs;
  std::uint8_t* run_changed = d_run_changed + tile * runs + blockIdx.x % runs;
  if (*run_key > threshold) {
    if (threadIdx.x == 0) {
      *run_changed = 0;
      if (*run_key != kUnreached)
        atomicMin(reinterpret_cast<unsigned long long*>(d_key + tile), static_cast<unsigned long long>(*run_key));
    }
    return;
  }
  if (threadIdx.x == 0 && *run_key != kUnreached) atomicAdd(d_due_runs, 1ull);  // (statistics)
  int changed = 0;
  for (std::uint32_t j0 = 0; j0 < b; j0 += blockDim.x) {
    const std::uint32_t j = j0 + threadIdx.x;
    const bool active = j < b;
    PathLength acc[kSolveRun];
#pragma unroll
    for (unsigned g = 0; g < kSolveRun; ++g) acc[g] = active && g < count ? y[static_cast<std::uint64_t>(g) * b + j] : kUnreached;
    for (std::uint32_t i0 = 0; i0 < b; i0 += kSolveChunk) {
      const std::uint32_t rows = min(static_cast<std::uint32_t>(kSolveChunk), b - i0);
      __syncthreads();
      int mine = 0;
      for (unsigned e = threadIdx.x; e < kSolveRun * kSolveChunk; e += blockDim.x) {
        const unsigned g = e / kSolveChunk, i = e % kSolveChunk;
        PathLength value = g < count && i < rows ? x[static_cast<std::uint64_t>(g) * b + i0 + i] : kUnreached;
        if (value > threshold) value = kUnreached;  // not due this round
        xs[g][i] = value;
        mine |= value != kUnreached;
      }
      if (!__syncthreads_or(mine)) continue;  // no pending label in these rows
      if (active)
        for (std::uint32_t i = 0; i < rows; ++i) {
          bool row = false;
#pragma unroll
          for (unsigned g = 0; g < kSolveRun; ++g) row = row || xs[g][i] != kUnreached;
          if (!row) continue;  // the same for every thread of the block
          const PathLength mij = m[static_cast<std::uint64_t>(i0 + i) * b + j];
#pragma unroll
          for (unsigned g = 0; g < kSolveRun; ++g) {
            const PathLength via = min_plus_add(xs[g][i], mij);
            acc[g] = via < acc[g] ? via : acc[g];
          }
        }
    }
    if (active)
      for (unsigned g = 0; g < count; ++g) {
        const std::uint64_t at = static_cast<std::uint64_t>(g) * b + j;
        const PathLength now = acc[g] > max_cost ? kUnreached : acc[g];
        const PathLength xj = x[at];
        const PathLength out = now < y[at] || (xj != kUnreached && xj <= threshold) ? now : kUnreached;
        o[at] = out;
        changed |= out != kUnreached;
        y[at] = now;
      }
  }
  changed = __syncthreads_or(changed);  // also: every thread has read the pending labels
  // Pending entries that were due, or that the solve improved on (dominated), are cleared; the rest
  // give the tile's key.
  PathLength key = kUnreached;
  for (std::uint64_t e = threadIdx.x; e < static_cast<std::uint64_t>(count) * b; e += blockDim.x) {
    const PathLength xe = x[e];
    if (xe == kUnreached) continue;
    if (xe <= threshold || y[e] < xe) x[e] = kUnreached;
    else key = xe < key ? xe : key;
  }
  // The run's least pending label: the block's minimum.
  for (int offset = 16; offset > 0; offset >>= 1) {
    const PathLength other = __shfl_down_sync(0xFFFFFFFFu, key, offset);
    key = other < key ? other : key;
  }
  if ((threadIdx.x & 31u) == 0) warp_least[threadIdx.x >> 5] = key;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < kSolveThreads / 32; ++w) key = warp_least[w] < key ? warp_least[w] : key;
    *run_key = key;
    *run_changed = changed ? 1 : 0;
    if (key != kUnreached) atomicMin(reinterpret_cast<unsigned long long*>(d_key + tile), static_cast<unsigned long long>(key));
  }
}

static __global__ void gprime_push(std::uint32_t b, std::uint32_t kb, PathLength max_cost,
                                   const GPrimeInEdge* __restrict__ d_edges, const std::int64_t* __restrict__ d_neighbours,
                                   const std::uint8_t* __restrict__ d_active, const PathLength* __restrict__ d_out,
                                   PathLength* __restrict__ d_label, PathLength* __restrict__ d_pending,
                                   PathLength* __restrict__ d_key, PathLength* __restrict__ d_run_key,
                                   const std::uint8_t* __restrict__ d_run_changed,
                                   const std::uint64_t* __restrict__ d_push_list,
                                   const unsigned long long* __restrict__ d_push_count) {
  static_assert(kPushRun % kSolveRun == 0, "a push run covers whole solve runs");
  constexpr unsigned kSolveRunsPerPush = kPushRun / kSolveRun;
  const std::uint32_t runs = (kb + kPushRun - 1) / kPushRun;
  const std::uint32_t solve_runs = (kb + kSolveRun - 1) / kSolveRun;
  // The grid is sized for the most tiles the round can mark; the list holds the ones it did.
  if (blockIdx.x / runs >= *d_push_count) return;
  const std::uint64_t tile = d_push_list[blockIdx.x / runs];
  const std::uint32_t v0 = (blockIdx.x % runs) * kPushRun;
  const std::uint32_t count = min(kPushRun, kb - v0);
  const std::uint32_t r0 = v0 / kSolveRun;  // the first solve run of this push run
  const std::int64_t* nb = d_neighbours + tile * 9;
  // Per neighbour, a bit per solve run of this push run whose `out` holds a change this round (the
  // neighbour solved, and that run of sources changed a ring label); no bit: nothing to pull.
  unsigned changed[9];
  bool any = false;
  for (int k = 0; k < 9; ++k) {
    changed[k] = 0;
    if (k == 4 || nb[k] < 0 || !d_active[nb[k]]) continue;
    for (unsigned r = 0; r < kSolveRunsPerPush && r0 + r < solve_runs; ++r)
      if (d_run_changed[static_cast<std::uint64_t>(nb[k]) * solve_runs + r0 + r]) changed[k] |= 1u << r;
    any = any || changed[k] != 0;
  }
  if (!any) return;  // the same for the whole block
  const std::uint64_t block = static_cast<std::uint64_t>(kb) * b;
  PathLength improved = kUnreached;
  for (std::uint32_t q = threadIdx.x; q < b; q += blockDim.x) {
    const GPrimeInEdge* e = d_edges + (tile * b + q) * kGPrimeInEdges;
    const PathLength* from[kGPrimeInEdges];
    Weight w[kGPrimeInEdges];
    unsigned from_runs[kGPrimeInEdges];  // the solve runs each in-edge carries changes for
    unsigned cell_runs = 0;
#pragma unroll
    for (unsigned s = 0; s < kGPrimeInEdges; ++s) {
      const GPrimeInEdge edge = e[s];
      const std::int64_t src = edge.w == kNoEdge ? -1 : nb[edge.from];
      from_runs[s] = src >= 0 ? changed[edge.from] : 0u;
      from[s] = from_runs[s] ? d_out + static_cast<std::uint64_t>(src) * block + edge.p : nullptr;
      w[s] = edge.w;
      cell_runs |= from_runs[s];
    }
    if (cell_runs == 0) continue;  // no in-edge of this ring cell brings a change
    for (unsigned g = 0; g < count; ++g) {
      const unsigned run_bit = 1u << (g / kSolveRun);
      if (!(cell_runs & run_bit)) continue;
      const std::uint64_t v = v0 + g;
      const std::uint64_t at = tile * block + v * b + q;
      const PathLength was = d_label[at];
      PathLength best = was;
#pragma unroll
      for (unsigned s = 0; s < kGPrimeInEdges; ++s) {
        if (!(from_runs[s] & run_bit)) continue;
        const PathLength o = from[s][v * b];
        if (o == kUnreached) continue;
        const PathLength c = o + w[s];
        if (c <= max_cost && c < best) best = c;
      }
      if (best < was) {
        d_label[at] = best;
        d_pending[at] = best;
        improved = best < improved ? best : improved;
        atomicMin(reinterpret_cast<unsigned long long*>(d_run_key + tile * solve_runs + v / kSolveRun),
                  static_cast<unsigned long long>(best));
      }
    }
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
  cuda::DeviceBuffer<PathLength> run_key;         // per (tile, run of kSolveRun sources): least pending label
  cuda::DeviceBuffer<std::uint8_t> run_changed;   // per (tile, run): its out holds a change this round
  cuda::DeviceBuffer<std::uint64_t> list;
  cuda::DeviceBuffer<unsigned long long> count;  // [0] active tiles, [1] least key, [2] push tiles, [3] due runs
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
  s.run_key.resize(tiles * ((kb_max + kSolveRun - 1) / kSolveRun));
  s.run_changed.resize(tiles * ((kb_max + kSolveRun - 1) / kSolveRun));
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
  const std::uint64_t runs = (kb + kSolveRun - 1) / kSolveRun;
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.run_key.get(), 0xFF, tiles_ * runs * sizeof(PathLength), s.stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(s.run_changed.get(), 0, tiles_ * runs, s.stream.get()));
  s.stream.synchronize();
}

void GPrimeRoundsCuda::seed(std::uint64_t d, const PathLength* labels) {
  if (d >= tiles_ || kb_ == 0) throw Error("GPrimeRoundsCuda::seed: tile out of range or no reset");
  State& s = *state_;
  const std::uint64_t block = kb_ * b_;
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.label.get() + d * block, labels, block * sizeof(PathLength), cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.pending.get() + d * block, labels, block * sizeof(PathLength), cudaMemcpyHostToDevice));
  PathLength key = kUnreached;
  const std::uint64_t runs = (kb_ + kSolveRun - 1) / kSolveRun;
  std::vector<PathLength> run_keys(runs, kUnreached);
  for (std::uint64_t e = 0; e < block; ++e) {
    PathLength& rk = run_keys[e / b_ / kSolveRun];
    rk = labels[e] < rk ? labels[e] : rk;
    key = labels[e] < key ? labels[e] : key;
  }
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.key.get() + d, &key, sizeof key, cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(cudaMemcpy(s.run_key.get() + d * runs, run_keys.data(), runs * sizeof(PathLength), cudaMemcpyHostToDevice));
}

std::uint64_t GPrimeRoundsCuda::run(PathLength max_cost, PathLength window, std::vector<std::uint64_t>* active_per_round) {
  State& s = *state_;
  cudaStream_t stream = s.stream.get();
  const auto kb = static_cast<std::uint32_t>(kb_);
  const unsigned compact_blocks = static_cast<unsigned>(std::min<std::uint64_t>((tiles_ + 255) / 256, 4096));
  const std::uint64_t solve_runs = (kb_ + kSolveRun - 1) / kSolveRun, push_runs = (kb_ + kPushRun - 1) / kPushRun;
  if (tiles_ * std::max(solve_runs, push_runs) > 0x7FFFFFFFull) throw Error("GPrimeRoundsCuda::run: too many blocks");
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
    gprime_solve<<<static_cast<unsigned>(active * solve_runs), kSolveThreads, 0, stream>>>(
        s.matrices.get(), b_, kb, max_cost, s.threshold.get(), s.key.get(), s.list.get(), s.label.get(), s.pending.get(),
        s.out.get(), s.run_key.get(), s.run_changed.get(), s.count.get() + 3);
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaEventRecord(push_start.get(), stream));
    gprime_push<<<static_cast<unsigned>(most_pushed * push_runs), kPushThreads, 0, stream>>>(
        b_, kb, max_cost, s.edges.get(), s.neighbours.get(), s.active.get(), s.out.get(), s.label.get(), s.pending.get(),
        s.key.get(), s.run_key.get(), s.run_changed.get(), s.push_list.get(), s.count.get() + 2);
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaEventRecord(push_end.get(), stream));
    solved_before = true;
  }
  TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
  TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream));
  float ms = 0;
  TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  kernel_ms_ += ms;
  unsigned long long due_runs = 0;
  TERRAZO_CUDA_CHECK(cudaMemcpy(&due_runs, s.count.get() + 3, sizeof due_runs, cudaMemcpyDeviceToHost));
  due_runs_ += due_runs;
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
