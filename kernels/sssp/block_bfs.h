// kernels/sssp/block_bfs.h: the block SSSP of kernels/sssp/block_sssp.h for `--weight unit`, where
// every step costs the same c = llround(scale): a frontier BFS instead of a Dijkstra / relaxation sweeps.
//
// Source: docs/sssp.md "Unit weights: the frontier BFS block solver"; [CS179-BFS, "GPU BFS"] for the
// frontier and visited arrays (here: bitmaps over the tile's cells, the distances themselves serving
// as the visited marks), [Leist2009, sec. 2.2.3 and 3.1.7] for the halo ring and shared-memory layout
// of a regular mesh.
//
// Contract: exactly block_sssp.h's (same layout, same in/out, same max_cost rule, same changed flags
// and count), restricted to params.model == WeightModel::Unit with a step weight that fits
// (block_bfs_step returns true). Both twins give the distances of block_sssp_cpu bit for bit: the
// distances are the unique fixpoint min over seeds s and paths s -> u of dist_in[s] + c * edges,
// whatever order the cells are settled in, and changed[u] = (dist_out[u] < dist_in[u]).
// Plain formula: multi-source BFS from every finite cell at once; with seeds at different distances
// the seeds enter the BFS in order of distance (CPU) or the frontier is re-expanded wherever a
// distance drops (CUDA), so both settle the same minimum.
#pragma once
#include <cstdint>

#include "kernels/common/tile_geometry.h"

namespace terrazo {

// The unit model's step weight c (the same for every edge); false when the model is not Unit or
// c does not fit a Weight (then the generic solver runs, and reports the overflow). Inline: the
// CUDA library's dispatch uses it too, without a link dependency on the CPU kernels.
inline bool block_bfs_step(const WeightParams& params, Weight* step) {
  if (params.model != WeightModel::Unit) return false;
  bool overflow = false;
  const Weight c = weight_of_step(params, 0.0, 0.0, 1.0, &overflow);  // unit: the values and length do not matter
  if (overflow || c == kNoEdge) return false;
  *step = c;
  return true;
}

// CPU twin: seeds that can improve a neighbour, sorted by distance, merged with a FIFO of the cells
// they reach (a FIFO of nondecreasing distances, since every step adds the same c): O(t^2) plus the
// sort of the seeds. pre: block_bfs_step(params) is true (throws terrazo::Error otherwise).
std::uint64_t block_bfs_cpu(const double* values, std::uint32_t t, const WeightParams& params,
                            Connectivity connectivity, PathLength max_cost, PathLength* dist, std::uint8_t* changed);

// CUDA twin: tile_count tiles back to back as block_sssp_cuda, host pointers; one thread block per
// tile running a level-synchronous frontier BFS in shared memory (kernels/sssp/block_bfs.cu).
// pre: block_bfs_step(params) is true; t <= block_bfs_max_tile() (throws terrazo::Error otherwise).
std::uint64_t block_bfs_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, const WeightParams& params,
                             Connectivity connectivity, PathLength max_cost, PathLength* dist, std::uint8_t* changed);

}  // namespace terrazo
