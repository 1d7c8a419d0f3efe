// kernels/index/blocked_floyd_warshall_cpu.cpp: the CPU twin of blocked_floyd_warshall.h.
#include <algorithm>
#include <vector>

#include "kernels/common/tile_geometry.h"
#include "kernels/index/blocked_floyd_warshall.h"
#include "kernels/index/min_plus.h"

namespace terrazo {
namespace {

// d[i][j] = min(d[i][j], d[i][k] + d[k][j]) for k in [k0, k1), i in [i0, i1), j in [j0, j1).
void relax_block(PathLength* d, std::uint32_t n, std::uint32_t k0, std::uint32_t k1, std::uint32_t i0,
                 std::uint32_t i1, std::uint32_t j0, std::uint32_t j1) {
  for (std::uint32_t k = k0; k < k1; ++k) {
    const PathLength* row_k = d + static_cast<std::size_t>(k) * n;
    for (std::uint32_t i = i0; i < i1; ++i) {
      PathLength* row_i = d + static_cast<std::size_t>(i) * n;
      const PathLength dik = row_i[k];
      if (dik != kUnreached) min_plus_relax_row(row_i + j0, row_k + j0, dik, j1 - j0);
    }
  }
}

}  // namespace

void blocked_floyd_warshall_cpu(PathLength* d, std::uint32_t n) {
  const std::uint32_t b = std::min(n, kFloydBlock);
  const std::uint32_t blocks = (n + b - 1) / b;
  for (std::uint32_t kb = 0; kb < blocks; ++kb) {
    const std::uint32_t k0 = kb * b, k1 = std::min(n, k0 + b);
    relax_block(d, n, k0, k1, k0, k1, k0, k1);  // phase 1: the diagonal block
    for (std::uint32_t jb = 0; jb < blocks; ++jb) {  // phase 2: its row and its column
      if (jb == kb) continue;
      const std::uint32_t j0 = jb * b, j1 = std::min(n, j0 + b);
      relax_block(d, n, k0, k1, k0, k1, j0, j1);
      relax_block(d, n, k0, k1, j0, j1, k0, k1);
    }
    for (std::uint32_t ib = 0; ib < blocks; ++ib) {  // phase 3: the rest
      if (ib == kb) continue;
      const std::uint32_t i0 = ib * b, i1 = std::min(n, i0 + b);
      for (std::uint32_t jb = 0; jb < blocks; ++jb) {
        if (jb == kb) continue;
        const std::uint32_t j0 = jb * b, j1 = std::min(n, j0 + b);
        relax_block(d, n, k0, k1, i0, i1, j0, j1);
      }
    }
  }
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
