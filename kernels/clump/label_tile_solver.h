// kernels/clump/label_tile_solver.h: the per-tile labelling of `terrazo clump` (phases 1 and 3,
// engine/clump/phases.h) as a BatchSolver (kernels/common/batch_solver.h): label_tile_cpu on the
// WorkerPool, or label_tiles_cuda through the streamed CudaClumpBatchSolver. One factory,
// make_clump_tile_solver, is the only place that looks at the device; both give the same labels
// bit for bit (kernels/clump/label_tile.h's contract).
//
// A batch is up to batch_tiles() tiles; its read function writes tile i's t*t keys (NaN: no
// region) and is called once per tile, on the pool (several threads at once). CPU: each pool
// iteration reads one tile and labels it. CUDA: the tiles are read into the free slot's pinned
// keys (coded, kernels/clump/clump_key_code.h: through a thread's scratch of doubles unless the
// code is Float64), two batches in flight; a batch whose summaries suffice (phase 1) gets each
// tile's packed border summary back instead of its labels. A solved batch's keys, labels and
// summaries stay untouched until its slot is submitted again.
//
// Memory (reserved by make_clump_tile_solver, held as long as the solver):
//   CPU   "clump tile solver"        batch x 16 t^2 (keys 8, labels 4, union-find 4), batch = threads
//   CUDA  "clump GPU pinned buffers" 2 x batch x ((k + 4) t^2 + 84 t + 36), k = the key code's bytes
//                                    (8, 4 or 2), batch = min(256, available / 4 / (that / batch),
//                                    what fits the device budget); device memory 2 x batch x ((k +
//                                    20) t^2 + 84 t + ...) from --gpu-memory (default a quarter of the
//                                    free memory);
//         "clump GPU key scratch"    threads x 8 t^2 (a tile's doubles before coding; k < 8 only).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "kernels/common/memory_budget.h"
#include "kernels/common/types.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/batch_solver.h"
#include "kernels/clump/clump_key_code.h"
#include "kernels/common/block_batch.h"

namespace terrazo {

// The CUDA twin of label_tile_cpu on `tiles` tiles at once (keys tiles x t*t, labels tiles x t*t,
// regions one count per tile), synchronous: for tests. Throws Error without CUDA. The second form
// takes the keys coded (kernels/clump/clump_key_code.h): the same labels as their doubles give;
// with `summaries` (tiles x ClumpSummaryLayout{t}.words()) also each tile's packed border summary,
// the CUDA twin of summarize_tile_border (kernels/clump/label_tile.h).
void label_tiles_cuda(const double* keys, std::uint64_t tiles, std::uint32_t t, Connectivity connectivity,
                      std::uint32_t* labels, std::uint32_t* regions);
void label_tiles_cuda(const void* keys, ClumpKeyCode code, std::uint64_t tiles, std::uint32_t t,
                      Connectivity connectivity, std::uint32_t* labels, std::uint32_t* regions,
                      std::uint32_t* summaries = nullptr);

// Two slots of pinned keys (coded: `code`) and labels, each with its device buffers and stream
// (block_batch.h's model). Plain C++ interface; in a build without CUDA the constructor throws Error.
class CudaClumpBatchSolver {
 public:
  struct Batch {
    std::uint64_t tiles = 0;
    const void* keys = nullptr;              // tiles x t*t, coded (key_code()), as submitted
    const std::uint32_t* labels = nullptr;     // tiles x t*t (nullptr when summarized)
    const std::uint32_t* summaries = nullptr;  // tiles x ClumpSummaryLayout{t}.words() (when summarized)
    const std::uint32_t* regions = nullptr;    // tiles
    double total_ms = 0;                     // GPU time from copy-in to copy-out
  };
  // max_batch_tiles 0: no limit but the device budget; gpu_memory_bytes 0: a quarter of the free memory.
  CudaClumpBatchSolver(std::uint32_t t, Connectivity connectivity, ClumpKeyCode code, std::uint64_t max_batch_tiles,
                       std::uint64_t gpu_memory_bytes);
  ~CudaClumpBatchSolver();
  CudaClumpBatchSolver(const CudaClumpBatchSolver&) = delete;
  CudaClumpBatchSolver& operator=(const CudaClumpBatchSolver&) = delete;
  std::uint64_t batch_tiles() const;
  ClumpKeyCode key_code() const;
  std::uint64_t pinned_bytes() const;
  std::uint64_t device_bytes() const;
  void* keys();                       // the free slot's keys: batch_tiles() x t*t, coded
  // Starts the free slot on its first `tiles` tiles; `summaries`: send back each tile's packed
  // border summary instead of its labels (phase 1).
  void submit(std::uint64_t tiles, bool summaries = false);
  std::size_t pending() const;
  const Batch& wait();                // the oldest submitted batch, finished

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ClumpTileBatch {
  std::uint64_t tiles = 0;
  std::function<void(std::uint64_t i, double* keys)> read;  // tile i's t*t keys
  // Phase 1 needs of a tile only its border summary: a solver may send it back (packed) in place of
  // the labels. The CPU solver gives labels whatever this says.
  bool summaries_suffice = false;
};

struct ClumpTileSolved {
  std::uint64_t tiles = 0;
  const void* keys = nullptr;              // tiles x t*t, coded as key_code says
  ClumpKeyCode key_code = ClumpKeyCode::Float64;
  const std::uint32_t* labels = nullptr;   // tiles x t*t (label_tile.h); nullptr when summaries are given
  // tiles x ClumpSummaryLayout{t}.words(): each tile's packed TileBorder (unpack_tile_border), when
  // the batch's summaries sufficed and the solver computed them (CUDA); nullptr otherwise.
  const std::uint32_t* summaries = nullptr;
  const std::uint32_t* regions = nullptr;  // tiles: regions of each tile
  double device_ms = 0;                    // CUDA: the batch's GPU time, copy-in to copy-out (0 on the CPU)
  // Key i (tile * t*t + cell) as the double the batch's read gave (NaN: no region).
  double key(std::uint64_t i) const { return decode_clump_key(key_code, keys, i); }
};

struct ClumpTileSolverOptions {
  std::uint32_t t = 256;
  Connectivity connectivity = Connectivity::Eight;
  std::uint64_t max_tiles = 0;         // tiles in all (a batch never needs more); 0: no limit
  std::uint64_t gpu_memory_bytes = 0;  // CUDA: device memory (0: a quarter of the free memory)
  // CUDA: how the keys cross to the GPU (kernels/clump/clump_key_code.h); the keys every read gives
  // must fit it. The CPU solver labels the doubles.
  ClumpKeyCode key_code = ClumpKeyCode::Float64;
};

class ClumpTileBatchSolver : public BatchSolver<ClumpTileBatch, ClumpTileSolved> {
 public:
  virtual std::uint64_t batch_tiles() const = 0;
};

// Bytes the CPU solver reserves per thread (the smallest solver the phases plan for).
constexpr std::uint64_t kClumpCpuSolverCellBytes = 16;

// Throws Error for Device::Cuda in a build without CUDA or without a device.
std::unique_ptr<ClumpTileBatchSolver> make_clump_tile_solver(Device device, const ClumpTileSolverOptions& options,
                                                             WorkerPool& pool, MemoryBudget& budget);

}  // namespace terrazo
