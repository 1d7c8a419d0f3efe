// kernels/mst/block_mst_solver.h: phase 1 of the MST pipeline (block MST and reduction of every tile)
// as a BatchSolver (kernels/common/batch_solver.h): the CPU twins block_mst_cpu + block_reduce_cpu
// on the WorkerPool, or the streamed CudaMstBatchSolver (kernels/mst/block_mst_batch.h).
//
// A batch is up to batch_tiles() tiles; its read function writes tile i's t*t values (NaN = nodata)
// and is called once per tile, on the pool (several threads at once). CPU: each pool iteration
// reads one tile and solves it. CUDA: the tiles are read straight into the free slot's pinned
// input, two batches in flight. A solved batch's values stay untouched until its slot is submitted
// again, so the caller may read them (the tile summaries are made from them).
//
// Memory (reserved by make_mst_tile_solver, in this order, held as long as the solver):
//   CPU   "MST block solver scratch"  threads x 80 x t^2 (block_mst_cpu's 72 t^2, block_reduce_cpu's 6 t^2)
//         "MST tile batches"          2 x batch x (9 t^2 + 512 t), batch = min(available / 8 / that,
//                                     4 x threads, max_tiles) (one slot held, the other for the caller)
//   CUDA  "MST GPU pinned buffers"    the solver's pinned_bytes()
//         "MST GPU batch results"     2 x batch_tiles x (t^2 + caller_summary_bytes_per_tile): the
//                                     caller's copy of the forest bits and its summaries
//         batch_tiles <= min(1024, available / 4 / (2 x host bytes per tile in flight)).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/edge_weight.h"
#include "kernels/mst/block_reduce.h"

namespace terrazo {

struct MstTileBatch {
  std::uint64_t tiles = 0;
  std::function<void(std::uint64_t i, double* values)> read;  // tile i's t*t values
};

struct MstTileSolved {
  std::uint64_t tiles = 0;
  const double* values = nullptr;             // tiles x t*t, as read
  const std::uint8_t* forest_bits = nullptr;  // tiles x t*t (block_mst.h)
  std::vector<const TileSummaryEdge*> summary;  // per tile: its summary (block_reduce.h), sorted by key
  std::vector<std::uint32_t> summary_count;     // per tile
  bool overflow = false;                        // a weight did not fit (results unspecified)
  double kernel_ms = 0.0;                       // CUDA: GPU time of the solver kernels (0 on the CPU)
};

struct MstTileSolverOptions {
  std::uint32_t t = 256;
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  std::uint64_t max_tiles = 0;                    // tiles in all (a batch never needs more)
  std::uint64_t gpu_memory_bytes = 0;             // CUDA: the solver's device budget (0: its default)
  std::uint64_t caller_summary_bytes_per_tile = 0;  // CUDA: what the caller holds per tile in flight
};

class MstTileBatchSolver : public BatchSolver<MstTileBatch, MstTileSolved> {
 public:
  virtual std::uint64_t batch_tiles() const = 0;  // tiles per batch at most
};

// Throws terrazo::Error (CUDA) when built without CUDA or on a CUDA failure.
std::unique_ptr<MstTileBatchSolver> make_mst_tile_solver(Device device, const MstTileSolverOptions& options,
                                                         WorkerPool& pool, MemoryBudget& budget);

}  // namespace terrazo
