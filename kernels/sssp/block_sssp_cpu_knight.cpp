// kernels/sssp/block_sssp_cpu_knight.cpp: the CPU block solver with knight's moves (--connectivity 16).
//
// The contract of kernels/sssp/block_sssp.h on a (t+4)^2 window: solve() of block_sssp_cpu_solve.h on
// its KnightStencil.
#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

template <bool kLabelled, class Queue>
std::uint64_t solve_knight(const double* values, std::uint32_t t, const WeightParams& params, PathLength max_cost,
                           const Labels<kLabelled>& labels, bool interior_consistent, std::uint8_t* changed,
                           bool* overflow, Queue& heap) {
  return solve(KnightStencil(values, t, params), max_cost, labels, interior_consistent, changed, overflow, heap);
}

template std::uint64_t solve_knight<false, Heap64>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                   const Labels<false>&, bool, std::uint8_t*, bool*, Heap64&);
template std::uint64_t solve_knight<false, Buckets64>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                      const Labels<false>&, bool, std::uint8_t*, bool*, Buckets64&);
template std::uint64_t solve_knight<true, Heap128>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                   const Labels<true>&, bool, std::uint8_t*, bool*, Heap128&);
template std::uint64_t solve_knight<true, Buckets128>(const double*, std::uint32_t, const WeightParams&, PathLength,
                                                      const Labels<true>&, bool, std::uint8_t*, bool*, Buckets128&);

}  // namespace block_sssp_cpu_detail
}  // namespace terrazo
