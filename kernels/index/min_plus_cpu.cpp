// kernels/index/min_plus_cpu.cpp: the CPU twin of min_plus.h.
#include "kernels/index/min_plus.h"

namespace terrazo {

void min_plus_product_cpu(const PathLength* m, std::uint32_t b, const PathLength* x, std::uint32_t k, PathLength* y) {
  for (std::uint32_t v = 0; v < k; ++v) {
    const PathLength* xv = x + static_cast<std::size_t>(v) * b;
    PathLength* yv = y + static_cast<std::size_t>(v) * b;
    for (std::uint32_t i = 0; i < b; ++i) {
      const PathLength xi = xv[i];
      if (xi == kUnreached) continue;
      const PathLength* row = m + static_cast<std::size_t>(i) * b;
      // Branch-free: xi + kUnreached wraps below xi, and is then kept out by the select.
      for (std::uint32_t j = 0; j < b; ++j) {
        const PathLength sum = xi + row[j];
        const PathLength via = sum < xi ? kUnreached : sum;
        yv[j] = via < yv[j] ? via : yv[j];
      }
    }
  }
}

}  // namespace terrazo
