// kernels/index/min_plus_triangle.h: the min-plus product of a symmetric boundary matrix kept as the
// index file stores it (its upper triangle, 4 or 8 bytes an entry) with one label vector: a tile's
// re-solve in the CPU sweep of od-matrix (engine/index/gprime_sweep.h), with no expansion to B x B.
//
// Source: [Malison2012, sec. 4.1] (min-plus products for shortest paths); [Gerritsen2012, ch. 4] (G').
// Contract: tri holds d(i, j) for i <= j, row i after row i - 1, each row j = i .. b - 1 (so d(i, j)
// sits at tri[i * b - i * (i - 1) / 2 + j - i]); no path: 0xFFFFFFFF (32-bit) or kUnreached (64-bit).
// x has b entries, kUnreached where the position is not pending; lo and hi bound the finite ones
// (lo > hi: none). On return y[q] = min(y[q], min over p of x[p] + d(p, q)): the same vector as
// min_plus_product_cpu with the full matrix (d(p, q) = d(q, p)). Finite labels and entries stay
// below 2^57 (boundary_ring.h), so every sum is exact; no path gives kUnreached, never a wrapped sum.
// Work: row i of the triangle serves p = i (its entries d(i, q), q >= i) and the pending p in
// (i, hi] (d(i, p), gathered into y[i]): at most b^2 / 2 entries each way, vectorized.
#pragma once
#include <cstdint>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

inline std::uint64_t triangle_entries(std::uint32_t b) { return static_cast<std::uint64_t>(b) * (b + 1) / 2; }

void min_plus_triangle_relax32(const std::uint32_t* tri, std::uint32_t b, const PathLength* x, std::uint32_t lo,
                               std::uint32_t hi, PathLength* y);
// The 32-bit kernel without AVX-512 (what min_plus_triangle_relax32 runs on a CPU without it; tests
// compare the two).
void min_plus_triangle_relax32_portable(const std::uint32_t* tri, std::uint32_t b, const PathLength* x,
                                        std::uint32_t lo, std::uint32_t hi, PathLength* y);
void min_plus_triangle_relax64(const PathLength* tri, std::uint32_t b, const PathLength* x, std::uint32_t lo,
                               std::uint32_t hi, PathLength* y);

}  // namespace terrazo
