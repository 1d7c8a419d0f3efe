// kernels/mst/block_mst_batch.cu: the streamed CudaMstBatchSolver of kernels/mst/block_mst_batch.h.
//
// The two-slot loop of kernels/common/two_slot_batch.cuh; this file gives its steps: copy in the
// tiles' values, launch the block MST (the event mst_end after it) and the block reduce, copy out
// the forest bits, the summaries and the flags. Every CUDA call is checked.
#include <string>

#include "kernels/mst/block_mst_batch.h"
#include "kernels/common/two_slot_batch.cuh"
#include "kernels/mst/block_mst_launch.cuh"

namespace terrazo {

using cuda::CudaEvent;
using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

struct CudaMstBatchSolver::Impl {
  struct Slot : cuda::StreamedSlot {
    CudaEvent mst_end;  // between the block MST and the block reduce
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

  MstBatchOptions options;
  std::uint64_t cells = 0, capacity = 0, batch_tiles = 0, device_bytes = 0, pinned_bytes = 0;
  cuda::TwoSlotBatch<Slot> batches{"CudaMstBatchSolver"};

  void allocate(Slot& slot) const;
  // The steps of TwoSlotBatch::submit, on slot.tiles tiles.
  void copy_in(Slot& slot, cudaStream_t stream) const;
  void launch(Slot& slot, cudaStream_t stream) const;
  void copy_out(Slot& slot, cudaStream_t stream) const;
};

void CudaMstBatchSolver::Impl::allocate(Slot& slot) const {
  const std::uint64_t n = batch_tiles;
  slot.input.resize(n * cells);
  slot.bits.resize(n * cells);
  slot.flags.resize(2);
  slot.d_values.resize(n * cells);
  slot.d_bits.resize(n * cells);
  slot.d_overflow.resize(1);
  slot.mst.shared_limit_bytes = options.shared_limit_bytes;
  slot.reduce.shared_limit_bytes = options.shared_limit_bytes;
  if (options.reduce) {
    slot.summary.resize(n * capacity);
    slot.counts.resize(n);
    slot.d_summary.resize(n * capacity);
    slot.d_counts.resize(n);
    slot.reduce.error.resize(1);
  }
}

void CudaMstBatchSolver::Impl::copy_in(Slot& slot, cudaStream_t stream) const {
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.d_values.get(), slot.input.get(), slot.tiles * cells * sizeof(double),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot.d_overflow.get(), 0, sizeof(int), stream));
}

void CudaMstBatchSolver::Impl::launch(Slot& slot, cudaStream_t stream) const {
  cuda::launch_block_mst(slot.d_values.get(), slot.tiles, options.t, options.params, options.connectivity,
                         slot.d_bits.get(), slot.d_overflow.get(), slot.mst, stream);
  slot.mst_end.record(stream);
  if (options.reduce) {
    cuda::launch_block_reduce(slot.d_bits.get(), slot.d_values.get(), slot.tiles, options.t, options.params,
                              options.connectivity, slot.d_summary.get(), slot.d_counts.get(), slot.reduce, stream);
  }
}

void CudaMstBatchSolver::Impl::copy_out(Slot& slot, cudaStream_t stream) const {
  const std::uint64_t tiles = slot.tiles;
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.bits.get(), slot.d_bits.get(), tiles * cells, cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(
      cudaMemcpyAsync(slot.flags.get(), slot.d_overflow.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  if (options.reduce) {
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.counts.get(), slot.d_counts.get(), tiles * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.summary.get(), slot.d_summary.get(),
                                       tiles * capacity * sizeof(TileSummaryEdge), cudaMemcpyDeviceToHost, stream));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.flags.get() + 1, slot.reduce.error.get(), sizeof(int),
                                       cudaMemcpyDeviceToHost, stream));
  }
}

CudaMstBatchSolver::CudaMstBatchSolver(const MstBatchOptions& options) {
  cuda::require_cuda_device("CudaMstBatchSolver");
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
  s.batch_tiles = cuda::batch_tiles_for_budget(cuda::batch_budget_bytes(options.gpu_memory_bytes), 2 * per_tile,
                                               options.max_batch_tiles, "CudaMstBatchSolver");
  for (Impl::Slot& slot : s.batches.slots()) s.allocate(slot);
  const std::uint64_t n = s.batch_tiles;
  s.device_bytes = 2 * n * per_tile;
  s.pinned_bytes = 2 * n * (s.cells * 9 + (options.reduce ? s.capacity * sizeof(TileSummaryEdge) + 4 : 0));
}

CudaMstBatchSolver::~CudaMstBatchSolver() = default;

std::uint64_t CudaMstBatchSolver::batch_tiles() const { return impl_->batch_tiles; }
std::uint64_t CudaMstBatchSolver::device_bytes() const { return impl_->device_bytes; }
std::uint64_t CudaMstBatchSolver::pinned_bytes() const { return impl_->pinned_bytes; }
std::size_t CudaMstBatchSolver::pending() const { return impl_->batches.pending(); }

double* CudaMstBatchSolver::input() { return impl_->batches.free_slot().input.get(); }

void CudaMstBatchSolver::submit(std::uint64_t tiles) {
  impl_->batches.tile_slot(tiles, impl_->batch_tiles);
  impl_->batches.submit(*impl_);
}

const CudaMstBatchSolver::Batch& CudaMstBatchSolver::wait() {
  Impl& s = *impl_;
  Impl::Slot& slot = s.batches.wait();
  Batch& batch = slot.batch;
  batch.tiles = slot.tiles;
  batch.forest_bits = slot.bits.get();
  batch.overflow = slot.flags.get()[0] != 0;
  batch.mst_ms = slot.mst_end.elapsed_since(slot.kernels_start);
  batch.kernel_ms = slot.kernel_ms();
  batch.total_ms = slot.total_ms();
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

}  // namespace terrazo
