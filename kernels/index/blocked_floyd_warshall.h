// kernels/index/blocked_floyd_warshall.h: all-pairs shortest paths inside a leaf block by the blocked
// Floyd-Warshall algorithm, and the leaf's boundary-to-boundary matrix (index build, docs/index.md
// "Leaves").
//
// Source: [PandeySharma] (the three phases of one round: the diagonal block, the blocks of its
// row and column, then the remaining blocks, each block in on-chip memory); [Gerritsen2012, ch. 4]
// for the boundary graph G' the leaves start.
//
// Contract (CPU twin and CUDA kernels give the same matrix; the distances are exact, so the order of
// the relaxations cannot change a bit):
//   blocked_floyd_warshall_cpu(d, n): d is an n x n row-major matrix of 64-bit path lengths
//     (kUnreached = no edge), n a multiple of kFloydBlock or smaller than it; on return d[i][j] is the
//     length of the shortest walk i -> j over the given edges (min-plus closure; d[i][i] as given if
//     no cycle is shorter). Plain formula: for k, for i, for j: d[i][j] = min(d[i][j], d[i][k] + d[k][j]);
//     blocked: for every diagonal block kb, phase 1 closes block (kb, kb), phase 2 the blocks (kb, j)
//     and (i, kb) through it, phase 3 every other block (i, j) from (i, kb) and (kb, j).
//   leaf_boundary_matrix_cpu(values, stride, s, ...): the s x s block of cells values[y * stride + x]
//     (NaN = nodata); its graph has the valid cells and the edges of `connectivity` between two valid
//     cells of the block (weights of kernels/common/edge_weight.h). Out: out[ring_size(s)^2], row-major
//     in ring order (boundary_ring.h), out[p][q] = shortest distance from ring cell p to ring cell q
//     over paths inside the block, kUnreached where none, 0 on the diagonal of a valid cell and
//     kUnreached on the diagonal of a nodata cell. *overflow set when a weight does not fit.
//   pre  s in {4, 8, 16} (n = s^2 cells: 16, 64, 256).
#pragma once
#include <cstdint>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

constexpr std::uint32_t kFloydBlock = 16;  // side of a Floyd-Warshall block (one CUDA thread per entry)

void blocked_floyd_warshall_cpu(PathLength* d, std::uint32_t n);

// The n x n adjacency matrix of the block's cells (row-major, node = y * s + x), as the leaf starts.
void leaf_adjacency_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                        Connectivity connectivity, PathLength* d, bool* overflow);

// workspace: s^4 entries (the cells' all-pairs matrix).
void leaf_boundary_matrix_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                              Connectivity connectivity, PathLength* workspace, PathLength* out, bool* overflow);

}  // namespace terrazo
