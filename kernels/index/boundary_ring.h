// kernels/index/boundary_ring.h: the boundary ring of a square block of cells, in the order every
// boundary-graph matrix of terrazo uses (docs/index.md "The boundary ring").
//
// A block of side s (s >= 2) has B(s) = 4s - 4 boundary cells, numbered clockwise from its top-left
// corner: the top row left to right (x = 0..s-1, y = 0), the right column downwards (x = s-1,
// y = 1..s-1), the bottom row right to left (x = s-2..0, y = s-1), the left column upwards (x = 0,
// y = s-2..1). A side of 1 is the single cell (B = 1). These functions are the whole contract;
// the CPU twins and the CUDA kernels both call them.
#pragma once
#include <cstdint>

#include "kernels/common/edge_weight.h"

namespace terrazo {

TERRAZO_HD std::uint32_t ring_size(std::uint32_t s) { return s == 1 ? 1u : 4u * s - 4u; }

// Position on the ring of cell (x, y) of the block, or -1 for an interior cell.
TERRAZO_HD std::int32_t ring_position(std::uint32_t s, std::uint32_t x, std::uint32_t y) {
  if (s == 1) return 0;
  if (y == 0) return static_cast<std::int32_t>(x);
  if (x == s - 1) return static_cast<std::int32_t>(s - 1 + y);
  if (y == s - 1) return static_cast<std::int32_t>(2 * (s - 1) + (s - 1 - x));
  if (x == 0) return static_cast<std::int32_t>(3 * (s - 1) + (s - 1 - y));
  return -1;
}

// Cell of ring position p (0 <= p < ring_size(s)).
TERRAZO_HD void ring_cell_of(std::uint32_t s, std::uint32_t p, std::uint32_t* x, std::uint32_t* y) {
  if (s == 1) { *x = 0; *y = 0; return; }
  const std::uint32_t side = s - 1;
  if (p < side) { *x = p; *y = 0; return; }
  if (p < 2 * side) { *x = side; *y = p - side; return; }
  if (p < 3 * side) { *x = side - (p - 2 * side); *y = side; return; }
  *x = 0;
  *y = side - (p - 3 * side);
}

// The values of a tile's ring cells (values: s x s row-major) into ring[ring_size(s)], in ring order.
TERRAZO_HD void gather_ring_values(const double* values, std::uint32_t s, double* ring) {
  for (std::uint32_t p = 0; p < ring_size(s); ++p) {
    std::uint32_t x, y;
    ring_cell_of(s, p, &x, &y);
    ring[p] = values[static_cast<std::uint64_t>(y) * s + x];
  }
}

// Min-plus addition on 64-bit path lengths: kUnreached absorbs. Finite sums inside one tile stay below
// 2^56 (t <= 4096: fewer than 2^24 edges of at most 2^32 - 2), so they never reach kUnreached.
TERRAZO_HD PathLength min_plus_add(PathLength a, PathLength b) {
  return (a == kUnreached || b == kUnreached) ? kUnreached : a + b;
}

}  // namespace terrazo
