// kernels/common/block_batch.h: streamed batches of tiles through the CUDA block solvers (phase 1 of the
// MST and SSSP pipelines on a GPU: many tiles per launch, copies overlapping compute).
//
// A solver owns two slots, each with page-locked host buffers, device buffers and its own CUDA
// stream. The caller fills the free slot's pinned input, submits it (asynchronous: copy in, solve,
// copy out), and fills the other slot while the first one runs; wait() hands back the oldest
// batch. Plain C++ interface (no CUDA types), so engine/ code compiled without nvcc can use it; in a
// build without CUDA the constructors throw terrazo::Error.
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
// Results are bit-identical to block_mst_cpu / block_reduce_cpu / block_sssp_cpu. A Batch (its
// pointers) stays valid until the caller next asks for that slot's input buffers.
// Device memory: 2 slots x batch_tiles x bytes_per_tile (reported by device_bytes()); the batch
// size is the largest that fits gpu_memory_bytes (or max_batch_tiles when that is smaller).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/mst/block_reduce.h"
#include "kernels/common/tile_geometry.h"

namespace terrazo {

// How the CUDA block SSSP sweeps a line of cells (kernels/sssp/block_sssp.cu): one thread per line, or
// one warp per line with a min-plus scan. Results are identical; only the speed differs. Auto is
// ThreadPerLine: measured on an H100 (docs/benchmarks.md) it converges in 2-5 rounds per tile on
// terrain against 6-54 for WarpScan, and is 1.4x to 4.4x faster at every tile size from 32 to 512.
enum class SsspSweep { Auto, ThreadPerLine, WarpScan };

struct BlockBatchOptions {
  std::uint32_t t = 256;
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  bool reduce = true;                  // MST: also reduce each forest to its boundary summary
  std::uint64_t gpu_memory_bytes = 0;  // device memory the solver may hold; 0: a quarter of the free memory
  std::uint64_t max_batch_tiles = 0;   // 0: no limit but the memory budget
  std::size_t shared_limit_bytes = 0;  // tuning: cap on shared memory per thread block (0: device maximum)
  SsspSweep sssp_sweep = SsspSweep::Auto;  // tuning (SSSP only)
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

  explicit CudaMstBatchSolver(const BlockBatchOptions& options);
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

class CudaSsspBatchSolver {
 public:
  struct Batch {
    std::uint64_t tiles = 0;
    const PathLength* dist = nullptr;       // tiles * (t+2)^2: the input distances, solved in place
    const std::uint8_t* changed = nullptr;  // tiles * t*t (block_sssp.h)
    std::uint64_t changed_cells = 0;
    std::uint64_t sweep_rounds = 0;         // sum over the tiles of their relaxation rounds
    bool overflow = false;
    double kernel_ms = 0.0;
    double total_ms = 0.0;
  };

  CudaSsspBatchSolver(const BlockBatchOptions& options, PathLength max_cost);
  ~CudaSsspBatchSolver();
  CudaSsspBatchSolver(const CudaSsspBatchSolver&) = delete;
  CudaSsspBatchSolver& operator=(const CudaSsspBatchSolver&) = delete;

  std::uint64_t batch_tiles() const;
  std::uint64_t device_bytes() const;
  std::uint64_t pinned_bytes() const;
  double* values();                  // the free slot's values: batch_tiles() * (t+2)^2
  PathLength* dist();                // the free slot's distances: batch_tiles() * (t+2)^2
  void submit(std::uint64_t tiles);
  std::size_t pending() const;
  const Batch& wait();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrazo
