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
