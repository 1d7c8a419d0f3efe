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

#include "kernels/common/tile_geometry.h"
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

// The edges from ring cell p of child c to the cells of the other children beside it, into the union
// matrix d (u x u, the vertex numbers of merge_union_order in `order`); values: the parent block,
// values[y * stride + x]. Each (cell, direction) has its own entry, written once; both twins call it.
TERRAZO_HD void add_cross_child_edges(const double* values, std::uint64_t stride, std::uint32_t s,
                                      const WeightParams& params, Connectivity connectivity,
                                      const std::uint32_t* order, std::uint32_t u, std::uint32_t c, std::uint32_t p,
                                      PathLength* d, bool* overflow) {
  const std::uint32_t b = ring_size(s);
  std::uint32_t x, y;
  ring_cell_of(s, p, &x, &y);
  const std::uint32_t gx = (c & 1u) * s + x, gy = (c >> 1) * s + y;
  const double a = values[gy * stride + gx];
  if (a != a) return;
  for (int dir = 0; dir < 8; ++dir) {
    if (!direction_used(dir, connectivity)) continue;
    const int nx = static_cast<int>(gx) + step_dx(dir), ny = static_cast<int>(gy) + step_dy(dir);
    if (nx < 0 || ny < 0 || nx >= static_cast<int>(2 * s) || ny >= static_cast<int>(2 * s)) continue;
    const std::uint32_t c2 = (static_cast<std::uint32_t>(nx) >= s ? 1u : 0u) + (static_cast<std::uint32_t>(ny) >= s ? 2u : 0u);
    if (c2 == c) continue;
    const Weight w = step_weight(params, a, values[static_cast<std::uint64_t>(ny) * stride + nx], dir, 0, overflow);
    if (w == kNoEdge) continue;
    const std::int32_t q = ring_position(s, static_cast<std::uint32_t>(nx) - (c2 & 1u) * s,
                                         static_cast<std::uint32_t>(ny) - (c2 >> 1) * s);
    d[static_cast<std::uint64_t>(order[c * b + p]) * u + order[c2 * b + static_cast<std::uint32_t>(q)]] = w;
  }
}

void boundary_merge_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                        Connectivity connectivity, const PathLength* children, PathLength* workspace,
                        PathLength* parent, bool* overflow);

}  // namespace terrazo
