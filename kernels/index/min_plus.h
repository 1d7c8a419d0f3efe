// kernels/index/min_plus.h: min-plus (tropical) products of a boundary matrix with label vectors, the
// re-solve of a tile in a query of the index (docs/index.md "Queries").
//
// Source: [Malison2012, sec. 4.1] (min-plus matrix products for shortest paths); [Gerritsen2012, ch. 4].
// Contract (CPU twin and CUDA kernel give the same vectors):
//   min_plus_product_cpu(m, b, x, k, y): m is b x b row-major (kUnreached = no path), x and y are k
//   vectors of b entries back to back; y[v][j] = min( y[v][j], min over i of x[v][i] + m[i][j] )
//   (kUnreached absorbs). With k = 1 this is the matrix-vector product of a tile's re-solve.
//   Plain formula; the CPU twin skips rows whose x[v][i] is kUnreached (same result).
//   min_plus_gather_cpu(m, b, slot_of, n, x, y): n vectors of b entries (x, y back to back); vector e
//   uses matrix slot_of[e] of m (slots of b x b, back to back): y[e][j] = min(y[e][j], min over i of
//   x[e][i] + m[slot_of[e]][i][j]). The G' exchange's round of tile re-solves (many tiles, each with
//   its pending sources); MinPlusCuda::gather is its CUDA twin over matrices held on the GPU.
#pragma once
#include <cstdint>
#include <memory>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

// One row of every CPU twin's relaxation: y[j] = min(y[j], x + row[j]) for j < n (kUnreached absorbs;
// x finite). Branch-free, so the compiler vectorizes it; built for AVX2 and the baseline, chosen at
// run time (the same results: integer min-plus is exact).
void min_plus_relax_row(PathLength* y, const PathLength* row, PathLength x, std::uint32_t n);

// Several rows at once, the register-tiled inner loop of the blocked eliminations (boundary_merge.h,
// blocked_floyd_warshall.h): y[j] = min(y[j], min over r < count of x[r] + rows[r][j]) for j < n
// (x[r] finite; kUnreached in rows absorbs). y is loaded and stored once per chunk of 16 entries, not
// once per row. rows[r] may be y itself (then its entries are read as they were before the call's
// chunk: a finite x[r] >= 0 cannot improve them through themselves).
void min_plus_relax_rows(PathLength* y, const PathLength* const* rows, const PathLength* x, std::uint32_t count,
                         std::uint32_t n);

// Floyd-Warshall closure of a w x w block (w <= 32) of a matrix with row stride `stride`, in place:
// d[i][j] = shortest walk i -> j over the block's entries (the plain triple loop, k outer). The block
// is copied into a 32 x 32 array padded with kUnreached, so every row is eight fixed vectors.
void min_plus_close_block(PathLength* d, std::uint64_t stride, std::uint32_t w);

void min_plus_product_cpu(const PathLength* m, std::uint32_t b, const PathLength* x, std::uint32_t k, PathLength* y);

void min_plus_gather_cpu(const PathLength* m, std::uint32_t b, const std::uint32_t* slot_of, std::uint64_t n,
                         const PathLength* x, PathLength* y);

// The CUDA twin of min_plus_gather_cpu with the matrices resident on the GPU: `slots` matrices of
// b x b entries (slot_bytes(b) each) are allocated once; upload() fills a slot, gather() runs the
// products of n vectors (host pointers x, y) over the slots in one launch (a thread block per run of
// up to 8 adjacent vectors of one slot: each matrix entry read once serves the run). Returns the
// kernel time in milliseconds. Without CUDA (or a GPU) the constructor throws Error.
class MinPlusCuda {
 public:
  MinPlusCuda(std::uint32_t b, std::uint64_t slots);
  ~MinPlusCuda();
  MinPlusCuda(const MinPlusCuda&) = delete;
  MinPlusCuda& operator=(const MinPlusCuda&) = delete;
  static std::uint64_t slot_bytes(std::uint32_t b) { return static_cast<std::uint64_t>(b) * b * 8; }
  // Device memory free now (bytes), for sizing `slots`.
  static std::uint64_t free_device_bytes();
  void upload(std::uint64_t slot, const PathLength* matrix);
  double gather(const std::uint32_t* slot_of, std::uint64_t n, const PathLength* x, PathLength* y);
  std::uint64_t uploads() const { return uploads_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::uint32_t b_ = 0;
  std::uint64_t slots_ = 0, uploads_ = 0;
};

// CUDA: `count` independent products back to back (matrices count x b x b, x and y count x k x b),
// host pointers. Returns the kernel time in milliseconds.
double min_plus_product_cuda(const PathLength* m, std::uint64_t count, std::uint32_t b, const PathLength* x,
                             std::uint32_t k, PathLength* y);

}  // namespace terrazo
