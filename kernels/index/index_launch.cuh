// kernels/index/index_launch.cuh: what the index kernels' files share with the tile batch
// (tile_boundary_matrix.cu): device-pointer launches of the leaf and merge steps. Included by .cu files only.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/index/boundary_ring.h"

namespace terrazo::cuda {

// Leaves of tile_count tiles (blocked_floyd_warshall.h contract for each leaf block of side `leaf`):
// d_values tile_count x t*t; d_leaf_work tile_count x (t/leaf)^2 x leaf^4 entries; d_out gets the
// leaves' ring matrices, tile-major, leaves row-major in the tile, ring_size(leaf)^2 each.
void launch_leaf_boundary(const double* d_values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t leaf,
                          const WeightParams& params, Connectivity connectivity, PathLength* d_leaf_work,
                          PathLength* d_out, int* d_overflow, cudaStream_t stream);

// One merge level of tile_count tiles (boundary_merge.h contract for each parent of side 2s):
// d_children as launch_leaf_boundary leaves them (blocks of side s), d_parents the same for side 2s;
// d_order merge_union_order(s); d_work tile_count x (t/2s)^2 x merge_workspace_entries(s) entries.
void launch_boundary_merge(const double* d_values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t s,
                           const WeightParams& params, Connectivity connectivity, const std::uint32_t* d_order,
                           const PathLength* d_children, PathLength* d_work, PathLength* d_parents, int* d_overflow,
                           cudaStream_t stream);

}  // namespace terrazo::cuda
