// kernels/sssp/block_sssp_batch.h: streamed batches of tiles through the CUDA block SSSP (the SSSP
// exchange on a GPU: many tiles per launch, copies overlapping compute). The two-slot model, the
// budget and the common options: kernels/common/block_batch.h.
//
//   CudaSsspBatchSolver solver(options, max_cost);
//   for (each group of up to solver.batch_tiles() tiles) {
//     if (solver.pending() == 2) consume(solver.wait());
//     ... copy the tiles' values, distances and row origins into solver.values(), dist(), row0() ...
//     solver.submit(tiles_in_group);
//   }
//   while (solver.pending()) consume(solver.wait());
//
// Results are bit-identical to block_sssp_cpu.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/common/block_batch.h"

namespace terrazo {

// How the CUDA block SSSP solves a tile (kernels/sssp/block_sssp.cu): relaxation sweeps with one
// thread per line, or one warp per line with a min-plus scan; or, for the unit weight model only,
// the frontier BFS of kernels/sssp/block_bfs.h. Results are identical; only the speed differs. Auto
// is ThreadPerLine: measured on an H100 (docs/benchmarks.md) it converges in 2-5 rounds per tile on
// terrain against 6-54 for WarpScan, and is 1.4x to 4.4x faster at every tile size from 32 to 512;
// and on an H200 with --weight unit it is 1.06x (streamed, t = 256) to 1.4x (resident, g = 64)
// faster than FrontierBfs (docs/benchmarks.md "Unit weights"), so the BFS is asked for explicitly
// (sssp --block-solver bfs). FrontierBfs for a non-unit model, or a tile whose bitmaps do not fit in
// shared memory (t > 512 at 227 KiB; block_bfs_fits), is ThreadPerLine.
enum class SsspSweep { Auto, ThreadPerLine, WarpScan, FrontierBfs };

struct SsspBatchOptions : BlockBatchOptions {
  SsspSweep sweep = SsspSweep::Auto;  // tuning
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

  CudaSsspBatchSolver(const SsspBatchOptions& options, PathLength max_cost);
  ~CudaSsspBatchSolver();
  CudaSsspBatchSolver(const CudaSsspBatchSolver&) = delete;
  CudaSsspBatchSolver& operator=(const CudaSsspBatchSolver&) = delete;

  std::uint64_t batch_tiles() const;
  std::uint64_t device_bytes() const;
  std::uint64_t pinned_bytes() const;
  double* values();                  // the free slot's values: batch_tiles() * (t+2)^2
  PathLength* dist();                // the free slot's distances: batch_tiles() * (t+2)^2
  std::int64_t* row0();              // the free slot's window row origins (StepLengths::row0): batch_tiles()
  void submit(std::uint64_t tiles);
  std::size_t pending() const;
  const Batch& wait();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrazo
