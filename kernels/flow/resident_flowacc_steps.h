// kernels/flow/resident_flowacc_steps.h: the per-cell steps of the resident flow accumulation
// (kernels/flow/resident_flowacc.h) as host/device functions, so that the CUDA kernels
// (resident_flowacc.cu) and the CPU twin (resident_flowacc_cpu.cpp) run the same code: one thread
// (or one loop iteration) per cell, atomics where cells are shared.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/common/edge_weight.h"  // TERRAZO_HD
#include "kernels/common/resident_nodata.h"
#include "kernels/flow/d8_step.h"

namespace terrazo {

// The whole raster's code bytes, row-major (cell i = y * width + x), in the solver's memory: what
// the resident flow accumulation and the resident watershed labelling (resident_watershed_steps.h)
// both follow downstream.
struct ResidentCodeRaster {
  std::uint64_t width = 0, height = 0;
  std::uint8_t* code = nullptr;  // d8_byte of each cell; kD8Nodata where never written
  TERRAZO_HD std::uint64_t cells() const { return width * height; }
};

// The accumulation's raster: the codes and, per cell, its in-degree and sum.
struct ResidentFlowRaster : ResidentCodeRaster {
  std::uint32_t* in_degree = nullptr;    // cells flowing in (step 1), kFlowSource at sources (step 2)
  unsigned long long* sum = nullptr;     // the amounts, then the sums (int64 bits)
};

constexpr std::uint64_t kFlowNoNext = ~0ull;       // the flow ends at the cell
constexpr std::uint32_t kFlowSource = 0x80000000u;  // in_degree of a source: no walk decrements it

// Atomics on the shared arrays: CUDA's on the device, GCC's on the host (sequentially consistent).
TERRAZO_HD std::uint32_t resident_atomic_add(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(reinterpret_cast<unsigned int*>(p), v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#endif
}
TERRAZO_HD std::uint32_t resident_atomic_sub(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicSub(reinterpret_cast<unsigned int*>(p), v);
#else
  return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
#endif
}
TERRAZO_HD unsigned long long resident_atomic_add(unsigned long long* p, unsigned long long v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#endif
}
// A read that sees every atomic add made visible before it (not an L1-cached copy on the device).
TERRAZO_HD unsigned long long resident_atomic_load(unsigned long long* p) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, 0ull);
#else
  return __atomic_load_n(p, __ATOMIC_SEQ_CST);
#endif
}
// Orders a thread's earlier writes before its later ones for every other thread (device-wide).
TERRAZO_HD void resident_fence() {
#if defined(__CUDA_ARCH__)
  __threadfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

// A valid cell: not nodata and a code (a cell of kD8NotACode is counted bad, never walked).
TERRAZO_HD bool resident_walkable(std::uint8_t code) { return code != kD8Nodata && d8_is_code(code); }

// Where the flow of cell i goes: kFlowNoNext when its code is 0 (or no code), when it points off the
// raster or at a nodata cell; else the downstream cell's index.
TERRAZO_HD std::uint64_t resident_downstream(const ResidentCodeRaster& r, std::uint64_t i) {
  const std::uint8_t c = r.code[i];
  if (c == kD8NoFlow || !resident_walkable(c)) return kFlowNoNext;
  const D8Landing l = d8_land(c, static_cast<std::int64_t>(i % r.width), static_cast<std::int64_t>(i / r.width),
                              static_cast<std::int64_t>(r.width), static_cast<std::int64_t>(r.height));
  if (l.off()) return kFlowNoNext;
  const std::uint64_t n = static_cast<std::uint64_t>(l.y) * r.width + static_cast<std::uint64_t>(l.x);
  return r.code[n] == kD8Nodata ? kFlowNoNext : n;
}

// What step 1 counts of one cell.
struct ResidentCellCount {
  std::uint64_t valid = 0, outlets = 0, bad = 0;
  TERRAZO_HD void add(const ResidentCellCount& o) {
    valid += o.valid;
    outlets += o.outlets;
    bad += o.bad;
  }
};

// Step 1 at cell i: a code checked, the in-degree of its downstream cell raised.
TERRAZO_HD ResidentCellCount resident_count_cell(const ResidentFlowRaster& r, std::uint64_t i) {
  ResidentCellCount count;
  const std::uint8_t c = r.code[i];
  if (c == kD8Nodata) return count;
  count.valid = 1;
  if (!d8_is_code(c)) {
    count.bad = 1;
    return count;
  }
  const std::uint64_t n = resident_downstream(r, i);
  if (n == kFlowNoNext)
    count.outlets = 1;
  else
    resident_atomic_add(&r.in_degree[n], 1u);
  return count;
}

// llround(w x scale) in *out (0 for NaN); false when no int64 holds it (infinite, or |w x scale| past
// 9.2e18), as the tiled pipeline refuses it.
TERRAZO_HD bool resident_fixed_point(double w, double scale, std::int64_t* out) {
  *out = 0;
  if (w != w) return true;
  const double v = w * scale;
  if (!(v - v == 0) || !(::fabs(v) < 9.2e18)) return false;
  *out = static_cast<std::int64_t>(::llround(v));
  return true;
}

// write_weights at cell i of value w: its amount; false for a weight no fixed point holds.
TERRAZO_HD bool resident_set_weight(const ResidentFlowRaster& r, std::uint64_t i, double w, double scale) {
  if (r.code[i] == kD8Nodata) return true;
  std::int64_t amount = 0;
  const bool ok = resident_fixed_point(w, scale, &amount);
  r.sum[i] = static_cast<unsigned long long>(amount);
  return ok;
}

// Step 2 at cell i: with counts, its amount (1 when valid, else 0); a valid cell that nothing flows
// into becomes a source.
TERRAZO_HD void resident_prepare_cell(const ResidentFlowRaster& r, std::uint64_t i, bool weighted) {
  const bool walkable = resident_walkable(r.code[i]);
  if (!weighted) r.sum[i] = walkable ? 1 : 0;
  if (walkable && r.in_degree[i] == 0) r.in_degree[i] = kFlowSource;
}

// Whether cell i is a source (step 3 reads it while walks decrement other cells' in-degrees).
TERRAZO_HD bool resident_is_source(const ResidentFlowRaster& r, std::uint64_t i) {
#if defined(__CUDA_ARCH__)
  return r.in_degree[i] == kFlowSource;
#else
  return __atomic_load_n(&r.in_degree[i], __ATOMIC_RELAXED) == kFlowSource;
#endif
}

// Whether adding b to a (as unsigned bits, giving s) overflowed as int64: a and b of one sign, s of the other.
TERRAZO_HD bool resident_add_overflows(unsigned long long a, unsigned long long b, unsigned long long s) {
  return ((a ^ s) & (b ^ s)) >> 63;
}

// Step 3 from source i: down its path, adding the complete sum of each cell to the next one's, until
// the flow ends or another walk still has to add to the next cell. True when a partial sum overflowed.
TERRAZO_HD bool resident_walk(const ResidentFlowRaster& r, std::uint64_t i) {
  bool overflow = false;
  unsigned long long s = r.sum[i];  // a source's own amount, written before the walks
  for (;;) {
    const std::uint64_t n = resident_downstream(r, i);
    if (n == kFlowNoNext) return overflow;
    const unsigned long long old = resident_atomic_add(&r.sum[n], s);
    overflow |= resident_add_overflows(old, s, old + s);
    resident_fence();  // the add before the decrement, for the walk that takes n
    if (resident_atomic_sub(&r.in_degree[n], 1u) != 1u) return overflow;
    resident_fence();
    s = resident_atomic_load(&r.sum[n]);  // every upstream add is in
    i = n;
  }
}

// Step 4 at cell i: whether it is valid and on a loop (its in-degree never reached 0).
TERRAZO_HD bool resident_looped(const ResidentFlowRaster& r, std::uint64_t i) {
  const std::uint32_t d = r.in_degree[i];
  return resident_walkable(r.code[i]) && d != 0 && d != kFlowSource;
}

// The written value of cell i: sum / scale (the double of the sum when scale is 1), NaN at nodata.
TERRAZO_HD double resident_value(const ResidentFlowRaster& r, std::uint64_t i, double scale) {
  if (r.code[i] == kD8Nodata) return resident_nodata();
  const double v = static_cast<double>(static_cast<std::int64_t>(r.sum[i]));
  return scale == 1 ? v : v / scale;
}

}  // namespace terrazo
