// kernels/index/boundary_merge.h: the 2x2 merge of nested dissection: four children's boundary
// matrices and the edges between the children give the parent's boundary matrix (index build,
// docs/index.md "Merging four blocks").
//
// Source: [Gerritsen2012, ch. 4] (G': tile boundaries joined by the distances inside the tiles);
// [Malison2012, sec. 4.1] (min-plus products); vertex elimination is Floyd-Warshall with the pivots
// restricted to the vertices that disappear.
//
// Contract (CPU twin and CUDA kernel give the same matrix):
//   in   values: the parent block of side 2s, values[y * stride + x] (NaN = nodata);
//        children[4 * ring_size(s)^2]: the boundary matrices (blocked_floyd_warshall.h contract) of the
//        children 0 = top-left, 1 = top-right, 2 = bottom-left, 3 = bottom-right, back to back.
//   out  parent[ring_size(2s)^2]: the parent's boundary matrix, in ring order of side 2s: shortest
//        distances over paths inside the parent block, kUnreached where none.
//   Formula: U = the union of the children's rings (4 ring_size(s) vertices), with the children's
//   matrices and the edges between cells of different children; P = the parent's ring (a subset of
//   U), S = U \ P. Eliminate the vertices of S one by one (d[i][j] = min(d[i][j], d[i][k] + d[k][j])
//   for the vertices i, j not yet eliminated), which leaves on P x P the graph of the paths whose inner
//   vertices lie in S; then Floyd-Warshall with the pivots of P closes it: the parent's matrix.
//   Exact: a path inside the parent alternates segments inside one child, which start and end on
//   that child's ring, and edges between children.
//   Blocked (both twins): S is eliminated in blocks K of up to 32 pivots, last block first; with R the
//   vertices below K, D[K][K] is closed (Floyd-Warshall inside the block), the panel A = D[R][K] (x)
//   D[K][K]* (the empty walk included), then D[R][R] = min(D[R][R], A (x) D[K][R]): the min-plus
//   Schur complement of K, which is what eliminating K's pivots one at a time leaves on R x R (the
//   shortest walks whose inner vertices lie in K). P is closed by blocked Floyd-Warshall rounds of 32
//   pivots ([PandeySharma]: the diagonal block, its row and column panels, the rest). Integer min-plus
//   is exact, so the blocking changes the work's order, never a bit of the result.
//   workspace: merge_workspace_entries(s) entries.
//   pre  s >= 2.
#pragma once
#include <cstdint>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

// Vertices of U (the children's rings), ordered P first (parent ring order), then S.
inline std::uint64_t merge_union_size(std::uint32_t s) { return 4ull * ring_size(s); }
inline std::uint64_t merge_workspace_entries(std::uint32_t s) {
  return merge_union_size(s) * merge_union_size(s);
}

// The order of U: for child c and ring position p, order[c * ring_size(s) + p] = its vertex number
// (parent ring position when on the parent's ring, else ring_size(2s) + rank among the others).
void merge_union_order(std::uint32_t s, std::uint32_t* order);

void boundary_merge_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                        Connectivity connectivity, const PathLength* children, PathLength* workspace,
                        PathLength* parent, bool* overflow);

}  // namespace terrazo
