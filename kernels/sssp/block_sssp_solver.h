// kernels/sssp/block_sssp_solver.h: the block SSSP of the exchange (engine/sssp/exchange.h) as a
// BatchSolver (kernels/common/batch_solver.h): block_sssp_cpu_labelled (block_bfs_cpu for the unit model
// without labels when frontier_bfs) on the WorkerPool, one pool
// iteration per tile, solved in place; or the streamed CudaSsspBatchSolver (distances only), the
// tiles copied into its pinned slot and the results copied back at wait().
//
// A batch is up to batch_tiles() tiles in the solver's (t+2)^2 layout (kernels/sssp/block_sssp.h).
// Memory (reserved by make_sssp_tile_solver): CUDA "sssp GPU pinned batch buffers"
// 2 x batch x ((t+2)^2 x 16 + t*t), before the solver is made. The CPU solver's workspace is the
// caller's ("sssp block solver workspace").
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/edge_weight.h"
#include "kernels/common/tile_geometry.h"

namespace terrazo {

struct SsspTile {
  const double* values = nullptr;   // (t+2)^2 ((t+4)^2 with knight's moves, kernels/sssp/knight.h)
  PathLength* dist = nullptr;       // (t+2)^2, solved in place
  std::uint32_t* source = nullptr;  // (t+2)^2 with labels, else null (CPU only)
  std::uint32_t* hops = nullptr;    // (t+2)^2 with labels, else null (CPU only)
  bool interior_consistent = false; // SsspLabels' seeding hint (CPU only; the result is the same)
  std::uint8_t* changed = nullptr;  // t*t
  std::int64_t row0 = 0;            // global row of the window's halo row (ty * t - 1): per-row step lengths
};

struct SsspTileBatch {
  std::vector<SsspTile> tiles;
};

struct SsspTileSolved {
  std::uint64_t tiles = 0;
  std::uint64_t changed_cells = 0;  // sum of the tiles' changed counts
  bool overflow = false;            // a weight did not fit
  double kernel_ms = 0.0;           // CUDA: GPU time of the kernels (0 on the CPU)
};

struct SsspTileSolverOptions {
  std::uint32_t t = 256;
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;
  bool labelled = false;                // source/hops labels (CPU only)
  bool frontier_bfs = false;            // unit model: the frontier BFS twins (kernels/sssp/block_bfs.h; CPU only
                                        // without labels); false: the generic solvers (sweeps / Dijkstra)
  std::uint64_t batch = 1;              // tiles per batch wanted (CUDA: capped by GPU memory)
  std::uint64_t gpu_memory_bytes = 0;   // CUDA: device memory for the batch solver; 0: its default share
};

class SsspTileBatchSolver : public BatchSolver<SsspTileBatch, SsspTileSolved> {
 public:
  virtual std::uint64_t batch_tiles() const = 0;
  virtual std::uint64_t reserved_bytes() const = 0;  // what make_sssp_tile_solver reserved
};

// Throws terrazo::Error (CUDA) for labelled runs, when built without CUDA, or on a CUDA failure.
std::unique_ptr<SsspTileBatchSolver> make_sssp_tile_solver(Device device, const SsspTileSolverOptions& options,
                                                           WorkerPool& pool, MemoryBudget& budget);

}  // namespace terrazo
