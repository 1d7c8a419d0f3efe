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
// The CPU twin's pivot block: 32 pivots per round, so a row of the matrix (<= 4 KiB for the merges)
// stays in L1 while the 32 pivot rows (<= 128 KiB) stay in L2; min_plus_relax_rows does the 32 pivots
// of a chunk of 16 entries in registers.
constexpr std::uint32_t kPivotBlockCpu = 32;

void blocked_floyd_warshall_cpu(PathLength* d, std::uint32_t n);

// The building blocks of the CPU's blocked eliminations (leaves here, merges in boundary_merge.h), on a
// matrix with row stride `stride`, pivots K = [k0, k1), k1 - k0 <= kPivotBlockCpu:
//   floyd_pivot_block_cpu(d, stride, n, k0, k1): one round of blocked Floyd-Warshall over the vertices
//     [0, n) (k1 <= n): afterwards d[i][j] = min(d[i][j], shortest i -> j walk whose inner vertices
//     lie in K), for all i, j < n. Phase 1 closes D[K][K]; phase 2 the row panel D[K][*] and, row by
//     row, the column panel D[i][K]; phase 3, on the same row while it is in L1, D[i][j] for j not in K.
//   eliminate_pivot_block_cpu(d, stride, k0, k1): the Schur complement of K onto R = [0, k0): for
//     i, j in R, d[i][j] = min(d[i][j], min over a, b in K of d[i][a] + D[K][K]*[a][b] + d[b][j])
//     with D[K][K]* the closure of the block (walks inside K, the empty walk included); the same as
//     eliminating the pivots of K one at a time (exact integers, so bit for bit). Rows and columns
//     of K are left partly updated: the caller reads only R x R afterwards.
//   eliminate_pivot_block_symmetric_cpu(d, stride, k0, k1): the same for a symmetric matrix of which
//     only the upper triangle (j >= i) of R and K is read: the rows of K are first made whole from it,
//     then only d[i][j], i <= j, of R x R is updated (half the work); the lower triangle of R x R is
//     left stale.
//   floyd_pivot_block_symmetric_cpu(d, stride, n, k0, k1): floyd_pivot_block_cpu's round for a
//     symmetric matrix of which only the upper triangle is read and kept: the rows of K made whole,
//     closed and relaxed as the row panel; the column panel is their transpose; then only d[i][j],
//     j >= i, of the other rows (half of phase 3). The lower triangle outside K's rows is stale.
void floyd_pivot_block_cpu(PathLength* d, std::uint64_t stride, std::uint32_t n, std::uint32_t k0, std::uint32_t k1);
void floyd_pivot_block_symmetric_cpu(PathLength* d, std::uint64_t stride, std::uint32_t n, std::uint32_t k0, std::uint32_t k1);
void eliminate_pivot_block_symmetric_cpu(PathLength* d, std::uint64_t stride, std::uint32_t k0, std::uint32_t k1);
void eliminate_pivot_block_cpu(PathLength* d, std::uint64_t stride, std::uint32_t k0, std::uint32_t k1);

// The n x n adjacency matrix of the block's cells (row-major, node = y * s + x), as the leaf starts.
void leaf_adjacency_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                        Connectivity connectivity, PathLength* d, bool* overflow);

// workspace: s^4 entries (the cells' all-pairs matrix).
void leaf_boundary_matrix_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                              Connectivity connectivity, PathLength* workspace, PathLength* out, bool* overflow);

}  // namespace terrazo
