// kernels/flow/resident_watershed.cu: the CUDA resident watershed labelling (contract:
// kernels/flow/resident_watershed.h). The whole raster's codes, pointers, first cells and labels live
// in device memory; each kernel is one step of resident_watershed_steps.h (64-bit indices), the same
// functions the CPU twin calls:
//   start_cells    step 1: pointers, codes checked, valid cells counted;
//   jump_cells     step 2: one round of pointer jumping (a device flag says whether any changed);
//   count_looped   step 3: cells whose pointer is no end;
//   lower_firsts   step 4: atomicMin of each basin's first cell;
//   count_firsts   step 5a: one block per chunk of kBasinChunk cells, its first cells counted;
//   rank_firsts    step 5b: one block per chunk, its first cells ranked by a block scan from the
//                  chunk's offset (the counts' prefix, made on the host): their labels;
//   take_labels    step 6: every valid cell's label.
// Windows cross the bus through page-locked t x t staging tiles. Every CUDA call and launch is checked.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <memory>
#include <vector>

#include "kernels/common/cuda_support.cuh"
#include "kernels/common/error.h"
#include "kernels/flow/resident_code_solver.h"
#include "kernels/flow/resident_cuda.cuh"
#include "kernels/flow/resident_watershed.h"
#include "kernels/flow/resident_watershed_steps.h"

namespace terrazo {
namespace cuda {
namespace {

struct BasinCounters {
  unsigned long long valid, bad, looped;
  unsigned int changed;
};

static __global__ void start_cells(ResidentBasinRaster r, BasinCounters* __restrict__ counters) {
  ResidentBasinCount count;
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) count.add(resident_basin_start(r, i));
  if (count.valid) atomicAdd(&counters->valid, static_cast<unsigned long long>(count.valid));
  if (count.bad) atomicAdd(&counters->bad, static_cast<unsigned long long>(count.bad));
}

static __global__ void jump_cells(ResidentBasinRaster r, BasinCounters* __restrict__ counters) {
  bool changed = false;
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) changed |= resident_jump(r, i);
  if (changed) counters->changed = 1;
}

static __global__ void count_looped(ResidentBasinRaster r, BasinCounters* __restrict__ counters) {
  unsigned long long looped = 0;
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) looped += resident_basin_looped(r, i);
  if (looped) atomicAdd(&counters->looped, looped);
}

static __global__ void lower_firsts(ResidentBasinRaster r) {
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) resident_lower_first(r, i);
}

// One block (kThreads) per chunk.
static __global__ void count_firsts(ResidentBasinRaster r, std::uint32_t* __restrict__ counts) {
  using Reduce = cub::BlockReduce<unsigned, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const std::uint64_t begin = blockIdx.x * kBasinChunk, end = min(r.cells(), begin + kBasinChunk);
  unsigned n = 0;
  for (std::uint64_t i = begin + threadIdx.x; i < end; i += kThreads) n += resident_is_first(r, i);
  const unsigned total = Reduce(storage).Sum(n);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// One block (kThreads) per chunk: segments of kThreads cells in order, each a block scan.
static __global__ void rank_firsts(ResidentBasinRaster r, const std::uint32_t* __restrict__ offsets) {
  using Scan = cub::BlockScan<unsigned, kThreads>;
  __shared__ typename Scan::TempStorage storage;
  const std::uint64_t begin = blockIdx.x * kBasinChunk, end = min(r.cells(), begin + kBasinChunk);
  std::uint32_t base = offsets[blockIdx.x];
  for (std::uint64_t s = begin; s < end; s += kThreads) {
    const std::uint64_t i = s + threadIdx.x;
    const unsigned first = i < end && resident_is_first(r, i) ? 1u : 0u;
    unsigned rank = 0, total = 0;
    Scan(storage).ExclusiveSum(first, rank, total);
    if (first) r.label[i] = base + rank + 1;
    base += total;
    __syncthreads();  // the scan's storage is reused by the next segment
  }
}

static __global__ void take_labels(ResidentBasinRaster r) {
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) resident_take_label(r, i);
}

static __global__ void read_window(ResidentBasinRaster r, std::uint64_t x0, std::uint64_t y0, std::uint32_t w,
                                   std::uint32_t h, std::uint32_t* __restrict__ staged) {
  const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
  for (std::uint64_t k = first_cell(); k < n; k += cell_stride()) staged[k] = r.label[(y0 + k / w) * r.width + x0 + k % w];
}

class ResidentWatershedCuda final : public ResidentCodeSolver<ResidentWatershed, ResidentCodesCuda> {
 public:
  explicit ResidentWatershedCuda(const ResidentWatershedOptions& options)
      : ResidentCodeSolver("resident watershed", options.width, options.height, options.tile), options_(options),
        outlet_(cells()), first_(cells()), label_(cells()), counts_(chunks()),
        counters_(1), staged_(std::uint64_t{options.tile} * options.tile),
        host_labels_(staged_.size()),
        raster_{codes_.raster(), outlet_.get(), first_.get(), label_.get()} {
    if (chunks() > 0x7fffffffu) throw Error("resident watershed: the raster has too many cells for one launch of chunks");
    stream_.synchronize();
  }

  ResidentWatershedStats label() override {
    ResidentWatershedStats stats;
    CudaEvent start, stop;
    start.record(stream_.get());
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(BasinCounters), stream_.get()));
    start_cells<<<blocks_for(cells()), kThreads, 0, stream_.get()>>>(raster_, counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    stats.rounds = jump();
    count_looped<<<blocks_for(cells()), kThreads, 0, stream_.get()>>>(raster_, counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    const BasinCounters c = counters();
    stats.valid_cells = c.valid;
    stats.bad_codes = c.bad;
    stats.looped = c.looped;
    if (stats.looped == 0 && stats.bad_codes == 0) {
      lower_firsts<<<blocks_for(cells()), kThreads, 0, stream_.get()>>>(raster_);
      TERRAZO_CUDA_CHECK_LAUNCH();
      stats.basins = rank();
      if (stats.exact()) {
        take_labels<<<blocks_for(cells()), kThreads, 0, stream_.get()>>>(raster_);
        TERRAZO_CUDA_CHECK_LAUNCH();
      }
    }
    stop.record(stream_.get());
    stop.synchronize();
    stats.kernel_ms = stop.elapsed_since(start);
    return stats;
  }

  void read_labels(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                   std::uint32_t* out) override {
    codes_.check_window(x0, y0, w, h);
    const std::uint64_t n = std::uint64_t{w} * h;
    read_window<<<blocks_for(n), kThreads, 0, stream_.get()>>>(raster_, x0, y0, w, h, staged_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    download_window(staged_.get(), host_labels_.get(), w, h, out, pitch, stream_);
  }

 private:
  std::uint64_t cells() const { return options_.width * options_.height; }
  std::uint64_t chunks() const { return (cells() + kBasinChunk - 1) / kBasinChunk; }

  BasinCounters counters() {
    BasinCounters c{};
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&c, counters_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    return c;
  }

  // Step 2: rounds until no pointer changes or resident_jump_rounds; the rounds run.
  std::uint64_t jump() {
    const std::uint64_t most = resident_jump_rounds(cells());
    std::uint64_t rounds = 0;
    for (bool changed = true; changed && rounds < most; ++rounds) {
      TERRAZO_CUDA_CHECK(cudaMemsetAsync(&counters_.get()->changed, 0, sizeof(unsigned int), stream_.get()));
      jump_cells<<<blocks_for(cells()), kThreads, 0, stream_.get()>>>(raster_, counters_.get());
      TERRAZO_CUDA_CHECK_LAUNCH();
      changed = counters().changed != 0;
    }
    return rounds;
  }

  // Step 5: the first cells counted per chunk, the prefix of the counts on the host, the ranks; K.
  std::uint64_t rank() {
    const std::uint64_t n = chunks();
    if (n == 0) return 0;
    count_firsts<<<static_cast<unsigned>(n), kThreads, 0, stream_.get()>>>(raster_, counts_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    std::vector<std::uint32_t> counts(n);
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(counts.data(), counts_.get(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                       stream_.get()));
    stream_.synchronize();
    std::uint64_t total = 0;
    for (std::uint32_t& c : counts) {
      const std::uint64_t k = c;
      c = static_cast<std::uint32_t>(total);  // exact while total <= 2^32 - 1, which exact() requires
      total += k;
    }
    if (total > 0xffffffffull) return total;
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(counts_.get(), counts.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                                       stream_.get()));
    rank_firsts<<<static_cast<unsigned>(n), kThreads, 0, stream_.get()>>>(raster_, counts_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    stream_.synchronize();  // `counts` (pageable, copied from) goes out of scope
    return total;
  }

  ResidentWatershedOptions options_;
  const CudaStream& stream_ = codes_.stream();
  DeviceBuffer<std::uint64_t> outlet_, first_;
  DeviceBuffer<std::uint32_t> label_, counts_;
  DeviceBuffer<BasinCounters> counters_;
  DeviceBuffer<std::uint32_t> staged_;
  PinnedBuffer<std::uint32_t> host_labels_;
  ResidentBasinRaster raster_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<ResidentWatershed> make_resident_watershed_cuda(const ResidentWatershedOptions& options) {
  return std::make_unique<cuda::ResidentWatershedCuda>(options);
}

}  // namespace terrazo
