// kernels/index/tile_boundary_matrix.h: a tile's boundary-to-boundary distance matrix by nested
// dissection: leaf blocks by blocked Floyd-Warshall, then 2x2 merges up to the tile (index build,
// docs/index.md "Nested dissection").
//
// Source: [Gerritsen2012, ch. 4] (the boundary graph G' and its tile matrices); [PandeySharma] for the
// leaves; the merge of boundary_merge.h.
//
// Contract (the CPU twin and the CUDA batch give the same bits; the leaf side changes the work, never
// the result, since every matrix holds exact distances):
//   in   values[t * t] row-major (NaN = nodata or padding), t a power of two, 16 <= t <= 4096
//   out  out[ring_size(t)^2]: row-major in ring order (boundary_ring.h), out[p][q] = shortest distance
//        from ring cell p to ring cell q over paths inside the tile (kUnreached where none; 0 on the
//        diagonal of a valid cell, kUnreached on that of a nodata cell).
//   *overflow set when a weight does not fit.
//   leaf: 4, 8 or 16 (<= t).
// Plain formula: ring_size(t) Dijkstras inside the tile (the tests' reference).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

constexpr std::uint32_t kDefaultIndexLeaf = 8;

// Entries of host workspace tile_boundary_matrix_cpu needs for one tile.
std::uint64_t tile_boundary_workspace_entries(std::uint32_t t, std::uint32_t leaf);

void tile_boundary_matrix_cpu(const double* values, std::uint32_t t, std::uint32_t leaf, const WeightParams& params,
                              Connectivity connectivity, std::vector<PathLength>& workspace, PathLength* out,
                              bool* overflow);

// CUDA: tile_count tiles back to back (values t*t each, out ring_size(t)^2 each), host pointers; the
// leaves of all tiles in one launch per Floyd-Warshall phase, then per merge level the union and three
// launches per block of 32 pivots (boundary_merge.cu).
// Device memory it needs for tile_count tiles (the caller sizes batches with it).
std::uint64_t tile_boundary_cuda_bytes(std::uint32_t t, std::uint32_t leaf, std::uint64_t tile_count);
// Returns the kernel time in milliseconds.
double tile_boundary_matrix_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t leaf,
                                 const WeightParams& params, Connectivity connectivity, PathLength* out,
                                 bool* overflow);

}  // namespace terrazo
