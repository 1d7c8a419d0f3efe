// kernels/flow/resident_flowdir.cu: the CUDA resident flow directions (contract:
// kernels/flow/resident_flowdir.h). The whole raster's elevations, codes, classes, distances and
// union-find live in device memory; each kernel is one step of resident_flowdir_steps.h (64-bit
// indices), the same functions the CPU twin calls:
//   classify_cells   step 1: codes and classes, cells counted;
//   seed_cells       step 2: `low` and `high`, the distances' seeds, the parents;
//   unite_cells      step 3a: the flats' union-find (compare-and-swap hooks);
//   compress_cells   step 3b: every parent its root;
//   list_flat_tiles  step 4's first list: every tile with a flat cell, once (a flag per tile);
//   solve_tiles      step 4's rounds: one block per listed tile, its (g+2)^2 window of flat flags and
//                    distances in shared memory, swept in place (alternately forwards and backwards)
//                    until no cell lowers (a block vote),
//                    its lowered cells stored back, the tiles its lowered border cells face listed for
//                    the next round (flag exchange, list slot by atomic add); the host reads the next
//                    list's length once a round;
//   raise_tops       step 5: atomicMax of each flat's largest away at its root;
//   code_flats       step 6: the flat cells' codes; flats and undrained cells counted.
// Windows cross the bus through page-locked t x t staging tiles. Every CUDA call and launch is checked.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "kernels/common/cuda_support.cuh"
#include "kernels/common/error.h"
#include "kernels/flow/resident_cuda.cuh"
#include "kernels/flow/resident_flowdir.h"
#include "kernels/flow/resident_flowdir_steps.h"
#include "kernels/flow/resident_window.h"

namespace terrazo {
namespace cuda {
namespace {

constexpr std::uint32_t kMaxG = 64;
constexpr std::uint32_t kMaxWindow = (kMaxG + 2) * (kMaxG + 2);  // 39,204 bytes of shared memory a block
constexpr unsigned kTileThreads = 256;

struct FlowdirCounters {
  unsigned long long valid, flat, outlet, flats, undrained_flats, undrained_cells, defects, sweeps, listed;
};

__device__ void add_counts(FlowdirCounters* __restrict__ counters, const FlowdirCount& c) {
  if (c.valid) atomicAdd(&counters->valid, static_cast<unsigned long long>(c.valid));
  if (c.flat) atomicAdd(&counters->flat, static_cast<unsigned long long>(c.flat));
  if (c.outlet) atomicAdd(&counters->outlet, static_cast<unsigned long long>(c.outlet));
  if (c.flats) atomicAdd(&counters->flats, static_cast<unsigned long long>(c.flats));
  if (c.undrained_flats) atomicAdd(&counters->undrained_flats, static_cast<unsigned long long>(c.undrained_flats));
  if (c.undrained_cells) atomicAdd(&counters->undrained_cells, static_cast<unsigned long long>(c.undrained_cells));
  if (c.defects) atomicAdd(&counters->defects, static_cast<unsigned long long>(c.defects));
}

static __global__ void classify_cells(FlowdirCells c, FlowdirRules r, FlowdirCounters* __restrict__ counters) {
  FlowdirCount count;
  for (std::uint64_t i = first_cell(); i < c.cells(); i += cell_stride()) count.add(flowdir_classify(c, r, i));
  add_counts(counters, count);
}

static __global__ void seed_cells(FlowdirCells c) {
  for (std::uint64_t i = first_cell(); i < c.cells(); i += cell_stride()) flowdir_seed(c, i);
}

static __global__ void unite_cells(FlowdirCells c) {
  for (std::uint64_t i = first_cell(); i < c.cells(); i += cell_stride()) flowdir_unite(c, i);
}

static __global__ void compress_cells(FlowdirCells c) {
  for (std::uint64_t i = first_cell(); i < c.cells(); i += cell_stride()) flowdir_compress(c, i);
}

static __global__ void raise_tops(FlowdirCells c) {
  for (std::uint64_t i = first_cell(); i < c.cells(); i += cell_stride()) flowdir_raise_top(c, i);
}

static __global__ void code_flats(FlowdirCells c, FlowdirCounters* __restrict__ counters) {
  FlowdirCount count;
  for (std::uint64_t i = first_cell(); i < c.cells(); i += cell_stride()) count.add(flowdir_flat_code(c, i));
  add_counts(counters, count);
}

// Tile `tile` into the list (once: its flag exchanged from 0).
__device__ void list_tile(std::uint64_t tile, unsigned* __restrict__ listed, std::uint64_t* __restrict__ list,
                          unsigned long long* __restrict__ length) {
  if (atomicExch(&listed[tile], 1u) == 0u) list[atomicAdd(length, 1ull)] = tile;
}

static __global__ void list_flat_tiles(FlowdirCells c, FlowdirTiles t, unsigned* __restrict__ listed,
                                       std::uint64_t* __restrict__ list, unsigned long long* __restrict__ length) {
  for (std::uint64_t i = first_cell(); i < c.cells(); i += cell_stride()) {
    if (!(c.kind[i] & kDirFlat)) continue;
    const std::uint64_t tile = (i / c.width / t.g) * t.tiles_x() + (i % c.width) / t.g;
    if (listed[tile] == 0u) list_tile(tile, listed, list, length);
  }
}

// One block (kTileThreads) per listed tile.
static __global__ void solve_tiles(FlowdirCells c, FlowdirTiles t, const std::uint64_t* __restrict__ list,
                                   unsigned* __restrict__ listed, std::uint64_t* __restrict__ next,
                                   unsigned long long* __restrict__ next_length, FlowdirCounters* __restrict__ counters) {
  __shared__ std::uint8_t flat[kMaxWindow];
  __shared__ std::uint32_t towards[kMaxWindow], away[kMaxWindow];
  __shared__ unsigned leaving;
  const std::uint64_t tile = list[blockIdx.x];
  const std::uint32_t g = t.g, s = t.side(), window = s * s, n = g * g;
  for (std::uint32_t k = threadIdx.x; k < window; k += blockDim.x)
    flowdir_window_load(c, t, tile, k, &flat[k], &towards[k], &away[k]);
  if (threadIdx.x == 0) leaving = 0;
  __syncthreads();
  unsigned long long sweeps = 0;
  for (bool lowered = true; lowered; ++sweeps) {  // alternately forwards and backwards, as the CPU twin
    bool mine = false;
    for (std::uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
      const std::uint32_t j = sweeps % 2 ? n - 1 - k : k;
      mine |= flowdir_relax(flat, towards, away, s, t.window_index(j % g, j / g));
    }
    lowered = __syncthreads_or(mine) != 0;
  }
  unsigned faces = 0;
  for (std::uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
    const std::uint32_t lx = k % g, ly = k / g, w = t.window_index(lx, ly);
    const std::uint64_t cell = t.window_cell(tile, w);
    if (cell == kNoFlatParent || (towards[w] == c.towards[cell] && away[w] == c.away[cell])) continue;
    c.towards[cell] = towards[w];
    c.away[cell] = away[w];
    faces |= flowdir_leaving(lx, ly, g);
  }
  if (faces) atomicOr(&leaving, faces);
  __syncthreads();
  if (threadIdx.x < 8 && ((leaving >> threadIdx.x) & 1u)) {
    const std::uint64_t other = t.next_tile(tile, static_cast<int>(threadIdx.x));
    if (other != kNoFlatParent) list_tile(other, listed, next, next_length);
  }
  if (threadIdx.x == 0) atomicAdd(&counters->sweeps, sweeps);
}

// The BFS tiles of `options`, checked before any buffer is sized by them.
FlowdirTiles checked_tiles(const ResidentFlowdirOptions& options) {
  if (options.g < 2 || options.g > kMaxG) throw Error("resident flowdir: tile side " + std::to_string(options.g) + " is not 2 to 64");
  const FlowdirTiles tiles{options.width, options.height, options.g};
  if (tiles.tiles() > 0x7fffffffull) throw Error("resident flowdir: the raster has too many tiles for one launch");
  return tiles;
}

class ResidentFlowdirCuda final : public ResidentFlowdir {
 public:
  explicit ResidentFlowdirCuda(const ResidentFlowdirOptions& options)
      : options_(options), windows_{"resident flowdir", options.width, options.height, options.tile},
        tiles_(checked_tiles(options)), elev_(cells()), code_(cells()), kind_(cells()),
        low_(cells()), towards_(cells()), away_(cells()), top_(cells()), parent_(cells()), listed_(tiles_.tiles()),
        list_(tiles_.tiles()), next_(tiles_.tiles()), counters_(1),
        host_values_(std::uint64_t{options.tile} * options.tile), host_codes_(std::uint64_t{options.tile} * options.tile) {
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(elev_.get(), 0xff, elev_.bytes(), stream_.get()));  // all ones: NaN, nodata
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(code_.get(), kD8Nodata, code_.bytes(), stream_.get()));
    stream_.synchronize();
    cells_ = FlowdirCells{options.width, options.height, elev_.get(), code_.get(), kind_.get(), low_.get(),
                          towards_.get(), away_.get(), top_.get(), parent_.get()};
  }

  Device device() const override { return Device::Cuda; }

  void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                    const double* values) override {
    windows_.check(x0, y0, w, h);
    double* host = host_values_.get();
    for (std::uint32_t y = 0; y < h; ++y) std::copy_n(values + std::size_t{y} * pitch, w, host + std::size_t{y} * w);
    TERRAZO_CUDA_CHECK(cudaMemcpy2DAsync(elev_.get() + y0 * options_.width + x0, options_.width * sizeof(double), host,
                                         w * sizeof(double), w * sizeof(double), h, cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();  // the page-locked tile is reused by the next window
  }

  ResidentFlowdirStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) override {
    ResidentFlowdirStats stats;
    CudaEvent start, stop;
    start.record(stream_.get());
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(FlowdirCounters), stream_.get()));
    const unsigned blocks = blocks_for(cells());
    classify_cells<<<blocks, kThreads, 0, stream_.get()>>>(cells_, FlowdirRules{options_.edge_outlets, options_.nodata_outlets},
                                                            counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    seed_cells<<<blocks, kThreads, 0, stream_.get()>>>(cells_);
    TERRAZO_CUDA_CHECK_LAUNCH();
    unite_cells<<<blocks, kThreads, 0, stream_.get()>>>(cells_);
    TERRAZO_CUDA_CHECK_LAUNCH();
    compress_cells<<<blocks, kThreads, 0, stream_.get()>>>(cells_);
    TERRAZO_CUDA_CHECK_LAUNCH();
    relax_rounds(stats, round_done);
    raise_tops<<<blocks, kThreads, 0, stream_.get()>>>(cells_);
    TERRAZO_CUDA_CHECK_LAUNCH();
    code_flats<<<blocks, kThreads, 0, stream_.get()>>>(cells_, counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    stop.record(stream_.get());
    stop.synchronize();
    stats.kernel_ms = stop.elapsed_since(start);
    const FlowdirCounters c = counters();
    flowdir_record_counts(FlowdirCount{c.valid, c.flat, c.outlet, c.flats, c.undrained_flats, c.undrained_cells, c.defects},
                          stats);
    stats.sweeps = c.sweeps;
    return stats;
  }

  void read_codes(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                  std::uint8_t* out) override {
    windows_.check(x0, y0, w, h);
    std::uint8_t* host = host_codes_.get();
    TERRAZO_CUDA_CHECK(cudaMemcpy2DAsync(host, w, code_.get() + y0 * options_.width + x0, options_.width, w, h,
                                         cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    for (std::uint32_t y = 0; y < h; ++y) std::copy_n(host + std::size_t{y} * w, w, out + std::size_t{y} * pitch);
  }

 private:
  std::uint64_t cells() const { return options_.width * options_.height; }

  FlowdirCounters counters() {
    FlowdirCounters c{};
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&c, counters_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    return c;
  }

  // The listed tiles' count after the last launch (its slot in the counters, then cleared).
  std::uint64_t take_listed() {
    unsigned long long listed = 0;
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&listed, &counters_.get()->listed, sizeof listed, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(&counters_.get()->listed, 0, sizeof listed, stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(listed_.get(), 0, listed_.bytes(), stream_.get()));
    return listed;
  }

  // Step 4: the first list, then rounds until no tile is listed (one read of the list's length a round).
  void relax_rounds(ResidentFlowdirStats& stats, const std::function<void(std::uint64_t, std::uint64_t)>& round_done) {
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(listed_.get(), 0, listed_.bytes(), stream_.get()));
    list_flat_tiles<<<blocks_for(cells()), kThreads, 0, stream_.get()>>>(cells_, tiles_, listed_.get(), list_.get(),
                                                                         &counters_.get()->listed);
    TERRAZO_CUDA_CHECK_LAUNCH();
    for (std::uint64_t count = take_listed(); count > 0; count = take_listed()) {
      solve_tiles<<<static_cast<unsigned>(count), kTileThreads, 0, stream_.get()>>>(
          cells_, tiles_, list_.get(), listed_.get(), next_.get(), &counters_.get()->listed, counters_.get());
      TERRAZO_CUDA_CHECK_LAUNCH();
      std::swap(list_, next_);
      ++stats.rounds;
      stats.solves += count;
      stats.max_active = std::max<std::uint64_t>(stats.max_active, count);
      round_done(stats.rounds, stats.solves);
    }
  }

  ResidentFlowdirOptions options_;
  ResidentWindows windows_;
  FlowdirTiles tiles_;
  CudaStream stream_;
  DeviceBuffer<double> elev_;
  DeviceBuffer<std::uint8_t> code_, kind_, low_;
  DeviceBuffer<std::uint32_t> towards_, away_, top_;
  DeviceBuffer<std::uint64_t> parent_;
  DeviceBuffer<unsigned> listed_;
  DeviceBuffer<std::uint64_t> list_, next_;
  DeviceBuffer<FlowdirCounters> counters_;
  PinnedBuffer<double> host_values_;
  PinnedBuffer<std::uint8_t> host_codes_;
  FlowdirCells cells_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<ResidentFlowdir> make_resident_flowdir_cuda(const ResidentFlowdirOptions& options) {
  return std::make_unique<cuda::ResidentFlowdirCuda>(options);
}

}  // namespace terrazo
