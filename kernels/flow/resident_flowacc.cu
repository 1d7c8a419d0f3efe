// kernels/flow/resident_flowacc.cu: the CUDA resident flow accumulation (contract:
// kernels/flow/resident_flowacc.h). The whole raster's codes, in-degrees and sums live in device
// memory; each kernel is one step of resident_flowacc_steps.h over a grid-stride loop of cells
// (64-bit indices), the same functions the CPU twin calls:
//   count_cells     step 1: codes checked, in-degrees counted (atomicAdd), valid cells and outlets;
//   set_weights     a window's fixed-point amounts from its weights (staged on the device);
//   prepare_cells   step 2: amounts of counts, sources marked;
//   walk_sources    step 3: one walk per source (atomicAdd of the sum, __threadfence, atomicSub of the
//                   in-degree; the walk that takes it to 0 goes on);
//   finish_cells    step 4: cells on loops, the largest sum (atomicMax);
//   read_window     a window's values into the staging tile.
// Windows cross the bus through page-locked t x t staging tiles (codes as bytes, weights and values
// as doubles). Every CUDA call and
// launch is checked.
#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "kernels/common/cuda_support.cuh"
#include "kernels/common/error.h"
#include "kernels/flow/resident_code_solver.h"
#include "kernels/flow/resident_cuda.cuh"
#include "kernels/flow/resident_flowacc.h"
#include "kernels/flow/resident_flowacc_steps.h"

namespace terrazo {
namespace cuda {
namespace {

// The device's counters of one accumulation.
struct FlowCounters {
  unsigned long long valid, outlets, bad_codes, bad_weights, looped, overflow;
  long long largest;
  unsigned long long any_valid;
};

static __global__ void count_cells(ResidentFlowRaster r, FlowCounters* __restrict__ counters) {
  ResidentCellCount count;
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) count.add(resident_count_cell(r, i));
  if (count.valid) atomicAdd(&counters->valid, static_cast<unsigned long long>(count.valid));
  if (count.outlets) atomicAdd(&counters->outlets, static_cast<unsigned long long>(count.outlets));
  if (count.bad) atomicAdd(&counters->bad_codes, static_cast<unsigned long long>(count.bad));
}

static __global__ void set_weights(ResidentFlowRaster r, std::uint64_t x0, std::uint64_t y0, std::uint32_t w,
                                   std::uint32_t h, const double* __restrict__ staged, double scale,
                                   FlowCounters* __restrict__ counters) {
  const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
  unsigned long long bad = 0;
  for (std::uint64_t k = first_cell(); k < n; k += cell_stride())
    bad += !resident_set_weight(r, (y0 + k / w) * r.width + x0 + k % w, staged[k], scale);
  if (bad) atomicAdd(&counters->bad_weights, bad);
}

static __global__ void prepare_cells(ResidentFlowRaster r, bool weighted) {
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) resident_prepare_cell(r, i, weighted);
}

static __global__ void walk_sources(ResidentFlowRaster r, FlowCounters* __restrict__ counters) {
  bool overflow = false;
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride())
    if (resident_is_source(r, i)) overflow |= resident_walk(r, i);
  if (overflow) atomicAdd(&counters->overflow, 1ull);
}

static __global__ void finish_cells(ResidentFlowRaster r, FlowCounters* __restrict__ counters) {
  unsigned long long looped = 0;
  long long largest = LLONG_MIN;
  bool any = false;
  for (std::uint64_t i = first_cell(); i < r.cells(); i += cell_stride()) {
    looped += resident_looped(r, i);
    if (!resident_walkable(r.code[i])) continue;
    largest = max(largest, static_cast<long long>(r.sum[i]));
    any = true;
  }
  if (looped) atomicAdd(&counters->looped, looped);
  if (any) {
    atomicMax(&counters->largest, largest);
    atomicAdd(&counters->any_valid, 1ull);
  }
}

static __global__ void read_window(ResidentFlowRaster r, std::uint64_t x0, std::uint64_t y0, std::uint32_t w,
                                   std::uint32_t h, double scale, double* __restrict__ staged) {
  const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
  for (std::uint64_t k = first_cell(); k < n; k += cell_stride())
    staged[k] = resident_value(r, (y0 + k / w) * r.width + x0 + k % w, scale);
}

// Blocks for a counting step: enough to fill the device, few enough that each thread's counters are
// added once.
unsigned counting_blocks(std::uint64_t items) {
  return std::min(blocks_for(items), static_cast<unsigned>(multiprocessor_count()) * 16u);
}

class ResidentFlowAccCuda final : public ResidentCodeSolver<ResidentFlowAcc, ResidentCodesCuda> {
 public:
  explicit ResidentFlowAccCuda(const ResidentFlowAccOptions& options)
      : ResidentCodeSolver("resident flowacc", options.width, options.height, options.tile), options_(options),
        in_degree_(cells()), sum_(cells()), counters_(1),
        staged_(std::uint64_t{options.tile} * options.tile),
        host_values_(staged_.size()),
        raster_{codes_.raster(), in_degree_.get(), sum_.get()} {
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(in_degree_.get(), 0, in_degree_.bytes(), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(sum_.get(), 0, sum_.bytes(), stream_.get()));
    FlowCounters zero{};
    zero.largest = std::numeric_limits<long long>::min();
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(counters_.get(), &zero, sizeof zero, cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();
  }

  void write_weights(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                     const double* weights) override {
    codes_.check_window(x0, y0, w, h);
    double* host = host_values_.get();
    for (std::uint32_t y = 0; y < h; ++y) std::memcpy(host + std::size_t{y} * w, weights + std::size_t{y} * pitch, w * sizeof(double));
    const std::uint64_t n = std::uint64_t{w} * h;
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(staged_.get(), host, n * sizeof(double), cudaMemcpyHostToDevice, stream_.get()));
    set_weights<<<blocks_for(n), kThreads, 0, stream_.get()>>>(raster_, x0, y0, w, h, staged_.get(), options_.scale,
                                                               counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    stream_.synchronize();
  }

  ResidentFlowAccStats accumulate() override {
    const std::uint64_t n = cells();
    CudaEvent start, stop;
    start.record(stream_.get());
    count_cells<<<counting_blocks(n), kThreads, 0, stream_.get()>>>(raster_, counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    prepare_cells<<<blocks_for(n), kThreads, 0, stream_.get()>>>(raster_, options_.weighted);
    TERRAZO_CUDA_CHECK_LAUNCH();
    walk_sources<<<blocks_for(n), kThreads, 0, stream_.get()>>>(raster_, counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    finish_cells<<<counting_blocks(n), kThreads, 0, stream_.get()>>>(raster_, counters_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    stop.record(stream_.get());
    FlowCounters c{};
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&c, counters_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    ResidentFlowAccStats stats;
    stats.valid_cells = c.valid;
    stats.outlets = c.outlets;
    stats.bad_codes = c.bad_codes;
    stats.bad_weights = c.bad_weights;
    stats.looped = c.looped;
    stats.overflow = c.overflow != 0;
    stats.largest = c.any_valid ? c.largest : 0;
    stats.kernel_ms = stop.elapsed_since(start);
    return stats;
  }

  void read_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                   double* out) override {
    codes_.check_window(x0, y0, w, h);
    const std::uint64_t n = std::uint64_t{w} * h;
    read_window<<<blocks_for(n), kThreads, 0, stream_.get()>>>(raster_, x0, y0, w, h, options_.scale, staged_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    download_window(staged_.get(), host_values_.get(), w, h, out, pitch, stream_);
  }

 private:
  std::uint64_t cells() const { return options_.width * options_.height; }

  ResidentFlowAccOptions options_;
  const CudaStream& stream_ = codes_.stream();
  DeviceBuffer<std::uint32_t> in_degree_;
  DeviceBuffer<unsigned long long> sum_;
  DeviceBuffer<FlowCounters> counters_;
  DeviceBuffer<double> staged_;
  PinnedBuffer<double> host_values_;
  ResidentFlowRaster raster_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<ResidentFlowAcc> make_resident_flowacc_cuda(const ResidentFlowAccOptions& options) {
  return std::make_unique<cuda::ResidentFlowAccCuda>(options);
}

}  // namespace terrazo
