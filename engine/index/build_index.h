// engine/index/build_index.h: phase 1 of the boundary-graph index (docs/index.md): every tile's
// boundary-to-boundary distance matrix, tile by tile in Z-order to a .tzi file or to memory (IndexRecordSink).
//
// Source: [Gerritsen2012, ch. 4] (G': the tiles' boundary cells joined by their in-tile distances);
// the matrices by nested dissection (kernels/index/tile_boundary_matrix.h).
// Contract: for every tile with a valid cell, the record holds the tile's ring values and the exact
// matrix of kernels/index/tile_boundary_matrix.h for the given weights; every tile's values CRC goes
// into the table (the raster fingerprint). CPU and CUDA give the same file bit for bit.
// Memory (reserved before use): a batch of tiles, each t*t*8 (values) + B^2*8 (matrix) + B*8 (ring),
// plus per CPU thread the nested-dissection workspace (tile_boundary_workspace_entries x 8).
#pragma once
#include <cstdint>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/edge_weight.h"
#include "io/store/index_file.h"

namespace terrazo {

struct IndexBuildOptions {
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  std::uint32_t leaf = 8;
  Device device = Device::Cpu;
  unsigned threads = 1;
  std::uint64_t gpu_memory_bytes = 0;  // CUDA: device memory for a batch; 0: a quarter of the free memory
};

struct IndexBuildStats {
  std::uint64_t tiles = 0, present_tiles = 0, batches = 0, batch_tiles = 0;
  double matrix_seconds = 0, read_seconds = 0, write_seconds = 0, kernel_ms = 0;
  std::uint64_t memory_bytes = 0;
};

// The bytes the CPU build reserves when the budget allows its whole batch (tiles of side t, leaves of
// `leaf`, `threads` threads): the batch and the threads' workspaces.
std::uint64_t build_index_cpu_bytes(std::uint32_t t, std::uint32_t leaf, unsigned threads);
// The least build_index needs free (a batch of one tile; on the CPU the threads' workspaces beside it):
// less is a BudgetError before any tile is read.
std::uint64_t build_index_minimum_bytes(std::uint32_t t, std::uint32_t leaf, unsigned threads, bool cuda);

// Progress phase "index: matrices" (done = tiles).
IndexBuildStats build_index(const TileInput& input, IndexRecordSink& writer, const IndexBuildOptions& options,
                            MemoryBudget& budget, Progress& progress);

}  // namespace terrazo
