// kernels/common/block_batch.cu: the streamed batch solvers of kernels/common/block_batch.h.
//
// Per slot, on its own stream: events start | copy in | k0 | solver kernels | k1 | copy out | end.
// Two slots on two streams let one slot's copies overlap the other's kernels (H100/H200 have
// separate copy engines for each direction).
#include <algorithm>
#include <array>
#include <string>

#include "kernels/common/block_batch.h"
#include "kernels/common/block_solvers.cuh"
#include "kernels/common/cuda_device.h"

namespace terrazo {
namespace {

using cuda::CudaEvent;
using cuda::CudaStream;
using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

std::uint64_t default_budget(std::uint64_t requested) {
  if (requested) return requested;
  std::size_t free_bytes = 0, total_bytes = 0;
  TERRAZO_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes / 4;
}

std::uint64_t tiles_for_budget(std::uint64_t budget, std::uint64_t per_tile_both_slots, std::uint64_t max_tiles,
                               const char* what) {
  const std::uint64_t fit = budget / per_tile_both_slots;
  if (fit == 0) {
    throw Error(std::string(what) + ": --gpu-memory " + std::to_string(budget) + " bytes is too small for one tile (" +
                std::to_string(per_tile_both_slots) + " bytes with both slots); raise it or lower --tile");
  }
  return max_tiles ? std::min(fit, max_tiles) : fit;
}

void require_device(const char* what) {
  if (!cuda_device().available) throw Error(std::string(what) + ": " + cuda_device().reason);
}

}  // namespace

// ---- MST -------------------------------------------------------------------------------------

struct CudaMstBatchSolver::Impl {
  struct Slot {
    CudaStream stream;
    CudaEvent start, kernels_start, mst_end, kernels_end, end;
    PinnedBuffer<double> input;
    PinnedBuffer<std::uint8_t> bits;
    PinnedBuffer<TileSummaryEdge> summary;
    PinnedBuffer<std::uint32_t> counts;
    PinnedBuffer<int> flags;  // [0] overflow, [1] reduce error
    DeviceBuffer<double> d_values;
    DeviceBuffer<std::uint8_t> d_bits;
    DeviceBuffer<TileSummaryEdge> d_summary;
    DeviceBuffer<std::uint32_t> d_counts;
    DeviceBuffer<int> d_overflow;
    cuda::MstWorkspace mst;
    cuda::ReduceWorkspace reduce;
    std::uint64_t tiles = 0;
    Batch batch;
  };

  BlockBatchOptions options;
  std::uint64_t cells = 0, capacity = 0, batch_tiles = 0, device_bytes = 0, pinned_bytes = 0;
  std::array<Slot, 2> slots;
  std::size_t fill = 0;     // slot filled next
  std::size_t pending = 0;  // submitted, not waited for; the oldest is (fill + 2 - pending) % 2
};

CudaMstBatchSolver::CudaMstBatchSolver(const BlockBatchOptions& options) {
  require_device("CudaMstBatchSolver");
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.options = options;
  const std::uint32_t t = options.t;
  s.cells = static_cast<std::uint64_t>(t) * t;
  s.capacity = static_cast<std::uint64_t>(kMaxSummaryEdgesPerSide) * t;
  const std::uint64_t per_tile = s.cells * 9 + cuda::block_mst_scratch_bytes_per_tile(t) +
                                 (options.reduce ? 2 * s.capacity * sizeof(TileSummaryEdge) + 4 +
                                                       cuda::block_reduce_scratch_bytes_per_tile(t)
                                                 : 0);
  s.batch_tiles = tiles_for_budget(default_budget(options.gpu_memory_bytes), 2 * per_tile, options.max_batch_tiles,
                                   "CudaMstBatchSolver");
  const std::uint64_t n = s.batch_tiles;
  for (Impl::Slot& slot : s.slots) {
    slot.input.resize(n * s.cells);
    slot.bits.resize(n * s.cells);
    slot.flags.resize(2);
    slot.d_values.resize(n * s.cells);
    slot.d_bits.resize(n * s.cells);
    slot.d_overflow.resize(1);
    slot.mst.shared_limit_bytes = options.shared_limit_bytes;
    slot.reduce.shared_limit_bytes = options.shared_limit_bytes;
    if (options.reduce) {
      slot.summary.resize(n * s.capacity);
      slot.counts.resize(n);
      slot.d_summary.resize(n * s.capacity);
      slot.d_counts.resize(n);
      slot.reduce.error.resize(1);
    }
  }
  s.device_bytes = 2 * n * per_tile;
  s.pinned_bytes = 2 * n * (s.cells * 9 + (options.reduce ? s.capacity * sizeof(TileSummaryEdge) + 4 : 0));
}

CudaMstBatchSolver::~CudaMstBatchSolver() {
  if (!impl_) return;
  for (Impl::Slot& slot : impl_->slots) cudaStreamSynchronize(slot.stream.get());  // buffers outlive their work
}

std::uint64_t CudaMstBatchSolver::batch_tiles() const { return impl_->batch_tiles; }
std::uint64_t CudaMstBatchSolver::device_bytes() const { return impl_->device_bytes; }
std::uint64_t CudaMstBatchSolver::pinned_bytes() const { return impl_->pinned_bytes; }
std::size_t CudaMstBatchSolver::pending() const { return impl_->pending; }

double* CudaMstBatchSolver::input() {
  if (impl_->pending == 2) throw Error("CudaMstBatchSolver: both slots are in flight; wait() before filling one");
  return impl_->slots[impl_->fill].input.get();
}

void CudaMstBatchSolver::submit(std::uint64_t tiles) {
  Impl& s = *impl_;
  if (s.pending == 2) throw Error("CudaMstBatchSolver: both slots are in flight; wait() before submitting");
  if (tiles > s.batch_tiles) {
    throw Error("CudaMstBatchSolver: " + std::to_string(tiles) + " tiles exceed the batch size " +
                std::to_string(s.batch_tiles));
  }
  Impl::Slot& slot = s.slots[s.fill];
  cudaStream_t stream = slot.stream.get();
  const std::uint32_t t = s.options.t;
  slot.tiles = tiles;
  slot.start.record(stream);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_values.get(), slot.input.get(), tiles * s.cells * sizeof(double),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_overflow.get(), 0, sizeof(int), stream));
  slot.kernels_start.record(stream);
  cuda::launch_block_mst(slot.d_values.get(), tiles, t, s.options.params, s.options.connectivity, slot.d_bits.get(),
                         slot.d_overflow.get(), slot.mst, stream);
  slot.mst_end.record(stream);
  if (s.options.reduce) {
    cuda::launch_block_reduce(slot.d_bits.get(), slot.d_values.get(), tiles, t, s.options.params,
                              s.options.connectivity, slot.d_summary.get(), slot.d_counts.get(), slot.reduce, stream);
  }
  slot.kernels_end.record(stream);
  TERRAZO_CUDA_CHECK(
      cudaMemcpyAsync(slot.bits.get(), slot.d_bits.get(), tiles * s.cells, cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(
      cudaMemcpyAsync(slot.flags.get(), slot.d_overflow.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  if (s.options.reduce) {
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.counts.get(), slot.d_counts.get(), tiles * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.summary.get(), slot.d_summary.get(),
                                       tiles * s.capacity * sizeof(TileSummaryEdge), cudaMemcpyDeviceToHost, stream));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.flags.get() + 1, slot.reduce.error.get(), sizeof(int),
                                       cudaMemcpyDeviceToHost, stream));
  }
  slot.end.record(stream);
  s.fill = 1 - s.fill;
  ++s.pending;
}

const CudaMstBatchSolver::Batch& CudaMstBatchSolver::wait() {
  Impl& s = *impl_;
  if (s.pending == 0) throw Error("CudaMstBatchSolver: wait() without a submitted batch");
  Impl::Slot& slot = s.slots[(s.fill + 2 - s.pending) % 2];
  slot.end.synchronize();
  --s.pending;
  Batch& batch = slot.batch;
  batch.tiles = slot.tiles;
  batch.forest_bits = slot.bits.get();
  batch.overflow = slot.flags.get()[0] != 0;
  batch.mst_ms = slot.mst_end.elapsed_since(slot.kernels_start);
  batch.kernel_ms = slot.kernels_end.elapsed_since(slot.kernels_start);
  batch.total_ms = slot.end.elapsed_since(slot.start);
  batch.summary_edges = nullptr;
  batch.summary_counts = nullptr;
  batch.summary_stride = 0;
  if (s.options.reduce) {
    if (slot.flags.get()[1]) throw Error("CudaMstBatchSolver: the block reduce met a cycle in a forest");
    cuda::check_summary_counts(slot.counts.get(), slot.tiles, s.options.t);
    batch.summary_edges = slot.summary.get();
    batch.summary_counts = slot.counts.get();
    batch.summary_stride = s.capacity;
  }
  return batch;
}

// ---- SSSP ------------------------------------------------------------------------------------

struct CudaSsspBatchSolver::Impl {
  struct Slot {
    CudaStream stream;
    CudaEvent start, kernels_start, kernels_end, end;
    PinnedBuffer<double> values;
    PinnedBuffer<PathLength> dist;
    PinnedBuffer<std::uint8_t> changed;
    PinnedBuffer<unsigned long long> total;  // [0] changed cells, [1] sweep rounds
    PinnedBuffer<int> overflow;
    DeviceBuffer<double> d_values;
    DeviceBuffer<PathLength> d_dist;
    DeviceBuffer<std::uint8_t> d_changed;
    DeviceBuffer<unsigned long long> d_total;
    DeviceBuffer<int> d_overflow;
    cuda::SsspWorkspace workspace;
    std::uint64_t tiles = 0;
    Batch batch;
  };

  BlockBatchOptions options;
  PathLength max_cost = kUnreached;
  std::uint64_t grid = 0, cells = 0, batch_tiles = 0, device_bytes = 0, pinned_bytes = 0;
  std::array<Slot, 2> slots;
  std::size_t fill = 0, pending = 0;
};

CudaSsspBatchSolver::CudaSsspBatchSolver(const BlockBatchOptions& options, PathLength max_cost) {
  require_device("CudaSsspBatchSolver");
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.options = options;
  s.max_cost = max_cost;
  const std::uint32_t t = options.t;
  s.grid = static_cast<std::uint64_t>(t + 2) * (t + 2);
  s.cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t per_tile = s.grid * 16 + s.cells + cuda::block_sssp_scratch_bytes_per_tile(t);
  s.batch_tiles = tiles_for_budget(default_budget(options.gpu_memory_bytes), 2 * per_tile, options.max_batch_tiles,
                                   "CudaSsspBatchSolver");
  const std::uint64_t n = s.batch_tiles;
  for (Impl::Slot& slot : s.slots) {
    slot.values.resize(n * s.grid);
    slot.dist.resize(n * s.grid);
    slot.changed.resize(n * s.cells);
    slot.total.resize(2);
    slot.overflow.resize(1);
    slot.d_values.resize(n * s.grid);
    slot.d_dist.resize(n * s.grid);
    slot.d_changed.resize(n * s.cells);
    slot.d_total.resize(2);
    slot.d_overflow.resize(1);
    slot.workspace.shared_limit_bytes = options.shared_limit_bytes;
    slot.workspace.sweep = options.sssp_sweep;
  }
  s.device_bytes = 2 * n * per_tile;
  s.pinned_bytes = 2 * n * (s.grid * 16 + s.cells);
}

CudaSsspBatchSolver::~CudaSsspBatchSolver() {
  if (!impl_) return;
  for (Impl::Slot& slot : impl_->slots) cudaStreamSynchronize(slot.stream.get());
}

std::uint64_t CudaSsspBatchSolver::batch_tiles() const { return impl_->batch_tiles; }
std::uint64_t CudaSsspBatchSolver::device_bytes() const { return impl_->device_bytes; }
std::uint64_t CudaSsspBatchSolver::pinned_bytes() const { return impl_->pinned_bytes; }
std::size_t CudaSsspBatchSolver::pending() const { return impl_->pending; }

double* CudaSsspBatchSolver::values() {
  if (impl_->pending == 2) throw Error("CudaSsspBatchSolver: both slots are in flight; wait() before filling one");
  return impl_->slots[impl_->fill].values.get();
}

PathLength* CudaSsspBatchSolver::dist() {
  if (impl_->pending == 2) throw Error("CudaSsspBatchSolver: both slots are in flight; wait() before filling one");
  return impl_->slots[impl_->fill].dist.get();
}

void CudaSsspBatchSolver::submit(std::uint64_t tiles) {
  Impl& s = *impl_;
  if (s.pending == 2) throw Error("CudaSsspBatchSolver: both slots are in flight; wait() before submitting");
  if (tiles > s.batch_tiles) {
    throw Error("CudaSsspBatchSolver: " + std::to_string(tiles) + " tiles exceed the batch size " +
                std::to_string(s.batch_tiles));
  }
  Impl::Slot& slot = s.slots[s.fill];
  cudaStream_t stream = slot.stream.get();
  slot.tiles = tiles;
  slot.start.record(stream);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_values.get(), slot.values.get(), tiles * s.grid * sizeof(double),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_dist.get(), slot.dist.get(), tiles * s.grid * sizeof(PathLength),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_total.get(), 0, 2 * sizeof(unsigned long long), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_overflow.get(), 0, sizeof(int), stream));
  slot.kernels_start.record(stream);
  cuda::launch_block_sssp(slot.d_values.get(), tiles, s.options.t, s.options.params, s.options.connectivity,
                          s.max_cost, slot.d_dist.get(), slot.d_changed.get(), slot.d_total.get(),
                          slot.d_overflow.get(), slot.workspace, stream, slot.d_total.get() + 1);
  slot.kernels_end.record(stream);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.dist.get(), slot.d_dist.get(), tiles * s.grid * sizeof(PathLength),
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(
      cudaMemcpyAsync(slot.changed.get(), slot.d_changed.get(), tiles * s.cells, cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.total.get(), slot.d_total.get(), 2 * sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(
      cudaMemcpyAsync(slot.overflow.get(), slot.d_overflow.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  slot.end.record(stream);
  s.fill = 1 - s.fill;
  ++s.pending;
}

const CudaSsspBatchSolver::Batch& CudaSsspBatchSolver::wait() {
  Impl& s = *impl_;
  if (s.pending == 0) throw Error("CudaSsspBatchSolver: wait() without a submitted batch");
  Impl::Slot& slot = s.slots[(s.fill + 2 - s.pending) % 2];
  slot.end.synchronize();
  --s.pending;
  Batch& batch = slot.batch;
  batch.tiles = slot.tiles;
  batch.dist = slot.dist.get();
  batch.changed = slot.changed.get();
  batch.changed_cells = slot.total.get()[0];
  batch.sweep_rounds = slot.total.get()[1];
  batch.overflow = slot.overflow.get()[0] != 0;
  batch.kernel_ms = slot.kernels_end.elapsed_since(slot.kernels_start);
  batch.total_ms = slot.end.elapsed_since(slot.start);
  return batch;
}

}  // namespace terrazo
