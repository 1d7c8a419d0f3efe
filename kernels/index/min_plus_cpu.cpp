// kernels/index/min_plus_cpu.cpp: the CPU twin of min_plus.h.
#include "kernels/index/min_plus.h"

namespace terrazo {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx2", "default")))
#endif
void min_plus_relax_row(PathLength* y, const PathLength* row, PathLength x, std::uint32_t n) {
  // x + kUnreached wraps below x: then the select keeps kUnreached out.
  for (std::uint32_t j = 0; j < n; ++j) {
    const PathLength sum = x + row[j];
    const PathLength via = sum < x ? kUnreached : sum;
    y[j] = via < y[j] ? via : y[j];
  }
}

namespace {

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"  // the lanes helpers are inlined: no vector crosses a call
#endif
#define TERRAZO_LANES inline __attribute__((always_inline))

// Four lanes of 64-bit path lengths (GCC/Clang vector extension: AVX2 registers in the avx2 clone).
typedef PathLength Lanes __attribute__((vector_size(32)));

TERRAZO_LANES Lanes load_lanes(const PathLength* p) {
  Lanes v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
TERRAZO_LANES void store_lanes(PathLength* p, Lanes v) { __builtin_memcpy(p, &v, sizeof(v)); }

// min(acc, x + row) lane by lane with a saturating add: row capped at ~x (the largest addend that
// cannot wrap), so x + kUnreached gives kUnreached and finite sums (< 2^57, boundary_ring.h) are
// exact; min_plus_add's results. not_x = ~x.
TERRAZO_LANES Lanes relax_lanes(Lanes acc, Lanes x, Lanes not_x, Lanes row) {
  const Lanes capped = row < not_x ? row : not_x;
  const Lanes via = x + capped;
  return via < acc ? via : acc;
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void min_plus_relax_rows(PathLength* y, const PathLength* const* rows, const PathLength* x, std::uint32_t count,
                         std::uint32_t n) {
  std::uint32_t j = 0;
  for (; j + 16 <= n; j += 16) {
    Lanes a0 = load_lanes(y + j), a1 = load_lanes(y + j + 4), a2 = load_lanes(y + j + 8), a3 = load_lanes(y + j + 12);
    for (std::uint32_t r = 0; r < count; ++r) {
      const Lanes xr = Lanes{} + x[r], not_xr = ~xr;
      const PathLength* row = rows[r] + j;
      a0 = relax_lanes(a0, xr, not_xr, load_lanes(row));
      a1 = relax_lanes(a1, xr, not_xr, load_lanes(row + 4));
      a2 = relax_lanes(a2, xr, not_xr, load_lanes(row + 8));
      a3 = relax_lanes(a3, xr, not_xr, load_lanes(row + 12));
    }
    store_lanes(y + j, a0);
    store_lanes(y + j + 4, a1);
    store_lanes(y + j + 8, a2);
    store_lanes(y + j + 12, a3);
  }
  for (; j + 4 <= n; j += 4) {
    Lanes a = load_lanes(y + j);
    for (std::uint32_t r = 0; r < count; ++r) {
      const Lanes xr = Lanes{} + x[r];
      a = relax_lanes(a, xr, ~xr, load_lanes(rows[r] + j));
    }
    store_lanes(y + j, a);
  }
  for (; j < n; ++j) {
    PathLength a = y[j];
    for (std::uint32_t r = 0; r < count; ++r) {
      const PathLength sum = x[r] + rows[r][j];
      const PathLength via = sum < x[r] ? kUnreached : sum;
      a = via < a ? via : a;
    }
    y[j] = a;
  }
}

namespace {

// The closure in a side x side array padded with kUnreached (side 16 or 32: a row is four or eight
// vectors, so a block of up to 16 pays half the lanes of one of 32).
template <std::uint32_t kSide>
TERRAZO_LANES void close_padded(PathLength* d, std::uint64_t stride, std::uint32_t w) {
  alignas(32) PathLength block[kSide][kSide];
  for (std::uint32_t i = 0; i < kSide; ++i)
    for (std::uint32_t j = 0; j < kSide; ++j) block[i][j] = i < w && j < w ? d[i * stride + j] : kUnreached;
  for (std::uint32_t k = 0; k < w; ++k) {
    for (std::uint32_t i = 0; i < w; ++i) {
      const PathLength x = block[i][k];
      if (x == kUnreached) continue;
      const Lanes xr = Lanes{} + x, not_xr = ~xr;
      for (std::uint32_t v = 0; v < kSide; v += 4)  // row k == row i: each vector is read before it is written
        store_lanes(&block[i][v], relax_lanes(load_lanes(&block[i][v]), xr, not_xr, load_lanes(&block[k][v])));
    }
  }
  for (std::uint32_t i = 0; i < w; ++i)
    for (std::uint32_t j = 0; j < w; ++j) d[i * stride + j] = block[i][j];
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void min_plus_close_block(PathLength* d, std::uint64_t stride, std::uint32_t w) {
  if (w <= 16) close_padded<16>(d, stride, w);
  else close_padded<32>(d, stride, w);
}

void min_plus_product_cpu(const PathLength* m, std::uint32_t b, const PathLength* x, std::uint32_t k, PathLength* y) {
  for (std::uint32_t v = 0; v < k; ++v) {
    const PathLength* xv = x + static_cast<std::size_t>(v) * b;
    PathLength* yv = y + static_cast<std::size_t>(v) * b;
    for (std::uint32_t i = 0; i < b; ++i)
      if (xv[i] != kUnreached) min_plus_relax_row(yv, m + static_cast<std::size_t>(i) * b, xv[i], b);
  }
}

void min_plus_gather_cpu(const PathLength* m, std::uint32_t b, const std::uint32_t* slot_of, std::uint64_t n,
                         const PathLength* x, PathLength* y) {
  const std::uint64_t b2 = static_cast<std::uint64_t>(b) * b;
  for (std::uint64_t e = 0; e < n; ++e)
    min_plus_product_cpu(m + slot_of[e] * b2, b, x + e * b, 1, y + e * b);
}

}  // namespace terrazo
