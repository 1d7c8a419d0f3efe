// kernels/index/blocked_floyd_warshall_cpu.cpp: the CPU twin of blocked_floyd_warshall.h.
#include <algorithm>
#include <vector>

#include "kernels/common/tile_geometry.h"
#include "kernels/index/blocked_floyd_warshall.h"
#include "kernels/index/min_plus.h"

namespace terrazo {
namespace {

// Phase 1: Floyd-Warshall inside D[K][K].
void close_diagonal(PathLength* d, std::uint64_t stride, std::uint32_t k0, std::uint32_t k1) {
  min_plus_close_block(d + k0 * stride + k0, stride, k1 - k0);
}

// The finite entries d[i][k], k in K, of one row, with the pivot rows they reach.
struct PivotRow {
  const PathLength* rows[kPivotBlockCpu];
  PathLength x[kPivotBlockCpu];
  std::uint32_t count = 0;
};

void gather_pivots(const PathLength* row_i, const PathLength* d, std::uint64_t stride, std::uint32_t k0,
                   std::uint32_t k1, PivotRow* p) {
  p->count = 0;
  for (std::uint32_t k = k0; k < k1; ++k) {
    const PathLength v = row_i[k];
    if (v == kUnreached) continue;
    p->rows[p->count] = d + k * stride;
    p->x[p->count] = v;
    ++p->count;
  }
}

// row_i[c0, c1) through the gathered pivots.
void relax_segment(PathLength* row_i, std::uint32_t c0, std::uint32_t c1, const PivotRow& p) {
  if (c0 >= c1 || p.count == 0) return;
  const PathLength* shifted[kPivotBlockCpu];
  for (std::uint32_t r = 0; r < p.count; ++r) shifted[r] = p.rows[r] + c0;
  min_plus_relax_rows(row_i + c0, shifted, p.x, p.count, c1 - c0);
}

// Phases 1 and 2's row panel of a Floyd-Warshall round: D[K][K] closed, then D[K][j], j not in K,
// through it.
void close_block_and_row_panel(PathLength* d, std::uint64_t stride, std::uint32_t n, std::uint32_t k0,
                               std::uint32_t k1, PivotRow* p) {
  close_diagonal(d, stride, k0, k1);
  for (std::uint32_t i = k0; i < k1; ++i) {
    PathLength* row_i = d + i * stride;
    gather_pivots(row_i, d, stride, k0, k1, p);
    relax_segment(row_i, 0, k0, *p);
    relax_segment(row_i, k1, n, *p);
  }
}

// The Schur complement of K onto R = [0, k0): D[K][K] closed, then per row of R its panel
// A[i][K] = D[i][K] (x) D[K][K]* and D[i][j] for j in [from(i), k0) through it.
void eliminate_rows(PathLength* d, std::uint64_t stride, std::uint32_t k0, std::uint32_t k1, bool upper_only) {
  close_diagonal(d, stride, k0, k1);
  PivotRow p;
  for (std::uint32_t i = 0; i < k0; ++i) {
    PathLength* row_i = d + i * stride;
    gather_pivots(row_i, d, stride, k0, k1, &p);
    relax_segment(row_i, k0, k1, p);
    gather_pivots(row_i, d, stride, k0, k1, &p);
    relax_segment(row_i, upper_only ? i : 0, k0, p);
  }
}

// The rows of K made whole from the upper triangle of a symmetric matrix.
void whole_pivot_rows(PathLength* d, std::uint64_t stride, std::uint32_t k0, std::uint32_t k1) {
  for (std::uint32_t k = k0; k < k1; ++k)
    for (std::uint32_t j = 0; j < k; ++j) d[k * stride + j] = d[j * stride + k];
}

// Calls row(i) for every row i in [0, n) outside the pivot block [k0, k1), in increasing order.
template <class Row>
void for_each_row_outside(std::uint32_t n, std::uint32_t k0, std::uint32_t k1, Row&& row) {
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i == k0) i = k1;
    if (i >= n) break;
    row(i);
  }
}

}  // namespace

void floyd_pivot_block_cpu(PathLength* d, std::uint64_t stride, std::uint32_t n, std::uint32_t k0, std::uint32_t k1) {
  PivotRow p;
  close_block_and_row_panel(d, stride, n, k0, k1, &p);
  for_each_row_outside(n, k0, k1, [&](std::uint32_t i) {
    PathLength* row_i = d + i * stride;
    gather_pivots(row_i, d, stride, k0, k1, &p);  // phase 2, column panel: D[i][K] through the block
    relax_segment(row_i, k0, k1, p);
    gather_pivots(row_i, d, stride, k0, k1, &p);  // phase 3: the rest of the row through the panel
    relax_segment(row_i, 0, k0, p);
    relax_segment(row_i, k1, n, p);
  });
}

void eliminate_pivot_block_cpu(PathLength* d, std::uint64_t stride, std::uint32_t k0, std::uint32_t k1) {
  eliminate_rows(d, stride, k0, k1, false);
}

void eliminate_pivot_block_symmetric_cpu(PathLength* d, std::uint64_t stride, std::uint32_t k0, std::uint32_t k1) {
  whole_pivot_rows(d, stride, k0, k1);
  eliminate_rows(d, stride, k0, k1, true);
}

void floyd_pivot_block_symmetric_cpu(PathLength* d, std::uint64_t stride, std::uint32_t n, std::uint32_t k0,
                                     std::uint32_t k1) {
  whole_pivot_rows(d, stride, k0, k1);
  PivotRow p;
  close_block_and_row_panel(d, stride, n, k0, k1, &p);
  // Phase 3: D[i][K] is the transpose of the row panel (now current); D[i][j], j >= i, through it.
  for_each_row_outside(n, k0, k1, [&](std::uint32_t i) {
    PathLength* row_i = d + i * stride;
    p.count = 0;
    for (std::uint32_t k = k0; k < k1; ++k) {
      const PathLength v = d[k * stride + i];
      if (i < k) row_i[k] = v;  // the upper triangle's part of the column panel
      if (v == kUnreached) continue;
      p.rows[p.count] = d + k * stride;
      p.x[p.count] = v;
      ++p.count;
    }
    relax_segment(row_i, i, n, p);  // (its columns in K are closed already: no change there)
  });
}

void blocked_floyd_warshall_cpu(PathLength* d, std::uint32_t n) {
  for (std::uint32_t k0 = 0; k0 < n; k0 += kPivotBlockCpu)
    floyd_pivot_block_cpu(d, n, n, k0, std::min(n, k0 + kPivotBlockCpu));
}

void leaf_adjacency_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                        Connectivity connectivity, PathLength* d, bool* overflow) {
  const std::uint32_t n = s * s;
  std::fill(d, d + static_cast<std::size_t>(n) * n, kUnreached);
  for (std::uint32_t u = 0; u < n; ++u) {
    const std::uint32_t x = u % s, y = u / s;
    const double a = values[y * stride + x];
    if (a != a) continue;
    d[static_cast<std::size_t>(u) * n + u] = 0;
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const int nx = static_cast<int>(x) + kDirDx[dir], ny = static_cast<int>(y) + kDirDy[dir];
      if (nx < 0 || ny < 0 || nx >= static_cast<int>(s) || ny >= static_cast<int>(s)) continue;
      const Weight w = step_weight(params, a, values[static_cast<std::uint64_t>(ny) * stride + nx], dir, 0, overflow);
      if (w == kNoEdge) continue;
      d[static_cast<std::size_t>(u) * n + static_cast<std::uint32_t>(ny) * s + static_cast<std::uint32_t>(nx)] = w;
    }
  }
}

void leaf_boundary_matrix_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                              Connectivity connectivity, PathLength* workspace, PathLength* out, bool* overflow) {
  const std::uint32_t n = s * s;
  leaf_adjacency_cpu(values, stride, s, params, connectivity, workspace, overflow);
  blocked_floyd_warshall_cpu(workspace, n);
  const std::uint32_t b = ring_size(s);
  for (std::uint32_t p = 0; p < b; ++p) {
    std::uint32_t px, py;
    ring_cell_of(s, p, &px, &py);
    const PathLength* row = workspace + static_cast<std::size_t>(py * s + px) * n;
    for (std::uint32_t q = 0; q < b; ++q) {
      std::uint32_t qx, qy;
      ring_cell_of(s, q, &qx, &qy);
      out[static_cast<std::size_t>(p) * b + q] = row[qy * s + qx];
    }
  }
}

}  // namespace terrazo
