// kernels/sssp/block_sssp_batch.cu: the streamed CudaSsspBatchSolver of kernels/sssp/block_sssp_batch.h.
//
// The two-slot loop of kernels/common/two_slot_batch.cuh; this file gives its steps: copy in the
// tiles' values, distances and row origins, launch the block SSSP, copy out the distances, the
// changed flags and the counters. Every CUDA call is checked.
#include <string>

#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/common/two_slot_batch.cuh"
#include "kernels/sssp/block_sssp_launch.cuh"
#include "kernels/sssp/knight.h"

namespace terrazo {

using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

struct CudaSsspBatchSolver::Impl {
  struct Slot : cuda::StreamedSlot {
    PinnedBuffer<double> values;
    PinnedBuffer<PathLength> dist;
    PinnedBuffer<std::uint8_t> changed;
    PinnedBuffer<unsigned long long> total;  // [0] changed cells, [1] sweep rounds
    PinnedBuffer<int> overflow;
    PinnedBuffer<std::int64_t> row0;  // each tile's window row origin (per-row step lengths)
    DeviceBuffer<double> d_values;
    DeviceBuffer<std::int64_t> d_row0;
    DeviceBuffer<PathLength> d_dist;
    DeviceBuffer<std::uint8_t> d_changed;
    DeviceBuffer<unsigned long long> d_total;
    DeviceBuffer<int> d_overflow;
    cuda::SsspWorkspace workspace;
    std::uint64_t tiles = 0;
    Batch batch;
  };

  SsspBatchOptions options;
  PathLength max_cost = kUnreached;
  std::uint64_t grid = 0, cells = 0, batch_tiles = 0, device_bytes = 0, pinned_bytes = 0;
  DeviceBuffer<double> d_steps;  // the per-row step-length table, when the weights have one
  WeightParams device_params;    // options.params with the table's device pointer
  cuda::TwoSlotBatch<Slot> batches{"CudaSsspBatchSolver"};  // last: its streams finish before d_steps is freed

  void allocate(Slot& slot) const;
  void upload_step_table();
  // The steps of TwoSlotBatch::submit, on slot.tiles tiles.
  void copy_in(Slot& slot, cudaStream_t stream) const;
  void launch(Slot& slot, cudaStream_t stream) const;
  void copy_out(Slot& slot, cudaStream_t stream) const;
};

void CudaSsspBatchSolver::Impl::allocate(Slot& slot) const {
  const std::uint64_t n = batch_tiles;
  slot.values.resize(n * grid);
  slot.dist.resize(n * grid);
  slot.changed.resize(n * cells);
  slot.total.resize(2);
  slot.overflow.resize(1);
  slot.row0.resize(n);
  slot.d_row0.resize(n);
  slot.d_values.resize(n * grid);
  slot.d_dist.resize(n * grid);
  slot.d_changed.resize(n * cells);
  slot.d_total.resize(2);
  slot.d_overflow.resize(1);
  slot.workspace.shared_limit_bytes = options.shared_limit_bytes;
  slot.workspace.sweep = options.sweep;
}

void CudaSsspBatchSolver::Impl::upload_step_table() {
  device_params = options.params;
  if (!options.params.steps.rows) return;
  const std::uint64_t entries = static_cast<std::uint64_t>(options.params.steps.row_count) * 3;
  d_steps.resize(entries);
  TERRAZO_CUDA_CHECK(
      cudaMemcpy(d_steps.get(), options.params.steps.rows, entries * sizeof(double), cudaMemcpyHostToDevice));
  device_params.steps.rows = d_steps.get();
}

void CudaSsspBatchSolver::Impl::copy_in(Slot& slot, cudaStream_t stream) const {
  const std::uint64_t tiles = slot.tiles;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_values.get(), slot.values.get(), tiles * grid * sizeof(double),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_dist.get(), slot.dist.get(), tiles * grid * sizeof(PathLength),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_row0.get(), slot.row0.get(), tiles * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_total.get(), 0, 2 * sizeof(unsigned long long), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_overflow.get(), 0, sizeof(int), stream));
}

void CudaSsspBatchSolver::Impl::launch(Slot& slot, cudaStream_t stream) const {
  cuda::launch_block_sssp(slot.d_values.get(), slot.tiles, options.t, device_params, options.connectivity, max_cost,
                          slot.d_dist.get(), slot.d_changed.get(), slot.d_total.get(), slot.d_overflow.get(),
                          slot.workspace, stream, slot.d_total.get() + 1, slot.d_row0.get());
}

void CudaSsspBatchSolver::Impl::copy_out(Slot& slot, cudaStream_t stream) const {
  const std::uint64_t tiles = slot.tiles;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.dist.get(), slot.d_dist.get(), tiles * grid * sizeof(PathLength),
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(
      cudaMemcpyAsync(slot.changed.get(), slot.d_changed.get(), tiles * cells, cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.total.get(), slot.d_total.get(), 2 * sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(
      cudaMemcpyAsync(slot.overflow.get(), slot.d_overflow.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
}

CudaSsspBatchSolver::CudaSsspBatchSolver(const SsspBatchOptions& options, PathLength max_cost) {
  cuda::require_cuda_device("CudaSsspBatchSolver");
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.options = options;
  s.max_cost = max_cost;
  const std::uint32_t t = options.t;
  const bool knight = options.connectivity == Connectivity::Sixteen;  // (t+4)^2 windows (kernels/sssp/knight.h)
  s.grid = static_cast<std::uint64_t>(t + 2 * halo_width(options.connectivity)) * (t + 2 * halo_width(options.connectivity));
  s.cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t per_tile =
      s.grid * 16 + s.cells + (knight ? cuda::block_sssp_knight_scratch_bytes_per_tile(t)
                                      : cuda::block_sssp_scratch_bytes_per_tile(t, is_directed(options.params.model)));
  s.batch_tiles = cuda::batch_tiles_for_budget(cuda::batch_budget_bytes(options.gpu_memory_bytes), 2 * per_tile,
                                               options.max_batch_tiles, "CudaSsspBatchSolver");
  for (Impl::Slot& slot : s.batches.slots()) s.allocate(slot);
  s.upload_step_table();
  const std::uint64_t n = s.batch_tiles;
  s.device_bytes = 2 * n * per_tile;
  s.pinned_bytes = 2 * n * (s.grid * 16 + s.cells);
}

CudaSsspBatchSolver::~CudaSsspBatchSolver() = default;

std::uint64_t CudaSsspBatchSolver::batch_tiles() const { return impl_->batch_tiles; }
std::uint64_t CudaSsspBatchSolver::device_bytes() const { return impl_->device_bytes; }
std::uint64_t CudaSsspBatchSolver::pinned_bytes() const { return impl_->pinned_bytes; }
std::size_t CudaSsspBatchSolver::pending() const { return impl_->batches.pending(); }

double* CudaSsspBatchSolver::values() { return impl_->batches.free_slot().values.get(); }
PathLength* CudaSsspBatchSolver::dist() { return impl_->batches.free_slot().dist.get(); }
std::int64_t* CudaSsspBatchSolver::row0() { return impl_->batches.free_slot().row0.get(); }

void CudaSsspBatchSolver::submit(std::uint64_t tiles) {
  impl_->batches.tile_slot(tiles, impl_->batch_tiles);
  impl_->batches.submit(*impl_);
}

const CudaSsspBatchSolver::Batch& CudaSsspBatchSolver::wait() {
  Impl::Slot& slot = impl_->batches.wait();
  Batch& batch = slot.batch;
  batch.tiles = slot.tiles;
  batch.dist = slot.dist.get();
  batch.changed = slot.changed.get();
  batch.changed_cells = slot.total.get()[0];
  batch.sweep_rounds = slot.total.get()[1];
  batch.overflow = slot.overflow.get()[0] != 0;
  batch.kernel_ms = slot.kernel_ms();
  batch.total_ms = slot.total_ms();
  return batch;
}

}  // namespace terrazo
