// kernels/clump/label_tile.cu: the CUDA twin of label_tile_cpu (kernels/clump/label_tile.h), many
// tiles per launch, and the streamed CudaClumpBatchSolver (kernels/clump/label_tile_solver.h).
//
// Same contract as the CPU twin: labels[i] = the tile-local region of cell i, numbered in
// row-major order of each region's first cell, kNoRegion where the key is NaN; regions[tile] = the
// count. The labels are a pure function of the keys, so both twins give the same bits.
//
// How (a union-find whose roots are first cells, as the CPU twin, but built in parallel):
//   1. link_subtiles: one thread block per S x S subtile (S = min(t, 32)): the subtile's keys and a
//      parent array in shared memory (seed 004's lesson: the neighbourhood a block reads stays on
//      chip [Leist2009, sec. 2.2.3, 3.1.7]; the halo that their kernel B loads with surplus threads
//      is handled instead by a second pass over the subtile edges, so no thread idles; the
//      frontier/visited arrays of a BFS [CS179-BFS, "GPU BFS"] become one parent array, since
//      label propagation by BFS needs a round per cell of the longest region path, union-find
//      a few): every cell unites with its W, N (and NW, NE) neighbours in the
//      subtile when the keys are equal, by atomicMin on the larger root (so parent[x] <= x always
//      and a root is its set's smallest cell); the flattened roots go to the tile's global parents
//      as tile-local ids.
//   2. link_seams (t > 32): the cells on a subtile's edge unite, in global memory with the same
//      atomicMin rule, with their neighbours in the other subtiles.
//   3. flatten: parent[i] = root(i). A root is the smallest cell id of its region: its first cell.
//   4. count_roots / scan_chunk_counts / number_roots: the roots numbered in row-major order by a
//      prefix sum per tile (chunks of 1024 cells, block_exclusive_scan).
//   5. label_members: every other cell takes its root's number; NaN cells kNoRegion.
// Every link joins a larger root under a smaller one of the same region, so the final forest is
// the same whatever order the atomics land in: deterministic.
// Keys arrive coded (kernels/clump/clump_key_code.h: doubles, or 4- or 2-byte codes that keep
// equality exactly): every kernel is a template on the key type, with is_key per type.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/clump/clump_key_code.h"
#include "kernels/clump/label_tile.h"
#include "kernels/clump/label_tile_solver.h"
#include "kernels/common/block_scan.cuh"
#include "kernels/common/cuda_device.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/common/two_slot_batch.cuh"

namespace terrazo {
namespace {

constexpr std::uint32_t kSubtile = 32;        // subtile edge (t >= 32), else t
constexpr unsigned kLinkThreads = 256;        // threads of link_subtiles
constexpr unsigned kChunk = 1024;             // cells per numbering chunk (= threads of its blocks)
constexpr unsigned kThreads = 256;            // threads of the elementwise kernels

__device__ __forceinline__ bool is_key(double k) { return k == k; }
__device__ __forceinline__ bool is_key(std::uint32_t k) { return k != kNoKey32; }
__device__ __forceinline__ bool is_key(std::uint16_t k) { return k != kNoKey16; }

// Volatile loads: other threads lower parents concurrently (a stale value is still an ancestor).
__device__ __forceinline__ std::uint32_t find_root(const std::uint32_t* parent_in, std::uint32_t i) {
  const volatile std::uint32_t* parent = parent_in;
  std::uint32_t p = parent[i];
  while (p != i) {
    i = p;
    p = parent[i];
  }
  return i;
}

// Joins the sets of a and b: the larger root is linked under the smaller by atomicMin; when
// another thread moved the larger root first, its new parent is joined instead.
__device__ __forceinline__ void unite(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
  for (;;) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return;
    if (a < b) {
      const std::uint32_t s = a;
      a = b;
      b = s;
    }
    const std::uint32_t old = atomicMin(parent + a, b);
    if (old == a) return;
    a = old;
  }
}

// 1. One block per subtile: shared-memory union-find of the subtile, roots written as tile-local ids.
// Unites are few, so their atomics rarely meet (uniting every cell with each equal neighbour makes
// every thread of a uniform subtile contend for one root; docs/clump.md has the measurement):
//   a. runs: the cells of a row equal to their W neighbour join the run that starts at the nearest
//      cell to their left that is not (one ballot per row: a warp holds 32 / s rows of s cells);
//      the run start, the run's smallest cell, is the parent, so parent[x] <= x still holds;
//   b. a cell unites with its N neighbour only where no cell to its left in its run already joined
//      that run of the row above (W equal and NW equal), and (8-connectivity) with NW only where
//      neither W nor N is equal, with NE only where neither N nor E is equal: in every case left out,
//      the run of the row above is reached through a unite that is made (docs/clump.md "The GPU's
//      kernels"). The sets, and their smallest cells, are those of uniting every equal pair.
template <typename Key>
__global__ void link_subtiles(const Key* __restrict__ d_keys, std::uint32_t t, std::uint32_t s, bool eight,
                              std::uint32_t* __restrict__ d_parent) {
  __shared__ Key s_key[kSubtile * kSubtile];
  __shared__ std::uint32_t s_parent[kSubtile * kSubtile];
  const std::uint32_t per_row = t / s;
  const std::uint64_t subtiles_per_tile = static_cast<std::uint64_t>(per_row) * per_row;
  const std::uint64_t tile = blockIdx.x / subtiles_per_tile;
  const auto sub = static_cast<std::uint32_t>(blockIdx.x % subtiles_per_tile);
  const std::uint32_t x0 = (sub % per_row) * s, y0 = (sub / per_row) * s;
  const std::uint64_t base = tile * t * t;
  const std::uint32_t n = s * s;  // a multiple of 32 and of blockDim.x's warps' reach: every lane runs each loop
  for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x)
    s_key[j] = d_keys[base + static_cast<std::uint64_t>(y0 + j / s) * t + x0 + j % s];
  __syncthreads();
  const unsigned lane = threadIdx.x & 31u;
  for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
    const std::uint32_t x = j % s;
    const Key k = s_key[j];
    const bool joins_west = x > 0 && is_key(k) && s_key[j - 1] == k;
    const unsigned starts = __ballot_sync(cuda::kWarpFullMask, !joins_west);
    const unsigned row_lane0 = lane - x;  // the lane of this row's first cell
    const unsigned mine = (starts >> row_lane0) & ((2u << x) - 1u);  // this row's starts at or left of x
    s_parent[j] = j - x + (31u - static_cast<std::uint32_t>(__clz(mine)));
  }
  __syncthreads();
  for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
    const Key k = s_key[j];
    const std::uint32_t x = j % s, y = j / s;
    if (!is_key(k) || y == 0) continue;
    const bool w = x > 0 && s_key[j - 1] == k;
    const bool north = s_key[j - s] == k;
    if (north && !(w && s_key[j - s - 1] == k)) unite(s_parent, j, j - s);
    if (eight) {
      if (x > 0 && !w && !north && s_key[j - s - 1] == k) unite(s_parent, j, j - s - 1);
      if (x + 1 < s && !north && s_key[j + 1] != k && s_key[j - s + 1] == k) unite(s_parent, j, j - s + 1);
    }
  }
  __syncthreads();
  for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
    const std::uint32_t r = find_root(s_parent, j);
    d_parent[base + static_cast<std::uint64_t>(y0 + j / s) * t + x0 + j % s] = (y0 + r / s) * t + x0 + r % s;
  }
}

// 2. Cells on a subtile's edge: unite with the neighbours in other subtiles (global memory).
template <typename Key>
__global__ void link_seams(const Key* __restrict__ d_keys, std::uint64_t cells, std::uint32_t t, std::uint32_t s,
                           bool eight, std::uint32_t* __restrict__ d_parent) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= cells) return;
  const std::uint64_t tt = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t base = g / tt * tt;
  const auto i = static_cast<std::uint32_t>(g - base);
  const std::uint32_t x = i % t, y = i / t;
  const bool west_edge = x % s == 0, north_edge = y % s == 0, east_edge = (x + 1) % s == 0;
  if (!west_edge && !north_edge && !east_edge) return;
  const Key* keys = d_keys + base;
  const Key k = keys[i];
  if (!is_key(k)) return;
  std::uint32_t* parent = d_parent + base;
  if (west_edge && x > 0 && keys[i - 1] == k) unite(parent, i, i - 1);
  if (north_edge && y > 0 && keys[i - t] == k) unite(parent, i, i - t);
  if (eight && y > 0) {
    if (x > 0 && (west_edge || north_edge) && keys[i - t - 1] == k) unite(parent, i, i - t - 1);
    if (x + 1 < t && (east_edge || north_edge) && keys[i - t + 1] == k) unite(parent, i, i - t + 1);
  }
}

// 3. parent[i] = root(i) for every key cell.
template <typename Key>
__global__ void flatten(const Key* __restrict__ d_keys, std::uint64_t cells, std::uint32_t t,
                        std::uint32_t* __restrict__ d_parent) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= cells) return;
  if (!is_key(d_keys[g])) return;
  const std::uint64_t tt = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t base = g / tt * tt;
  d_parent[g] = find_root(d_parent + base, static_cast<std::uint32_t>(g - base));
}

template <typename Key>
__device__ __forceinline__ bool is_root(const Key* d_keys, const std::uint32_t* d_parent, std::uint64_t base,
                                        std::uint32_t i) {
  return is_key(d_keys[base + i]) && d_parent[base + i] == i;
}

// 4a. Roots per chunk of kChunk cells (one block of kChunk threads per chunk).
template <typename Key>
__global__ void count_roots(const Key* __restrict__ d_keys, const std::uint32_t* __restrict__ d_parent,
                                   std::uint32_t t, std::uint32_t chunks_per_tile,
                                   std::uint32_t* __restrict__ d_chunk_count) {
  const std::uint64_t tile = blockIdx.x / chunks_per_tile;
  const std::uint32_t chunk = blockIdx.x % chunks_per_tile;
  const std::uint64_t base = tile * t * t;
  const std::uint32_t i = chunk * kChunk + threadIdx.x;
  const std::uint32_t flag = is_root(d_keys, d_parent, base, i) ? 1u : 0u;
  const unsigned votes = __syncthreads_count(flag);
  if (threadIdx.x == 0) d_chunk_count[blockIdx.x] = votes;
}

// 4b. Per tile (one block of kChunk threads): exclusive scan of its chunk counts, in place; the
// total is the tile's region count.
static __global__ void scan_chunk_counts(std::uint32_t chunks_per_tile, std::uint32_t* __restrict__ d_chunk_count,
                                         std::uint32_t* __restrict__ d_regions) {
  std::uint32_t* counts = d_chunk_count + static_cast<std::uint64_t>(blockIdx.x) * chunks_per_tile;
  std::uint32_t carry = 0;
  for (std::uint32_t begin = 0; begin < chunks_per_tile; begin += blockDim.x) {
    const std::uint32_t c = begin + threadIdx.x;
    const std::uint32_t v = c < chunks_per_tile ? counts[c] : 0u;
    std::uint32_t total = 0;
    const std::uint32_t before = cuda::block_exclusive_scan(v, &total);
    if (c < chunks_per_tile) counts[c] = carry + before;
    carry += total;
  }
  if (threadIdx.x == 0) d_regions[blockIdx.x] = carry;
}

// 4c. Each root's number: its chunk's offset + the roots before it in the chunk.
template <typename Key>
__global__ void number_roots(const Key* __restrict__ d_keys, const std::uint32_t* __restrict__ d_parent,
                                    std::uint32_t t, std::uint32_t chunks_per_tile,
                                    const std::uint32_t* __restrict__ d_chunk_offset,
                                    std::uint32_t* __restrict__ d_labels) {
  const std::uint64_t tile = blockIdx.x / chunks_per_tile;
  const std::uint32_t chunk = blockIdx.x % chunks_per_tile;
  const std::uint64_t base = tile * t * t;
  const std::uint32_t i = chunk * kChunk + threadIdx.x;
  const bool root = is_root(d_keys, d_parent, base, i);
  std::uint32_t total = 0;
  const std::uint32_t before = cuda::block_exclusive_scan(root ? 1u : 0u, &total);
  if (root) d_labels[base + i] = d_chunk_offset[blockIdx.x] + before;
}

// 5. Every other cell: its root's number; NaN keys kNoRegion.
template <typename Key>
__global__ void label_members(const Key* __restrict__ d_keys, const std::uint32_t* __restrict__ d_parent,
                                     std::uint64_t cells, std::uint32_t t, std::uint32_t* __restrict__ d_labels) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= cells) return;
  if (!is_key(d_keys[g])) {
    d_labels[g] = kNoRegion;
    return;
  }
  const std::uint64_t tt = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t base = g / tt * tt;
  const std::uint32_t r = d_parent[g];
  if (r != static_cast<std::uint32_t>(g - base)) d_labels[g] = d_labels[base + r];
}

// ---- the border summary (phase 1's batches; the twin of summarize_tile_border) ----------------

// 6a. Every region's cells (one atomic per run of equal labels in a warp: a warp's 32 cells lie in
// one tile, t^2 being a multiple of 32) and its first cell (the root: parent[i] == i after flatten).
static __global__ void region_cells_and_roots(const std::uint32_t* __restrict__ d_labels,
                                              const std::uint32_t* __restrict__ d_parent, std::uint64_t cells,
                                              std::uint32_t t, std::uint32_t* __restrict__ d_region_cells,
                                              std::uint32_t* __restrict__ d_root_cell) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint32_t l = g < cells ? d_labels[g] : kNoRegion;
  const std::uint64_t tt = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t base = g / tt * tt;
  const unsigned peers = __match_any_sync(cuda::kWarpFullMask, l);
  if (l == kNoRegion) return;
  if ((threadIdx.x & 31u) == static_cast<unsigned>(__ffs(peers) - 1))
    atomicAdd(d_region_cells + base + l, static_cast<std::uint32_t>(__popc(peers)));
  const auto i = static_cast<std::uint32_t>(g - base);
  if (d_parent[g] == i) d_root_cell[base + l] = i;
}

// 6b. One block per tile: the packed TileBorder (kernels/clump/label_tile.h ClumpSummaryLayout).
// d_scan (t^2 per tile, zeroed) first marks the regions on the ring, then holds (border regions
// before r) << 1 | mark; regions are numbered in row-major order of their first cells, so the
// regions of row y are [row_first[y], row_first[y + 1]) and "interior first cells of the row left
// of r" is a difference of two prefix counts.
static __global__ void summarize_tiles(const std::uint32_t* __restrict__ d_labels,
                                       const std::uint32_t* __restrict__ d_regions, std::uint32_t t,
                                       const std::uint32_t* __restrict__ d_region_cells,
                                       const std::uint32_t* __restrict__ d_root_cell, std::uint32_t* __restrict__ d_scan,
                                       ClumpSummaryLayout at, std::uint32_t* __restrict__ d_summary) {
  extern __shared__ std::uint32_t s_row_first[];  // t + 1
  __shared__ unsigned long long s_labelled, s_largest;
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * t * t;
  const std::uint32_t* lab = d_labels + base;
  const std::uint32_t* cells_of = d_region_cells + base;
  const std::uint32_t* root = d_root_cell + base;
  std::uint32_t* scan = d_scan + base;
  std::uint32_t* out = d_summary + blockIdx.x * at.words();
  const std::uint32_t regions = d_regions[blockIdx.x];
  if (threadIdx.x == 0) s_labelled = 0, s_largest = 0;
  for (std::uint32_t p = threadIdx.x; p < 4 * t; p += blockDim.x) {
    const std::uint32_t l = lab[ring_cell(p, t)];
    if (l != kNoRegion) scan[l] = 1;
  }
  __syncthreads();
  std::uint32_t carry = 0;
  unsigned long long labelled = 0, largest = 0;
  for (std::uint32_t begin = 0; begin < regions; begin += blockDim.x) {
    const std::uint32_t r = begin + threadIdx.x;
    const std::uint32_t mark = r < regions ? scan[r] : 0u;
    std::uint32_t total = 0;
    const std::uint32_t before = carry + cuda::block_exclusive_scan(mark, &total);
    if (r < regions) {
      scan[r] = before << 1 | mark;
      const std::uint32_t c = cells_of[r];
      labelled += c;
      if (mark) {
        out[at.region() + before] = r;
        out[at.first_cell() + before] = root[r];
        out[at.cells() + before] = c;
      } else if (c > largest) {
        largest = c;
      }
    }
    carry += total;
  }
  const std::uint32_t border = carry;
  atomicAdd(&s_labelled, labelled);
  atomicMax(&s_largest, largest);
  for (std::uint32_t y = threadIdx.x; y <= t; y += blockDim.x) {  // first region whose first cell is in row >= y
    std::uint32_t lo = 0, hi = regions;
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (root[mid] < y * t) lo = mid + 1;
      else hi = mid;
    }
    s_row_first[y] = lo;
  }
  __syncthreads();
  auto interior_before = [&](std::uint32_t r) { return r - (r < regions ? scan[r] >> 1 : border); };
  for (std::uint32_t y = threadIdx.x; y < t; y += blockDim.x)
    out[at.rows() + y] = interior_before(s_row_first[y + 1]) - interior_before(s_row_first[y]);
  for (std::uint32_t r = threadIdx.x; r < regions; r += blockDim.x) {
    const std::uint32_t v = scan[r];
    if (v & 1u) out[at.starts_before() + (v >> 1)] = interior_before(r) - interior_before(s_row_first[root[r] / t]);
  }
  for (std::uint32_t p = threadIdx.x; p < 4 * t; p += blockDim.x) {
    const std::uint32_t l = lab[ring_cell(p, t)];
    out[at.ring() + p] = l != kNoRegion && (scan[l] & 1u) ? scan[l] >> 1 : kNoRegion;
  }
  if (threadIdx.x == 0) {
    out[0] = border;
    out[1] = regions - border;
    out[2] = static_cast<std::uint32_t>(s_largest), out[3] = static_cast<std::uint32_t>(s_largest >> 32);
    out[4] = static_cast<std::uint32_t>(s_labelled), out[5] = static_cast<std::uint32_t>(s_labelled >> 32);
    out[6] = out[7] = 0;
  }
}

std::uint32_t chunks_per_tile(std::uint32_t t) { return std::max<std::uint32_t>(1, t * t / kChunk); }

unsigned blocks_for(std::uint64_t items, unsigned threads) {
  const std::uint64_t blocks = (items + threads - 1) / threads;
  if (blocks > 0x7FFFFFFFull) throw Error("label_tile_cuda: a batch of " + std::to_string(items) + " cells is too large for one launch");
  return static_cast<unsigned>(blocks);
}

// Device buffers of one batch of `capacity` tiles.
struct DeviceTiles {
  cuda::DeviceBuffer<unsigned char> keys;  // coded keys (ClumpKeyCode)
  cuda::DeviceBuffer<std::uint32_t> parent, labels, chunk_count, regions;
  cuda::DeviceBuffer<std::uint32_t> region_cells, region_scan, root_cell, summary;  // the border summary
  void resize(std::uint64_t capacity, std::uint32_t t, ClumpKeyCode code) {
    const std::uint64_t cells = capacity * t * t;
    region_cells.resize(cells);
    region_scan.resize(cells);
    root_cell.resize(cells);
    summary.resize(capacity * ClumpSummaryLayout{t}.words());
    keys.resize(cells * clump_key_bytes(code));
    parent.resize(cells);
    labels.resize(cells);
    chunk_count.resize(capacity * chunks_per_tile(t));
    regions.resize(capacity);
  }
  static std::uint64_t bytes_per_tile(std::uint32_t t, ClumpKeyCode code) {
    const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
    return cells * (clump_key_bytes(code) + 5 * sizeof(std::uint32_t)) + 4ull * chunks_per_tile(t) + 4 +
           4 * ClumpSummaryLayout{t}.words();
  }
};

// Launches steps 1-5 on `stream` for the first `tiles` tiles of `d` (keys of type Key already there).
template <typename Key>
void launch_label_tiles_as(DeviceTiles& d, std::uint64_t tiles, std::uint32_t t, Connectivity connectivity,
                           cudaStream_t stream) {
  const Key* keys = reinterpret_cast<const Key*>(d.keys.get());
  if (t < 16 || (t & (t - 1)) != 0) throw Error("label_tile_cuda: the tile edge must be a power of two >= 16");
  const bool eight = connectivity == Connectivity::Eight;
  const std::uint32_t s = std::min(t, kSubtile);
  const std::uint64_t cells = tiles * t * t;
  const std::uint64_t subtiles = tiles * (t / s) * (t / s);
  const std::uint32_t chunks = chunks_per_tile(t);
  if (subtiles > 0x7FFFFFFFull || tiles * chunks > 0x7FFFFFFFull)
    throw Error("label_tile_cuda: too many tiles for one launch");
  link_subtiles<<<static_cast<unsigned>(subtiles), kLinkThreads, 0, stream>>>(keys, t, s, eight, d.parent.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  if (t > s) {
    link_seams<<<blocks_for(cells, kThreads), kThreads, 0, stream>>>(keys, cells, t, s, eight, d.parent.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
  }
  flatten<<<blocks_for(cells, kThreads), kThreads, 0, stream>>>(keys, cells, t, d.parent.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  // t = 16: 256 cells, one chunk of 1024 threads whose last 768 see cells of the next tile; so
  // small tiles use one block per tile over the tile's cells only (see count_roots' bound below).
  const unsigned chunk_threads = static_cast<unsigned>(std::min<std::uint64_t>(kChunk, static_cast<std::uint64_t>(t) * t));
  count_roots<<<static_cast<unsigned>(tiles * chunks), chunk_threads, 0, stream>>>(keys, d.parent.get(), t, chunks,
                                                                                   d.chunk_count.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  scan_chunk_counts<<<static_cast<unsigned>(tiles), kChunk, 0, stream>>>(chunks, d.chunk_count.get(), d.regions.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  number_roots<<<static_cast<unsigned>(tiles * chunks), chunk_threads, 0, stream>>>(
      keys, d.parent.get(), t, chunks, d.chunk_count.get(), d.labels.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  label_members<<<blocks_for(cells, kThreads), kThreads, 0, stream>>>(keys, d.parent.get(), cells, t,
                                                                      d.labels.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
}

void launch_label_tiles(DeviceTiles& d, std::uint64_t tiles, std::uint32_t t, Connectivity connectivity,
                        ClumpKeyCode code, cudaStream_t stream) {
  if (tiles == 0) return;
  switch (code) {
    case ClumpKeyCode::Float64: return launch_label_tiles_as<double>(d, tiles, t, connectivity, stream);
    case ClumpKeyCode::UInt32: return launch_label_tiles_as<std::uint32_t>(d, tiles, t, connectivity, stream);
    case ClumpKeyCode::UInt16: return launch_label_tiles_as<std::uint16_t>(d, tiles, t, connectivity, stream);
  }
}

// The packed border summaries of the first `tiles` tiles of `d` (labelled already), on `stream`.
void launch_summarize_tiles(DeviceTiles& d, std::uint64_t tiles, std::uint32_t t, cudaStream_t stream) {
  if (tiles == 0) return;
  const std::uint64_t cells = tiles * t * t;
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(d.region_cells.get(), 0, cells * sizeof(std::uint32_t), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(d.region_scan.get(), 0, cells * sizeof(std::uint32_t), stream));
  region_cells_and_roots<<<blocks_for(cells, kThreads), kThreads, 0, stream>>>(
      d.labels.get(), d.parent.get(), cells, t, d.region_cells.get(), d.root_cell.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
  summarize_tiles<<<static_cast<unsigned>(tiles), kChunk, (t + 1) * sizeof(std::uint32_t), stream>>>(
      d.labels.get(), d.regions.get(), t, d.region_cells.get(), d.root_cell.get(), d.region_scan.get(),
      ClumpSummaryLayout{t}, d.summary.get());
  TERRAZO_CUDA_CHECK_LAUNCH();
}

}  // namespace

void label_tiles_cuda(const void* keys, ClumpKeyCode code, std::uint64_t tiles, std::uint32_t t,
                      Connectivity connectivity, std::uint32_t* labels, std::uint32_t* regions,
                      std::uint32_t* summaries) {
  if (tiles == 0) return;
  const std::uint64_t cells = tiles * t * t;
  cuda::CudaStream stream;
  DeviceTiles d;
  d.resize(tiles, t, code);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(d.keys.get(), keys, cells * clump_key_bytes(code), cudaMemcpyHostToDevice,
                                     stream.get()));
  launch_label_tiles(d, tiles, t, connectivity, code, stream.get());
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(labels, d.labels.get(), cells * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                     stream.get()));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(regions, d.regions.get(), tiles * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                     stream.get()));
  if (summaries) {
    launch_summarize_tiles(d, tiles, t, stream.get());
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(summaries, d.summary.get(), tiles * ClumpSummaryLayout{t}.words() * 4,
                                       cudaMemcpyDeviceToHost, stream.get()));
  }
  stream.synchronize();
}

void label_tiles_cuda(const double* keys, std::uint64_t tiles, std::uint32_t t, Connectivity connectivity,
                      std::uint32_t* labels, std::uint32_t* regions) {
  label_tiles_cuda(keys, ClumpKeyCode::Float64, tiles, t, connectivity, labels, regions);
}

// ---- the streamed batch solver: the two-slot loop of kernels/common/two_slot_batch.cuh --------

struct CudaClumpBatchSolver::Impl {
  struct Slot : cuda::StreamedSlot {
    cuda::PinnedBuffer<unsigned char> keys;  // coded
    cuda::PinnedBuffer<std::uint32_t> labels, regions, summaries;
    DeviceTiles device;
    std::uint64_t tiles = 0;
    bool summarized = false;  // the batch sends summaries back, not labels
  };
  std::uint32_t t = 0;
  Connectivity connectivity = Connectivity::Eight;
  ClumpKeyCode code = ClumpKeyCode::Float64;
  std::uint64_t batch = 0;
  Batch result;
  cuda::TwoSlotBatch<Slot> batches{"CudaClumpBatchSolver"};

  // The steps of TwoSlotBatch::submit, on slot.tiles tiles.
  void copy_in(Slot& slot, cudaStream_t stream) const {
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.keys.get(), slot.keys.get(),
                                       slot.tiles * t * t * clump_key_bytes(code), cudaMemcpyHostToDevice, stream));
  }
  void launch(Slot& slot, cudaStream_t stream) const {
    launch_label_tiles(slot.device, slot.tiles, t, connectivity, code, stream);
    if (slot.summarized) launch_summarize_tiles(slot.device, slot.tiles, t, stream);
  }
  void copy_out(Slot& slot, cudaStream_t stream) const {
    const std::uint64_t tiles = slot.tiles;
    if (slot.summarized) {
      TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.summaries.get(), slot.device.summary.get(),
                                         tiles * ClumpSummaryLayout{t}.words() * 4, cudaMemcpyDeviceToHost, stream));
    } else {
      TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.labels.get(), slot.device.labels.get(),
                                         tiles * t * t * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
    }
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.regions.get(), slot.device.regions.get(), tiles * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
  }
};

CudaClumpBatchSolver::CudaClumpBatchSolver(std::uint32_t t, Connectivity connectivity, ClumpKeyCode code,
                                           std::uint64_t max_batch_tiles, std::uint64_t gpu_memory_bytes)
    : impl_(std::make_unique<Impl>()) {
  const CudaDeviceInfo& info = cuda_device();
  if (!info.available) throw Error("CudaClumpBatchSolver: no CUDA device: " + info.reason);
  if (t < 16 || (t & (t - 1)) != 0) throw Error("CudaClumpBatchSolver: the tile edge must be a power of two >= 16");
  impl_->t = t;
  impl_->connectivity = connectivity;
  impl_->code = code;
  std::uint64_t gpu = gpu_memory_bytes;
  if (gpu == 0) {
    std::size_t free_bytes = 0, total_bytes = 0;
    TERRAZO_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    gpu = free_bytes / 4;
  }
  const std::uint64_t per_tile = DeviceTiles::bytes_per_tile(t, code);
  impl_->batch = std::max<std::uint64_t>(1, gpu / (2 * per_tile));
  if (max_batch_tiles) impl_->batch = std::min(impl_->batch, max_batch_tiles);
  // One launch indexes subtiles and chunks with 31 bits.
  impl_->batch = std::min<std::uint64_t>(impl_->batch, 0x7FFFFFFFull / std::max<std::uint64_t>(1, (t / 16ull) * (t / 16ull)));
  const std::uint64_t cells = impl_->batch * t * t;
  for (Impl::Slot& slot : impl_->batches.slots()) {
    slot.keys.resize(cells * clump_key_bytes(code));
    slot.labels.resize(cells);
    slot.regions.resize(impl_->batch);
    slot.summaries.resize(impl_->batch * ClumpSummaryLayout{t}.words());
    slot.device.resize(impl_->batch, t, code);
  }
}

CudaClumpBatchSolver::~CudaClumpBatchSolver() = default;

std::uint64_t CudaClumpBatchSolver::batch_tiles() const { return impl_->batch; }

ClumpKeyCode CudaClumpBatchSolver::key_code() const { return impl_->code; }

std::uint64_t CudaClumpBatchSolver::pinned_bytes() const {
  return 2 * impl_->batch * (static_cast<std::uint64_t>(impl_->t) * impl_->t * (clump_key_bytes(impl_->code) + 4) + 4 +
                             4 * ClumpSummaryLayout{impl_->t}.words());
}

std::uint64_t CudaClumpBatchSolver::device_bytes() const {
  return 2 * impl_->batch * DeviceTiles::bytes_per_tile(impl_->t, impl_->code);
}

void* CudaClumpBatchSolver::keys() { return impl_->batches.free_slot().keys.get(); }

void CudaClumpBatchSolver::submit(std::uint64_t tiles, bool summaries) {
  impl_->batches.tile_slot(tiles, impl_->batch).summarized = summaries;
  impl_->batches.submit(*impl_);
}

std::size_t CudaClumpBatchSolver::pending() const { return impl_->batches.pending(); }

const CudaClumpBatchSolver::Batch& CudaClumpBatchSolver::wait() {
  Impl::Slot& slot = impl_->batches.wait();
  Batch& b = impl_->result;
  b.tiles = slot.tiles;
  b.keys = slot.keys.get();
  b.labels = slot.summarized ? nullptr : slot.labels.get();
  b.summaries = slot.summarized ? slot.summaries.get() : nullptr;
  b.regions = slot.regions.get();
  b.total_ms = slot.total_ms();
  return b;
}

}  // namespace terrazo
