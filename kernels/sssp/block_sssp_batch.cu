// kernels/sssp/block_sssp_batch.cu: the streamed CudaSsspBatchSolver of kernels/sssp/block_sssp_batch.h.
//
// Per slot, on its own stream: events start | copy in | k0 | block SSSP | k1 | copy out | end. Two
// slots on two streams let one slot's copies overlap the other's kernels (H100/H200 have separate
// copy engines for each direction). Every CUDA call is checked.
#include <algorithm>
#include <array>
#include <string>

#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/sssp/block_sssp_launch.cuh"
#include "kernels/sssp/knight.h"

namespace terrazo {

using cuda::CudaEvent;
using cuda::CudaStream;
using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

struct CudaSsspBatchSolver::Impl {
  struct Slot {
    CudaStream stream;
    CudaEvent start, kernels_start, kernels_end, end;
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
  std::array<Slot, 2> slots;
  BatchSlots ring{"CudaSsspBatchSolver"};
  DeviceBuffer<double> d_steps;  // the per-row step-length table, when the weights have one
  WeightParams device_params;    // options.params with the table's device pointer
};

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
  const std::uint64_t n = s.batch_tiles;
  for (Impl::Slot& slot : s.slots) {
    slot.values.resize(n * s.grid);
    slot.dist.resize(n * s.grid);
    slot.changed.resize(n * s.cells);
    slot.total.resize(2);
    slot.overflow.resize(1);
    slot.row0.resize(n);
    slot.d_row0.resize(n);
    slot.d_values.resize(n * s.grid);
    slot.d_dist.resize(n * s.grid);
    slot.d_changed.resize(n * s.cells);
    slot.d_total.resize(2);
    slot.d_overflow.resize(1);
    slot.workspace.shared_limit_bytes = options.shared_limit_bytes;
    slot.workspace.sweep = options.sweep;
  }
  s.device_params = options.params;
  if (options.params.steps.rows) {
    const std::uint64_t entries = static_cast<std::uint64_t>(options.params.steps.row_count) * 3;
    s.d_steps.resize(entries);
    TERRAZO_CUDA_CHECK(cudaMemcpy(s.d_steps.get(), options.params.steps.rows, entries * sizeof(double),
                                  cudaMemcpyHostToDevice));
    s.device_params.steps.rows = s.d_steps.get();
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
std::size_t CudaSsspBatchSolver::pending() const { return impl_->ring.pending(); }

double* CudaSsspBatchSolver::values() {
  return impl_->slots[impl_->ring.free_slot()].values.get();
}

PathLength* CudaSsspBatchSolver::dist() {
  return impl_->slots[impl_->ring.free_slot()].dist.get();
}

std::int64_t* CudaSsspBatchSolver::row0() {
  return impl_->slots[impl_->ring.free_slot()].row0.get();
}

void CudaSsspBatchSolver::submit(std::uint64_t tiles) {
  Impl& s = *impl_;
  const std::size_t fill = s.ring.submit_slot();
  if (tiles > s.batch_tiles) {
    throw Error("CudaSsspBatchSolver: " + std::to_string(tiles) + " tiles exceed the batch size " +
                std::to_string(s.batch_tiles));
  }
  Impl::Slot& slot = s.slots[fill];
  cudaStream_t stream = slot.stream.get();
  slot.tiles = tiles;
  slot.start.record(stream);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_values.get(), slot.values.get(), tiles * s.grid * sizeof(double),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_dist.get(), slot.dist.get(), tiles * s.grid * sizeof(PathLength),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_row0.get(), slot.row0.get(), tiles * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_total.get(), 0, 2 * sizeof(unsigned long long), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_overflow.get(), 0, sizeof(int), stream));
  slot.kernels_start.record(stream);
  cuda::launch_block_sssp(slot.d_values.get(), tiles, s.options.t, s.device_params, s.options.connectivity,
                          s.max_cost, slot.d_dist.get(), slot.d_changed.get(), slot.d_total.get(),
                          slot.d_overflow.get(), slot.workspace, stream, slot.d_total.get() + 1, slot.d_row0.get());
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
  s.ring.submitted();
}

const CudaSsspBatchSolver::Batch& CudaSsspBatchSolver::wait() {
  Impl& s = *impl_;
  Impl::Slot& slot = s.slots[s.ring.oldest_slot()];
  slot.end.synchronize();
  s.ring.waited();
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
