// kernels/mst/block_mst_batch.h: streamed batches of tiles through the CUDA block MST and block reduce
// (MST phase 1 on a GPU: many tiles per launch, copies overlapping compute). The two-slot model, the
// budget and the common options: kernels/common/block_batch.h.
//
//   CudaMstBatchSolver solver(options);                 // t, params, connectivity, reduce, budget
//   for (each group of up to solver.batch_tiles() tiles) {
//     if (solver.pending() == 2) consume(solver.wait());   // frees the slot filled next
//     double* in = solver.input();                        // batch_tiles() * t*t values, row-major tiles
//     ... copy the tiles in ...
//     solver.submit(tiles_in_group);
//   }
//   while (solver.pending()) consume(solver.wait());
//
// Results are bit-identical to block_mst_cpu / block_reduce_cpu.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/common/block_batch.h"
#include "kernels/mst/block_reduce.h"

namespace terrazo {

struct MstBatchOptions : BlockBatchOptions {
  bool reduce = true;  // also reduce each forest to its boundary summary
};

class CudaMstBatchSolver {
 public:
  struct Batch {
    std::uint64_t tiles = 0;
    const std::uint8_t* forest_bits = nullptr;              // tiles * t*t bytes (block_mst.h)
    // With reduce: tile i's summary (block_reduce.h) is summary_counts[i] edges sorted by key,
    // starting at summary_edges + i * summary_stride (the stride is kMaxSummaryEdgesPerSide * t).
    const TileSummaryEdge* summary_edges = nullptr;
    const std::uint32_t* summary_counts = nullptr;
    std::uint64_t summary_stride = 0;
    bool overflow = false;                                  // a weight did not fit (forests unspecified)
    double mst_ms = 0.0;                                    // GPU time of the block MST kernel (CUDA events)
    double kernel_ms = 0.0;                                 // GPU time of all solver kernels (MST + reduce)
    double total_ms = 0.0;                                  // GPU time from copy-in start to copy-out end

    const TileSummaryEdge* summary(std::uint64_t i) const { return summary_edges + i * summary_stride; }
    std::uint32_t summary_count(std::uint64_t i) const { return summary_counts[i]; }
  };

  explicit CudaMstBatchSolver(const MstBatchOptions& options);
  ~CudaMstBatchSolver();
  CudaMstBatchSolver(const CudaMstBatchSolver&) = delete;
  CudaMstBatchSolver& operator=(const CudaMstBatchSolver&) = delete;

  std::uint64_t batch_tiles() const;   // tiles per batch
  std::uint64_t device_bytes() const;  // device memory held (both slots, scratch included)
  std::uint64_t pinned_bytes() const;  // page-locked host memory held (both slots)
  double* input();                     // the free slot's input: batch_tiles() * t*t values
  void submit(std::uint64_t tiles);    // starts the free slot on its first `tiles` tiles
  std::size_t pending() const;         // submitted batches not yet waited for (0..2)
  const Batch& wait();                 // the oldest submitted batch, finished

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrazo
