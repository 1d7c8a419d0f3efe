// kernels/index/boundary_merge_cpu.cpp: the CPU twin of boundary_merge.h: the blocked elimination with
// the CPU's pivot blocks (blocked_floyd_warshall.h building blocks).
#include <algorithm>
#include <vector>

#include "kernels/common/tile_geometry.h"
#include "kernels/index/blocked_floyd_warshall.h"
#include "kernels/index/boundary_merge.h"
#include "kernels/index/min_plus.h"

namespace terrazo {

void merge_union_order(std::uint32_t s, std::uint32_t* order) {
  const std::uint32_t b = ring_size(s), parent_b = ring_size(2 * s);
  std::uint32_t next = parent_b;
  for (std::uint32_t c = 0; c < 4; ++c) {
    const std::uint32_t ox = (c & 1u) * s, oy = (c >> 1) * s;
    for (std::uint32_t p = 0; p < b; ++p) {
      std::uint32_t x, y;
      ring_cell_of(s, p, &x, &y);
      const std::int32_t q = ring_position(2 * s, ox + x, oy + y);
      order[c * b + p] = q >= 0 ? static_cast<std::uint32_t>(q) : next++;
    }
  }
}

void boundary_merge_cpu(const double* values, std::uint64_t stride, std::uint32_t s, const WeightParams& params,
                        Connectivity connectivity, const PathLength* children, PathLength* workspace,
                        PathLength* parent, bool* overflow) {
  const std::uint32_t b = ring_size(s), parent_b = ring_size(2 * s);
  const std::uint32_t u = static_cast<std::uint32_t>(merge_union_size(s));
  std::vector<std::uint32_t> order(u);
  merge_union_order(s, order.data());
  PathLength* d = workspace;
  std::fill(d, d + static_cast<std::size_t>(u) * u, kUnreached);
  // The children's matrices.
  for (std::uint32_t c = 0; c < 4; ++c) {
    const PathLength* m = children + static_cast<std::size_t>(c) * b * b;
    for (std::uint32_t p = 0; p < b; ++p) {
      PathLength* row = d + static_cast<std::size_t>(order[c * b + p]) * u;
      for (std::uint32_t q = 0; q < b; ++q) row[order[c * b + q]] = m[static_cast<std::size_t>(p) * b + q];
    }
  }
  // The edges between cells of different children (both ends on their children's rings).
  for (std::uint32_t c = 0; c < 4; ++c)
    for (std::uint32_t p = 0; p < b; ++p)
      add_cross_child_edges(values, stride, s, params, connectivity, order.data(), u, c, p, d, overflow);
  // Eliminate S (vertices parent_b .. u-1) in blocks of pivots, last block first: each block's Schur
  // complement onto the vertices below it.
  // The matrix is symmetric (symmetric weights, the only ones an index holds): the eliminations and
  // the closure update its upper triangle only (half the work), and P x P is made whole at the end.
  for (std::uint32_t k1 = u; k1 > parent_b;) {
    const std::uint32_t k0 = k1 - std::min(kPivotBlockCpu, k1 - parent_b);
    eliminate_pivot_block_symmetric_cpu(d, u, k0, k1);
    k1 = k0;
  }
  // Close P (paths between ring cells of the parent through other ring cells of the parent): blocked
  // Floyd-Warshall over the first parent_b vertices.
  for (std::uint32_t k0 = 0; k0 < parent_b; k0 += kPivotBlockCpu)
    floyd_pivot_block_symmetric_cpu(d, u, parent_b, k0, std::min(parent_b, k0 + kPivotBlockCpu));
  for (std::uint32_t i = 0; i < parent_b; ++i)
    for (std::uint32_t j = 0; j < i; ++j) d[static_cast<std::size_t>(i) * u + j] = d[static_cast<std::size_t>(j) * u + i];
  for (std::uint32_t p = 0; p < parent_b; ++p)
    std::copy(d + static_cast<std::size_t>(p) * u, d + static_cast<std::size_t>(p) * u + parent_b,
              parent + static_cast<std::size_t>(p) * parent_b);
}

}  // namespace terrazo
