// kernels/index/min_plus_triangle_cpu.cpp: min_plus_triangle.h (CPU only: the GPU's rounds keep the
// matrices expanded, kernels/index/gprime_rounds.h).
#include "kernels/index/min_plus_triangle.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TERRAZO_TRIANGLE_AVX512 1
#endif

namespace terrazo {
namespace {

constexpr std::uint32_t kNoPath32 = 0xFFFFFFFFu;

// x + v, or kUnreached when v is no path or x is not a label (branch-free, so the loops vectorize).
inline PathLength sum32(PathLength x, std::uint32_t v) {
  const PathLength s = x + v;
  return (v == kNoPath32) | (x == kUnreached) ? kUnreached : s;
}
inline PathLength sum64(PathLength x, PathLength v) {
  const PathLength s = x + v;
  return (v == kUnreached) | (x == kUnreached) ? kUnreached : s;
}

template <typename Entry, PathLength (*Sum)(PathLength, Entry)>
inline __attribute__((always_inline)) void relax(const Entry* tri, std::uint32_t b, const PathLength* x,
                                                 std::uint32_t lo, std::uint32_t hi, PathLength* y) {
  if (lo > hi || hi >= b) return;
  const Entry* row = tri;
  for (std::uint32_t i = 0; i < b; row += b - i, ++i) {
    // p = i: its row, d(i, q) for q >= i, into y[q].
    const PathLength xi = x[i];
    if (xi != kUnreached) {
      const std::uint32_t n = b - i;
      PathLength* yi = y + i;
      for (std::uint32_t j = 0; j < n; ++j) {
        const PathLength s = Sum(xi, row[j]);
        yi[j] = s < yi[j] ? s : yi[j];
      }
    }
    // q = i: the pending p in (i, hi], d(i, p) = row[p - i], into y[i].
    const std::uint32_t first = lo > i + 1 ? lo : i + 1;
    if (first > hi) continue;
    PathLength best = y[i];
    const Entry* from = row - i;
    for (std::uint32_t p = first; p <= hi; ++p) {
      const PathLength s = Sum(x[p], from[p]);
      best = s < best ? s : best;
    }
    y[i] = best;
  }
}

#if TERRAZO_TRIANGLE_AVX512
// The 32-bit triangle with AVX-512: eight lanes of 64-bit sums, the rows' tails by masks (the rows are
// short: b - i entries, and the gathers hi - i), so no row pays a scalar epilogue.
__attribute__((target("avx512f,avx512vl"))) void relax32_avx512(const std::uint32_t* tri, std::uint32_t b,
                                                                 const PathLength* x, std::uint32_t lo,
                                                                 std::uint32_t hi, PathLength* y) {
  if (lo > hi || hi >= b) return;
  const __m256i none32 = _mm256_set1_epi32(-1);
  const __m512i unreached = _mm512_set1_epi64(-1);
  const std::uint32_t* row = tri;
  for (std::uint32_t i = 0; i < b; row += b - i, ++i) {
    const PathLength xi = x[i];
    if (xi != kUnreached) {  // p = i: y[i + j] = min(y[i + j], xi + row[j]) for j < b - i
      const __m512i xv = _mm512_set1_epi64(static_cast<long long>(xi));
      const std::uint32_t n = b - i;
      PathLength* yi = y + i;
      for (std::uint32_t j = 0; j < n; j += 8) {
        const __mmask8 lanes = n - j >= 8 ? static_cast<__mmask8>(0xFF) : static_cast<__mmask8>((1u << (n - j)) - 1);
        const __m256i v = _mm256_maskz_loadu_epi32(lanes, row + j);
        const __mmask8 path = _mm256_mask_cmpneq_epi32_mask(lanes, v, none32);
        const __m512i s = _mm512_add_epi64(xv, _mm512_cvtepu32_epi64(v));
        const __m512i old = _mm512_maskz_loadu_epi64(lanes, yi + j);
        _mm512_mask_storeu_epi64(yi + j, path, _mm512_min_epu64(old, s));
      }
    }
    const std::uint32_t first = lo > i + 1 ? lo : i + 1;  // q = i: the pending p in (i, hi]
    if (first > hi) continue;
    const std::uint32_t* from = row - i;
    __m512i best = unreached;
    for (std::uint32_t p = first; p <= hi; p += 8) {
      const std::uint32_t left = hi + 1 - p;
      const __mmask8 lanes = left >= 8 ? static_cast<__mmask8>(0xFF) : static_cast<__mmask8>((1u << left) - 1);
      const __m256i v = _mm256_maskz_loadu_epi32(lanes, from + p);
      const __m512i xp = _mm512_maskz_loadu_epi64(lanes, x + p);
      const __mmask8 use = _mm256_mask_cmpneq_epi32_mask(lanes, v, none32) & _mm512_cmpneq_epu64_mask(xp, unreached);
      best = _mm512_mask_min_epu64(best, use, best, _mm512_add_epi64(xp, _mm512_cvtepu32_epi64(v)));
    }
    const PathLength m = static_cast<PathLength>(_mm512_reduce_min_epu64(best));
    if (m < y[i]) y[i] = m;
  }
}

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  return yes;
}
#endif

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx2", "default")))
#endif
void min_plus_triangle_relax32_portable(const std::uint32_t* tri, std::uint32_t b, const PathLength* x, std::uint32_t lo,
                                        std::uint32_t hi, PathLength* y) {
  relax<std::uint32_t, sum32>(tri, b, x, lo, hi, y);
}

void min_plus_triangle_relax32(const std::uint32_t* tri, std::uint32_t b, const PathLength* x, std::uint32_t lo,
                               std::uint32_t hi, PathLength* y) {
#if TERRAZO_TRIANGLE_AVX512
  if (has_avx512()) {
    relax32_avx512(tri, b, x, lo, hi, y);
    return;
  }
#endif
  min_plus_triangle_relax32_portable(tri, b, x, lo, hi, y);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void min_plus_triangle_relax64(const PathLength* tri, std::uint32_t b, const PathLength* x, std::uint32_t lo,
                               std::uint32_t hi, PathLength* y) {
  relax<PathLength, sum64>(tri, b, x, lo, hi, y);
}

}  // namespace terrazo
