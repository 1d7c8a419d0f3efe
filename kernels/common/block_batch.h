// kernels/common/block_batch.h: what the streamed CUDA batch solvers of both pipelines share: the
// options of a batch of tiles, and the two-slot bookkeeping. The solvers themselves are
// CudaMstBatchSolver (kernels/mst/block_mst_batch.h: block MST + reduction, MST phase 1),
// CudaSsspBatchSolver (kernels/sssp/block_sssp_batch.h: block SSSP, the SSSP exchange),
// CudaGraphMsfBatchSolver (kernels/mst/graph_msf.h: the MST level merge) and CudaClumpBatchSolver
// (kernels/clump/label_tile.h: clump phase 1); each runs the one streamed loop of
// kernels/common/two_slot_batch.cuh with its own copy and launch steps.
//
// A solver owns two slots, each with page-locked host buffers, device buffers and its own CUDA
// stream. The caller fills the free slot's pinned input, submits it (asynchronous: copy in, solve,
// copy out), and fills the other slot while the first one runs; wait() hands back the oldest
// batch. Plain C++ interfaces (no CUDA types), so engine/ code compiled without nvcc can use them; in
// a build without CUDA the constructors throw terrazo::Error (each family's <family>_cuda_none.cpp).
//
//   Cuda...BatchSolver solver(options);
//   for (each group of up to solver.batch_tiles() tiles) {
//     if (solver.pending() == 2) consume(solver.wait());   // frees the slot filled next
//     ... copy the tiles into the free slot's input ...
//     solver.submit(tiles_in_group);
//   }
//   while (solver.pending()) consume(solver.wait());
//
// A Batch (its pointers) stays valid until the caller next asks for that slot's input buffers.
// Device memory: 2 slots x batch_tiles x bytes_per_tile (reported by device_bytes()); the batch
// size is the largest that fits gpu_memory_bytes (or max_batch_tiles when that is smaller).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/common/error.h"
#include "kernels/common/tile_geometry.h"

namespace terrazo {

// Options of a tile batch solver; each pipeline's solver adds its own (MstBatchOptions,
// SsspBatchOptions).
struct BlockBatchOptions {
  std::uint32_t t = 256;
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  std::uint64_t gpu_memory_bytes = 0;  // device memory the solver may hold; 0: a quarter of the free memory
  std::uint64_t max_batch_tiles = 0;   // 0: no limit but the memory budget
  std::size_t shared_limit_bytes = 0;  // tuning: cap on shared memory per thread block (0: device maximum)
};

// The two slots of a streamed solver: which one the caller fills next, and which submitted one is
// the oldest. `owner` names the solver in the errors.
class BatchSlots {
 public:
  explicit BatchSlots(const char* owner) : owner_(owner) {}

  std::size_t pending() const { return pending_; }  // submitted, not waited for (0..2)
  // The slot the caller fills next; throws when both are in flight.
  std::size_t free_slot() const {
    if (pending_ == 2) throw Error(std::string(owner_) + ": both slots are in flight; wait() before filling one");
    return fill_;
  }
  // The slot submit() starts; throws when both are in flight. Call submitted() once it is queued.
  std::size_t submit_slot() const {
    if (pending_ == 2) throw Error(std::string(owner_) + ": both slots are in flight; wait() before submitting");
    return fill_;
  }
  void submitted() {
    fill_ = 1 - fill_;
    ++pending_;
  }
  // The oldest submitted slot; throws when none is. Call waited() once it is finished.
  std::size_t oldest_slot() const {
    if (pending_ == 0) throw Error(std::string(owner_) + ": wait() without a submitted batch");
    return (fill_ + 2 - pending_) % 2;
  }
  void waited() { --pending_; }
  const char* owner() const { return owner_; }

 private:
  const char* owner_;
  std::size_t fill_ = 0;     // slot filled next
  std::size_t pending_ = 0;  // the oldest in flight is (fill_ + 2 - pending_) % 2
};

}  // namespace terrazo
