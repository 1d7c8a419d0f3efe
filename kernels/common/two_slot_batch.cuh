// kernels/common/two_slot_batch.cuh: the streamed two-slot loop every CUDA batch solver runs
// (CudaMstBatchSolver, CudaSsspBatchSolver, CudaGraphMsfBatchSolver; the model:
// kernels/common/block_batch.h). Included by kernels/*.cu only.
//
// Each slot owns a stream, the events that time it and the family's pinned and device buffers
// (a Slot type deriving from StreamedSlot). submit() queues on the free slot's stream, in order:
//   start | copy_in | kernels_start | launch | kernels_end | copy_out | end
// and returns at once, so the caller fills the other slot's pinned input while the GPU works;
// wait() blocks on the oldest slot's `end` event and hands that slot back, its outputs complete.
// Two streams let one slot's copies overlap the other's kernels (H100/H200 have a copy engine for
// each direction). The family's steps issue only checked calls (TERRAZO_CUDA_CHECK and
// TERRAZO_CUDA_CHECK_LAUNCH); the events are checked by CudaEvent.
//
//   TwoSlotBatch<MySlot> batches("CudaMyBatchSolver");
//   for (MySlot& slot : batches.slots()) ... allocate ...
//   ... fill batches.free_slot()'s pinned input ...
//   batches.submit(steps);            // steps.copy_in, steps.launch, steps.copy_out (slot, stream)
//   MySlot& done = batches.wait();    // done.kernel_ms(), done.total_ms(), the outputs
//
// Destruction waits for both streams before any slot's buffers are freed: a solver declares its
// TwoSlotBatch after every other member its kernels read, so it is destroyed first.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/common/block_batch.h"
#include "kernels/common/cuda_support.cuh"

namespace terrazo::cuda {

// The stream and timing events of one slot; a family's slot derives from it and adds its buffers.
struct StreamedSlot {
  CudaStream stream;
  CudaEvent start, kernels_start, kernels_end, end;

  // GPU milliseconds of the launch step, and from the first copy in to the last copy out (both
  // valid once wait() returned the slot).
  double kernel_ms() const { return kernels_end.elapsed_since(kernels_start); }
  double total_ms() const { return end.elapsed_since(start); }
};

template <class Slot>
class TwoSlotBatch {
 public:
  // `owner` names the solver in the errors (both slots in flight, nothing to wait for).
  explicit TwoSlotBatch(const char* owner) : ring_(owner) {}
  ~TwoSlotBatch() {
    for (Slot& slot : slots_) cudaStreamSynchronize(slot.stream.get());  // buffers outlive their work
  }
  TwoSlotBatch(const TwoSlotBatch&) = delete;
  TwoSlotBatch& operator=(const TwoSlotBatch&) = delete;

  // Both slots, to allocate their buffers before the first submit.
  std::array<Slot, 2>& slots() { return slots_; }
  std::size_t pending() const { return ring_.pending(); }  // submitted, not waited for (0..2)
  // The slot the caller fills next; throws terrazo::Error when both are in flight.
  Slot& free_slot() { return slots_[ring_.free_slot()]; }
  // The slot the next submit() starts (the free one); throws terrazo::Error when both are in flight.
  Slot& submit_slot() { return slots_[ring_.submit_slot()]; }

  // submit_slot() for a batch of the slot's first `tiles` tiles (its `tiles` member, set here);
  // throws terrazo::Error also when they exceed the `batch_tiles` the slots hold.
  Slot& tile_slot(std::uint64_t tiles, std::uint64_t batch_tiles) {
    Slot& slot = submit_slot();
    if (tiles > batch_tiles)
      throw Error(std::string(ring_.owner()) + ": " + std::to_string(tiles) + " tiles exceed the batch size " +
                  std::to_string(batch_tiles));
    slot.tiles = tiles;
    return slot;
  }

  // Queues the free slot's batch through the family's steps, each called as
  // steps.step(slot, stream) and enqueuing only asynchronous work on `stream`: copy_in (and the
  // clearing of counters), launch (the kernels), copy_out. Returns without waiting.
  template <class Steps>
  void submit(const Steps& steps) {
    Slot& slot = submit_slot();
    cudaStream_t stream = slot.stream.get();
    slot.start.record(stream);
    steps.copy_in(slot, stream);
    slot.kernels_start.record(stream);
    steps.launch(slot, stream);
    slot.kernels_end.record(stream);
    steps.copy_out(slot, stream);
    slot.end.record(stream);
    ring_.submitted();
  }

  // The oldest submitted slot, finished; throws terrazo::Error when none is in flight. Its
  // outputs stay valid until it is submitted again.
  Slot& wait() {
    Slot& slot = slots_[ring_.oldest_slot()];
    slot.end.synchronize();
    ring_.waited();
    return slot;
  }

 private:
  std::array<Slot, 2> slots_;
  BatchSlots ring_;
};

}  // namespace terrazo::cuda
