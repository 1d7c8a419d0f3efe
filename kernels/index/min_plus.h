// kernels/index/min_plus.h: min-plus (tropical) products of a boundary matrix with label vectors, the
// re-solve of a tile in a query of the index (docs/index.md "Queries").
//
// Source: [Malison2012, sec. 4.1] (min-plus matrix products for shortest paths); [Gerritsen2012, ch. 4].
// Contract (CPU twin and CUDA kernel give the same vectors):
//   min_plus_product_cpu(m, b, x, k, y): m is b x b row-major (kUnreached = no path), x and y are k
//   vectors of b entries back to back; y[v][j] = min( y[v][j], min over i of x[v][i] + m[i][j] )
//   (kUnreached absorbs). With k = 1 this is the matrix-vector product of a tile's re-solve.
//   Plain formula; the CPU twin skips rows whose x[v][i] is kUnreached (same result).
#pragma once
#include <cstdint>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

// One row of every CPU twin's relaxation: y[j] = min(y[j], x + row[j]) for j < n (kUnreached absorbs;
// x finite). Branch-free, so the compiler vectorizes it; built for AVX2 and the baseline, chosen at
// run time (the same results: integer min-plus is exact).
void min_plus_relax_row(PathLength* y, const PathLength* row, PathLength x, std::uint32_t n);

void min_plus_product_cpu(const PathLength* m, std::uint32_t b, const PathLength* x, std::uint32_t k, PathLength* y);

// CUDA: `count` independent products back to back (matrices count x b x b, x and y count x k x b),
// host pointers. Returns the kernel time in milliseconds.
double min_plus_product_cuda(const PathLength* m, std::uint64_t count, std::uint32_t b, const PathLength* x,
                             std::uint32_t k, PathLength* y);

}  // namespace terrazo
