// engine/mst/phase1_block_local.h: phase 1 of the MST pipeline: every tile's block MST and its
// reduction to the level-0 cluster summary, in batches through the tile solver of the run's device
// (kernels/mst/block_mst_solver.h: the CPU twins on the WorkerPool, or the streamed
// CudaMstBatchSolver with two batches in flight).
//
// Writes, in tile Z-order (`order`): the forest bits of every present tile to `bits_out` (t*t bytes,
// bits 0..3 = E, SE, S, SW, 255 = nodata) and the level-0 summary of EVERY tile (absent ones empty)
// to `summaries_out` (engine/mst/summary_file.h); summary_offsets[ty * tiles_x + tx] = the byte
// offset of tile (tx, ty)'s summary. Adds summary_edges, gpu_batch_tiles and gpu_kernel_ms to
// `result`. Progress: "mst: block-local", tiles done of order.size(). Throws terrazo::Error when a
// weight overflows the 32-bit fixed point at the run's --scale.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/worker_pool.h"
#include "engine/mst/phases.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/sequential_file.h"

namespace terrazo {

struct BlockLocalTotals {
  std::uint64_t forest_edges = 0, valid = 0;  // edges of the tiles' forests, valid cells
  unsigned __int128 forest_weight = 0;
};

BlockLocalTotals run_block_local(const TileInput& source, const std::vector<std::uint64_t>& order,
                                 const MstPhaseOptions& options, WorkerPool& pool, MemoryBudget& budget,
                                 Progress& progress, SequentialWriter& bits_out, SequentialWriter& summaries_out,
                                 std::vector<std::uint64_t>& summary_offsets, MstPhaseResult& result);

}  // namespace terrazo
