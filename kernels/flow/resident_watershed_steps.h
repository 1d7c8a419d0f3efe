// kernels/flow/resident_watershed_steps.h: the per-cell steps of the resident watershed labelling
// (kernels/flow/resident_watershed.h) as host/device functions, so that the CUDA kernels
// (resident_watershed.cu) and the CPU twin (resident_watershed_cpu.cpp) run the same code.
#pragma once
#include <cstdint>

#include "kernels/common/edge_weight.h"  // TERRAZO_HD
#include "kernels/flow/resident_flowacc_steps.h"  // ResidentCodeRaster, resident_downstream, resident_walkable

namespace terrazo {

// The labelling's raster: the codes and, per cell, its pointer, its basin's first cell and its label.
struct ResidentBasinRaster : ResidentCodeRaster {
  std::uint64_t* outlet = nullptr;  // each valid cell's pointer down its path (step 1), then its end
  std::uint64_t* first = nullptr;   // at an end cell: the least cell of its basin (step 4)
  std::uint32_t* label = nullptr;   // the labels (steps 5-6), 0 at nodata
};

constexpr std::uint64_t kNoBasinCell = ~0ull;    // outlet of nodata; first of a cell no basin ends at
constexpr std::uint64_t kBasinChunk = 1ull << 16;  // cells per chunk of the ranking (step 5)

// Loads and stores of the pointers while other threads jump theirs: any value seen is a cell down
// the path, so the order does not matter (relaxed atomics on the host, plain accesses on the device).
TERRAZO_HD std::uint64_t resident_load(const std::uint64_t* p) {
#if defined(__CUDA_ARCH__)
  return *p;
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}
TERRAZO_HD void resident_store(std::uint64_t* p, std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  *p = v;
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}
TERRAZO_HD void resident_atomic_min(std::uint64_t* p, std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  atomicMin(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
#else
  std::uint64_t now = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < now && !__atomic_compare_exchange_n(p, &now, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

// What step 1 counts of one cell.
struct ResidentBasinCount {
  std::uint64_t valid = 0, bad = 0;
  TERRAZO_HD void add(const ResidentBasinCount& o) {
    valid += o.valid;
    bad += o.bad;
  }
};

// Step 1 at cell i: its pointer (the next cell, itself at an end; kNoBasinCell at nodata), its first
// and label cleared; a code checked.
TERRAZO_HD ResidentBasinCount resident_basin_start(const ResidentBasinRaster& r, std::uint64_t i) {
  ResidentBasinCount count;
  r.first[i] = kNoBasinCell;
  r.label[i] = 0;
  const std::uint8_t c = r.code[i];
  if (c == kD8Nodata) {
    r.outlet[i] = kNoBasinCell;
    return count;
  }
  count.valid = 1;
  count.bad = !d8_is_code(c);
  const std::uint64_t n = resident_downstream(r, i);  // a bad code ends: kFlowNoNext
  r.outlet[i] = n == kFlowNoNext ? i : n;
  return count;
}

// Step 2 at cell i: its pointer replaced by its pointer's; whether it changed.
TERRAZO_HD bool resident_jump(const ResidentBasinRaster& r, std::uint64_t i) {
  const std::uint64_t o = resident_load(&r.outlet[i]);
  if (o == kNoBasinCell) return false;
  const std::uint64_t oo = resident_load(&r.outlet[o]);
  if (oo == o) return false;
  resident_store(&r.outlet[i], oo);
  return true;
}

// Step 3 at cell i: whether it is valid and its pointer is no end (its flow never ends).
TERRAZO_HD bool resident_basin_looped(const ResidentBasinRaster& r, std::uint64_t i) {
  const std::uint64_t o = r.outlet[i];
  return o != kNoBasinCell && resident_downstream(r, o) != kFlowNoNext;
}

// Step 4 at cell i: its basin's first cell lowered to i.
TERRAZO_HD void resident_lower_first(const ResidentBasinRaster& r, std::uint64_t i) {
  const std::uint64_t o = r.outlet[i];
  if (o != kNoBasinCell) resident_atomic_min(&r.first[o], i);
}

// Step 5: whether cell i is its basin's first cell.
TERRAZO_HD bool resident_is_first(const ResidentBasinRaster& r, std::uint64_t i) {
  const std::uint64_t o = r.outlet[i];
  return o != kNoBasinCell && r.first[o] == i;
}

// Step 6 at cell i: its first cell's label (a first cell has its own already; 0 at nodata).
TERRAZO_HD void resident_take_label(const ResidentBasinRaster& r, std::uint64_t i) {
  const std::uint64_t o = r.outlet[i];
  if (o == kNoBasinCell) return;
  const std::uint64_t f = r.first[o];
  if (f != i) r.label[i] = r.label[f];
}

// 1 + ceil(log2 cells): the rounds after which every pointer of a raster without loops is at its end.
TERRAZO_HD std::uint64_t resident_jump_rounds(std::uint64_t cells) {
  std::uint64_t rounds = 1;
  while (rounds < 64 && (1ull << (rounds - 1)) < cells) ++rounds;
  return rounds;
}

}  // namespace terrazo
