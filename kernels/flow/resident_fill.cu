// kernels/flow/resident_fill.cu: the CUDA resident fill (contract: kernels/flow/resident_fill.h).
//
// The elevations' keys and the levels of the whole raster live in device memory; the host uploads
// each window once, launches the start and the rounds, reading two numbers per round, and reads each
// output window back once. Kernels, each a mirror of a stage of the CPU twin (resident_fill_cpu.cpp)
// over the shared steps of resident_fill_steps.h:
//   store_elevations  an uploaded window's doubles as keys into the resident elevations;
//   start_levels      every padded cell's start level (fill_start_level);
//   start_keys        one block per tile: the least start candidate of its cells (fill_start_candidate);
//   selection         DeviceRoundSelect (kernels/common/round_select.cuh): the near-far round's tiles;
//   sweep_windows     one block per active tile: its (g+2)^2 window of keys and levels in shared memory
//                     (fill_window_cell), swept (fill_relax on every tile cell by the block's threads,
//                     in place) until a sweep lowers nothing (__syncthreads_or); the tile's levels and
//                     lowered flags out to the group's buffers;
//   store_levels      the lowered cells back into the resident levels;
//   activate_tiles    one block per solved tile: lowered border-band cells lower the keys of the tiles
//                     they improve (fill_improved_neighbour; atomicMin);
//   read_window       a window's filled values (fill_output) and its counts.
// A round longer than batch_tiles is processed in groups, each seeing the earlier groups' levels (as
// the CPU twin). Indices of cells are 64-bit; every CUDA call and launch is checked.
#include <algorithm>
#include <string>

#include "kernels/common/cuda_device.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/common/error.h"
#include "kernels/common/round_select.cuh"
#include "kernels/common/staged_upload.cuh"
#include "kernels/flow/resident_fill.h"
#include "kernels/flow/resident_fill_steps.h"

namespace terrazo {
namespace cuda {
namespace {

constexpr unsigned kThreads = 256;

__global__ void store_elevations(ResidentLayout l, std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                 const double* __restrict__ in, std::uint64_t* __restrict__ elev) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::uint64_t>(w) * h) return;
  elev[l.index(x0 + i % w, y0 + i / w)] = fill_key(in[i]);
}

__global__ void start_levels(FillCells at, FillRules rules, std::uint64_t cells) {
  const std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (k < cells) at.level[k] = fill_start_level(at, rules, k);
}

__global__ void start_keys(FillCells at, FillRules rules, std::uint64_t* __restrict__ key) {
  __shared__ unsigned long long least;
  if (threadIdx.x == 0) least = kNoLevel;
  __syncthreads();
  const std::uint64_t tile = blockIdx.x, tile_cells = at.l.tile_cells();
  std::uint64_t own = kNoLevel;
  for (std::uint64_t c = threadIdx.x; c < tile_cells; c += blockDim.x)
    own = min_key(own, fill_start_candidate(at, rules, tile * tile_cells + c));
  if (own != kNoLevel) atomicMin(&least, static_cast<unsigned long long>(own));
  __syncthreads();
  if (threadIdx.x == 0) key[tile] = least;
}

// Steps 1 for the group's tiles: out_level / lowered hold g^2 cells per tile of the group.
__global__ void sweep_windows(FillCells at, const std::uint64_t* __restrict__ active, Connectivity connectivity,
                              std::uint64_t* __restrict__ out_level, std::uint8_t* __restrict__ lowered,
                              std::uint8_t* __restrict__ ever, unsigned long long* __restrict__ counters) {
  extern __shared__ std::uint64_t window[];  // the elevations' keys, then the levels: (g+2)^2 each
  const ResidentLayout& l = at.l;
  const std::uint64_t tile = active[blockIdx.x];
  const std::uint32_t g = l.g, s = l.window_side(), cells = s * s, tile_cells = g * g;
  std::uint64_t* elev = window;
  std::uint64_t* level = window + cells;
  std::uint64_t* out = out_level + blockIdx.x * static_cast<std::uint64_t>(tile_cells);
  for (std::uint32_t i = threadIdx.x; i < cells; i += blockDim.x) fill_window_cell(at, tile, i, &elev[i], &level[i]);
  __syncthreads();
  for (std::uint32_t c = threadIdx.x; c < tile_cells; c += blockDim.x) out[c] = level[fill_window_index(c, g)];
  unsigned long long sweeps = 0;
  for (;;) {  // every thread runs every sweep: the loop's exit is the block's vote
    int any = 0;
    for (std::uint32_t c = threadIdx.x; c < tile_cells; c += blockDim.x) {
      const std::uint32_t i = fill_window_index(c, g);
      const std::uint64_t next = fill_relax(elev, level, s, i, connectivity);
      if (next != level[i]) {
        level[i] = next;
        any = 1;
      }
    }
    ++sweeps;
    if (!__syncthreads_or(any)) break;
  }
  std::uint8_t* flags = lowered + blockIdx.x * static_cast<std::uint64_t>(tile_cells);
  for (std::uint32_t c = threadIdx.x; c < tile_cells; c += blockDim.x) {  // the same cells as the copy above
    const std::uint64_t next = level[fill_window_index(c, g)];
    flags[c] = next != out[c] ? 1 : 0;
    out[c] = next;
  }
  if (threadIdx.x == 0) {
    atomicAdd(counters + 1, sweeps);
    if (!ever[tile]) {
      ever[tile] = 1;
      atomicAdd(counters + 2, 1ull);
    }
  }
}

// Step 2: the lowered cells of the group's tiles back into the resident levels.
__global__ void store_levels(FillCells at, const std::uint64_t* __restrict__ active, const std::uint64_t* __restrict__ out_level,
                             const std::uint8_t* __restrict__ lowered, unsigned long long* __restrict__ counters) {
  const std::uint64_t tile = active[blockIdx.x], tile_cells = at.l.tile_cells();
  const std::uint64_t* out = out_level + blockIdx.x * tile_cells;
  const std::uint8_t* flags = lowered + blockIdx.x * tile_cells;
  unsigned long long stored = 0;
  for (std::uint64_t c = threadIdx.x; c < tile_cells; c += blockDim.x)
    if (flags[c]) {
      at.level[tile * tile_cells + c] = out[c];
      ++stored;
    }
  if (stored) atomicAdd(counters, stored);
}

// Step 3: one block per solved tile.
__global__ void activate_tiles(FillCells at, const std::uint64_t* __restrict__ active, const std::uint8_t* __restrict__ lowered,
                               Connectivity connectivity, std::uint64_t* __restrict__ key) {
  const std::uint64_t tile = active[blockIdx.x];
  activate_band(
      at.l, lowered + blockIdx.x * at.l.tile_cells(), threadIdx.x, blockDim.x, 8,
      [&](std::uint32_t lx, std::uint32_t ly, int start, int* dir, std::uint64_t* candidate) {
        return fill_improved_neighbour(at, tile, lx, ly, start, dir, connectivity, candidate);
      },
      [&](std::uint64_t n, std::uint64_t candidate) {
        atomicMin(reinterpret_cast<unsigned long long*>(&key[n]), static_cast<unsigned long long>(candidate));
      });
}

// The filled values of a w x h window and its counts (valid, raised, closed) added to counts[0..2].
__global__ void read_window(FillCells at, std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                            double* __restrict__ filled, unsigned long long* __restrict__ counts) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  FillCellKind kind = FillCellKind::Nodata;
  if (i < static_cast<std::uint64_t>(w) * h) {
    const std::uint64_t k = at.l.index(x0 + i % w, y0 + i / w);
    filled[i] = fill_output(at.elev[k], at.level[k], &kind);
  }
  // One atomic per kind and block: the block's votes counted by its warps.
  const unsigned valid = __syncthreads_count(kind != FillCellKind::Nodata);
  const unsigned raised = __syncthreads_count(kind == FillCellKind::Raised);
  const unsigned closed = __syncthreads_count(kind == FillCellKind::Closed);
  if (threadIdx.x == 0) {
    if (valid) atomicAdd(counts, static_cast<unsigned long long>(valid));
    if (raised) atomicAdd(counts + 1, static_cast<unsigned long long>(raised));
    if (closed) atomicAdd(counts + 2, static_cast<unsigned long long>(closed));
  }
}

unsigned blocks_for(std::uint64_t n) {
  const std::uint64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 0x7fffffffull) throw Error("resident fill: " + std::to_string(n) + " cells are too many for one launch");
  return static_cast<unsigned>(blocks);
}

class ResidentFillCuda final : public ResidentFillSolver {
 public:
  explicit ResidentFillCuda(const ResidentFillOptions& options)
      : options_(options), layout_(options.width, options.height, options.g, 1),
        rules_(options) {
    if (!cuda_device().available) throw Error("resident fill on CUDA: " + cuda_device().reason);
    const std::uint32_t most = resident_fill_max_g(max_shared_bytes_per_block());
    if (options.g < 2 || options.g > most)
      throw Error("resident fill on CUDA: tile side " + std::to_string(options.g) + " is outside 2.." + std::to_string(most) +
                  " (its window in one block's shared memory)");
    shared_bytes_ = static_cast<std::size_t>(layout_.window_side()) * layout_.window_side() * 16;
    TERRAZO_CUDA_CHECK(cudaFuncSetAttribute(sweep_windows, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_bytes_)));
    batch_ = std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.batch_tiles, layout_.tiles()));
    const std::uint64_t cells = layout_.tiles() * layout_.tile_cells();
    elev_.resize(cells);
    level_.resize(cells);
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(elev_.get(), 0, cells * sizeof(std::uint64_t), stream_.get()));  // kNodataKey
    select_ = std::make_unique<DeviceRoundSelect>(layout_.tiles(), stream_.get());
    ever_.resize(layout_.tiles());
    out_level_.resize(batch_ * layout_.tile_cells());
    lowered_.resize(batch_ * layout_.tile_cells());
    counters_.resize(3);  // cells lowered, sweeps, tiles solved
    counts_.resize(3);
    host_counts_.resize(3);
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(ever_.get(), 0, layout_.tiles(), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 3 * sizeof(unsigned long long), stream_.get()));
    stream_.synchronize();
  }

  Device device() const override { return Device::Cuda; }

  void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const double* values) override {
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    if (n == 0) return;
    store_elevations<<<blocks_for(n), kThreads, 0, stream_.get()>>>(layout_, x0, y0, w, h, upload_.stage(values, n), elev_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
  }

  ResidentFillStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) override {
    ResidentFillStats stats;
    CudaEvent begin, end;
    begin.record(stream_.get());
    start();
    NearFarSchedule schedule;
    schedule.target = std::max<std::uint64_t>(1, options_.round_tiles);
    for (;;) {
      const std::uint64_t min_key = select_->smallest_key();
      if (min_key == kNoLevel) break;
      const std::uint64_t active = select_->select(schedule.threshold(min_key));
      schedule.adapt(active);
      ++stats.rounds;
      stats.max_active = std::max(stats.max_active, active);
      for (std::uint64_t first = 0; first < active; first += batch_) {
        const std::uint64_t count = std::min(batch_, active - first);
        solve_group(select_->active() + first, count);
        stats.solves += count;
      }
      round_done(stats.rounds, stats.solves);
    }
    end.record(stream_.get());
    end.synchronize();
    stats.kernel_ms = end.elapsed_since(begin);
    unsigned long long counters[3] = {0, 0, 0};
    TERRAZO_CUDA_CHECK(cudaMemcpy(counters, counters_.get(), sizeof(counters), cudaMemcpyDeviceToHost));
    stats.cells_lowered = counters[0];
    stats.sweeps = counters[1];
    stats.tiles_solved = counters[2];
    return stats;
  }

  void read_filled(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* filled,
                   ResidentFillCounts* counts) override {
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    if (n == 0) return;
    if (read_device_.size() < n) {
      read_device_.resize(n);
      read_host_.resize(n);
    }
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, 3 * sizeof(unsigned long long), stream_.get()));
    read_window<<<blocks_for(n), kThreads, 0, stream_.get()>>>(cells(), x0, y0, w, h, read_device_.get(), counts_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(read_host_.get(), read_device_.get(), n * sizeof(double), cudaMemcpyDeviceToHost,
                                       stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(host_counts_.get(), counts_.get(), 3 * sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    std::copy(read_host_.get(), read_host_.get() + n, filled);
    counts->valid += host_counts_.get()[0];
    counts->raised += host_counts_.get()[1];
    counts->closed += host_counts_.get()[2];
  }

 private:
  FillCells cells() { return FillCells{layout_, elev_.get(), level_.get()}; }

  // The outlets' levels, then every tile's key (after the uploads, ordered on the stream).
  void start() {
    const std::uint64_t cells_n = layout_.tiles() * layout_.tile_cells();
    start_levels<<<blocks_for(cells_n), kThreads, 0, stream_.get()>>>(cells(), rules_, cells_n);
    TERRAZO_CUDA_CHECK_LAUNCH();
    start_keys<<<tile_blocks(layout_.tiles()), kThreads, 0, stream_.get()>>>(cells(), rules_, select_->keys());
    TERRAZO_CUDA_CHECK_LAUNCH();
  }

  // Steps 1-3 for `count` tiles of the round's list (device memory) from `list`.
  void solve_group(const std::uint64_t* list, std::uint64_t count) {
    const unsigned blocks = tile_blocks(count);
    sweep_windows<<<blocks, kThreads, shared_bytes_, stream_.get()>>>(cells(), list, options_.connectivity, out_level_.get(),
                                                                      lowered_.get(), ever_.get(), counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    store_levels<<<blocks, kThreads, 0, stream_.get()>>>(cells(), list, out_level_.get(), lowered_.get(), counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    activate_tiles<<<blocks, kThreads, 0, stream_.get()>>>(cells(), list, lowered_.get(), options_.connectivity,
                                                           select_->keys());
    TERRAZO_CUDA_CHECK_LAUNCH();
  }

  static unsigned tile_blocks(std::uint64_t tiles) {
    if (tiles > 0x7fffffffull) throw Error("resident fill: " + std::to_string(tiles) + " tiles are too many for one launch");
    return static_cast<unsigned>(tiles);
  }

  ResidentFillOptions options_;
  ResidentLayout layout_;
  FillRules rules_;
  std::uint64_t batch_ = 1;
  std::size_t shared_bytes_ = 0;
  CudaStream stream_;
  DeviceBuffer<std::uint64_t> elev_, level_;  // per padded cell: the elevation's key, the level
  std::unique_ptr<DeviceRoundSelect> select_;
  DeviceBuffer<std::uint8_t> ever_;
  DeviceBuffer<std::uint64_t> out_level_;  // the group's solved tiles' levels (g^2 each)
  DeviceBuffer<std::uint8_t> lowered_;     // ... and which of them lowered
  DeviceBuffer<unsigned long long> counters_, counts_;
  PinnedBuffer<unsigned long long> host_counts_;
  StagedUpload upload_{stream_.get()};
  DeviceBuffer<double> read_device_;
  PinnedBuffer<double> read_host_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<ResidentFillSolver> make_resident_fill_cuda(const ResidentFillOptions& options) {
  return std::make_unique<cuda::ResidentFillCuda>(options);
}

}  // namespace terrazo
