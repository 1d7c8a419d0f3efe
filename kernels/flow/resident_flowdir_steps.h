// kernels/flow/resident_flowdir_steps.h: the steps of the resident flow directions
// (kernels/flow/resident_flowdir.h) as host/device functions, so that the CUDA kernels
// (resident_flowdir.cu) and the CPU twin (resident_flowdir_cpu.cpp) classify, label, relax and
// choose alike. The rules are kernels/flow/d8_tile_cpu.cpp's and kernels/flow/flat_gradient.cpp's,
// restated per cell of a row-major raster.
#pragma once
#include <cstdint>

#include "kernels/common/edge_weight.h"  // TERRAZO_HD
#include "kernels/common/error.h"
#include "kernels/flow/d8_step.h"
#include "kernels/flow/resident_flowdir.h"

namespace terrazo {

constexpr std::uint32_t kFlatUnreached = 0xffffffffu;  // a BFS distance not (yet) reached
constexpr std::uint64_t kNoFlatParent = ~0ull;         // the parent of a cell that is not flat

// A cell's class byte.
constexpr std::uint8_t kDirValid = 1;  // not nodata
constexpr std::uint8_t kDirFlat = 2;   // valid, no strictly lower valid neighbour, not an outlet
constexpr std::uint8_t kDirHigh = 4;   // flat with a higher valid neighbour

// The raster and the per-cell arrays of the steps (row-major, width * height each).
struct FlowdirCells {
  std::uint64_t width = 0, height = 0;
  const double* elev = nullptr;     // NaN: nodata
  std::uint8_t* code = nullptr;     // the output
  std::uint8_t* kind = nullptr;     // kDirValid | kDirFlat | kDirHigh
  std::uint8_t* low = nullptr;      // a flat cell's `low` bits (bit d: neighbour d drains at its elevation)
  std::uint32_t* towards = nullptr; // BFS distances (kFlatUnreached: none yet)
  std::uint32_t* away = nullptr;
  std::uint32_t* top = nullptr;     // at a flat's root: its largest away
  std::uint64_t* parent = nullptr;  // union-find over the flat cells; kNoFlatParent elsewhere
  TERRAZO_HD std::uint64_t cells() const { return width * height; }
  // Neighbour d (kD8Steps order) of cell (x, y) in *n; false off the raster.
  TERRAZO_HD bool neighbour(std::uint64_t x, std::uint64_t y, int d, std::uint64_t* n) const {
    const std::int64_t nx = static_cast<std::int64_t>(x) + d8_dx(d), ny = static_cast<std::int64_t>(y) + d8_dy(d);
    if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(width) || ny >= static_cast<std::int64_t>(height)) return false;
    *n = static_cast<std::uint64_t>(ny) * width + static_cast<std::uint64_t>(nx);
    return true;
  }
};

struct FlowdirRules {
  bool edge_outlets = true, nodata_outlets = true;
};

// What the per-cell steps count.
struct FlowdirCount {
  std::uint64_t valid = 0, flat = 0, outlet = 0;           // step 1
  std::uint64_t flats = 0, undrained_flats = 0, undrained_cells = 0, defects = 0;  // step 6
  TERRAZO_HD void add(const FlowdirCount& o) {
    valid += o.valid;
    flat += o.flat;
    outlet += o.outlet;
    flats += o.flats;
    undrained_flats += o.undrained_flats;
    undrained_cells += o.undrained_cells;
    defects += o.defects;
  }
};

// Where both twins' solve ends: the summed counts of steps 1 and 6 into `stats`; a drained flat cell
// with no lower mask throws (a defect).
inline void flowdir_record_counts(const FlowdirCount& c, ResidentFlowdirStats& stats) {
  if (c.defects) throw Error("resident flowdir: a drained flat cell with no lower mask (a defect)");
  stats.valid_cells = c.valid;
  stats.flat_cells = c.flat;
  stats.outlet_cells = c.outlet;
  stats.flats = c.flats;
  stats.undrained_flats = c.undrained_flats;
  stats.undrained_cells = c.undrained_cells;
}

// Host/device atomics on the union-find and the flats' maxima (relaxed on the host). The union-find's
// loads and stores while other threads hook and halve: any parent seen is an ancestor, so their order
// does not matter, but each load must read memory (volatile on the device: a retried hook sees the
// parent that foiled it).
TERRAZO_HD std::uint64_t flowdir_load(const std::uint64_t* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile std::uint64_t*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}
TERRAZO_HD void flowdir_store(std::uint64_t* p, std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  *static_cast<volatile std::uint64_t*>(p) = v;
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}
TERRAZO_HD bool flowdir_cas(std::uint64_t* p, std::uint64_t expected, std::uint64_t desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(expected),
                   static_cast<unsigned long long>(desired)) == expected;
#else
  return __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}
TERRAZO_HD void flowdir_atomic_max(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicMax(reinterpret_cast<unsigned*>(p), static_cast<unsigned>(v));
#else
  std::uint32_t now = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v > now && !__atomic_compare_exchange_n(p, &now, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

// The drop z(c) - z(n) and the slope (times 1/sqrt 2 for a diagonal, odd d), each correctly rounded
// (no fused multiply-add), as d8_tile_cpu.cpp computes them.
TERRAZO_HD double flowdir_slope(double here, double there, int d, double* drop) {
  constexpr double kInvSqrt2 = 0.70710678118654752440;
#if defined(__CUDA_ARCH__)
  *drop = __dsub_rn(here, there);
  return (d & 1) ? __dmul_rn(*drop, kInvSqrt2) : *drop;
#else
  *drop = here - there;
  return (d & 1) ? *drop * kInvSqrt2 : *drop;
#endif
}

// Step 1 at cell i: its code (the steepest descent, 0 at an outlet with none, 255 at nodata; a flat
// cell's 0 until step 6) and class; counted.
TERRAZO_HD FlowdirCount flowdir_classify(const FlowdirCells& c, const FlowdirRules& r, std::uint64_t i) {
  FlowdirCount count;
  const double here = c.elev[i];
  if (here != here) {
    c.code[i] = kD8Nodata;
    c.kind[i] = 0;
    return count;
  }
  const std::uint64_t x = i % c.width, y = i / c.width;
  bool outlet = r.edge_outlets && (x == 0 || y == 0 || x + 1 == c.width || y + 1 == c.height);
  double best = 0;
  int best_d = -1;
  for (int d = 0; d < 8; ++d) {
    std::uint64_t n;
    if (!c.neighbour(x, y, d, &n)) continue;
    const double there = c.elev[n];
    if (there != there) {
      outlet = outlet || r.nodata_outlets;
      continue;
    }
    double drop;
    const double slope = flowdir_slope(here, there, d, &drop);
    if (drop > 0 && (best_d < 0 || slope > best)) {
      best = slope;
      best_d = d;
    }
  }
  const bool flat = best_d < 0 && !outlet;
  c.code[i] = best_d >= 0 ? static_cast<std::uint8_t>(1u << best_d) : kD8NoFlow;
  c.kind[i] = flat ? kDirValid | kDirFlat : kDirValid;
  count.valid = 1;
  count.flat = flat;
  count.outlet = best_d < 0 && outlet;
  return count;
}

// Step 2 at cell i, after step 1 everywhere: a flat cell's `low` bits (valid neighbours that are not
// flat, of its elevation) and `high` bit, its distances' seeds and its parent; other cells cleared.
TERRAZO_HD void flowdir_seed(const FlowdirCells& c, std::uint64_t i) {
  c.top[i] = 0;
  if (!(c.kind[i] & kDirFlat)) {
    c.low[i] = 0;
    c.towards[i] = c.away[i] = kFlatUnreached;
    c.parent[i] = kNoFlatParent;
    return;
  }
  const std::uint64_t x = i % c.width, y = i / c.width;
  const double here = c.elev[i];
  std::uint8_t low = 0;
  bool high = false;
  for (int d = 0; d < 8; ++d) {
    std::uint64_t n;
    if (!c.neighbour(x, y, d, &n)) continue;
    const std::uint8_t k = c.kind[n];
    if ((k & kDirValid) && !(k & kDirFlat) && c.elev[n] == here) low = static_cast<std::uint8_t>(low | (1u << d));
    if ((k & kDirValid) && c.elev[n] > here) high = true;
  }
  c.low[i] = low;
  if (high) c.kind[i] = static_cast<std::uint8_t>(c.kind[i] | kDirHigh);
  c.towards[i] = low ? 1 : kFlatUnreached;
  c.away[i] = high ? 1 : kFlatUnreached;
  c.parent[i] = i;
}

// The root of cell i's tree, halving the path on the way (any parent seen is an ancestor).
TERRAZO_HD std::uint64_t flowdir_find(const FlowdirCells& c, std::uint64_t i) {
  std::uint64_t p = flowdir_load(&c.parent[i]);
  while (p != i) {
    const std::uint64_t pp = flowdir_load(&c.parent[p]);
    if (pp != p) flowdir_store(&c.parent[i], pp);
    i = p;
    p = pp;
  }
  return i;
}

// Step 3a at cell i: a flat cell united with its flat neighbours E, SE, S and SW (the larger root hooked
// under the smaller, so each flat's root ends as its least cell).
TERRAZO_HD void flowdir_unite(const FlowdirCells& c, std::uint64_t i) {
  if (!(c.kind[i] & kDirFlat)) return;
  const std::uint64_t x = i % c.width, y = i / c.width;
  for (int d = 0; d < 4; ++d) {
    std::uint64_t n;
    if (!c.neighbour(x, y, d, &n) || !(c.kind[n] & kDirFlat)) continue;
    std::uint64_t a = i, b = n;
    for (;;) {
      a = flowdir_find(c, a);
      b = flowdir_find(c, b);
      if (a == b) break;
      if (a < b) {
        const std::uint64_t s = a;
        a = b;
        b = s;
      }
      if (flowdir_cas(&c.parent[a], a, b)) break;
    }
  }
}

// Step 3b at cell i: its parent is its root.
TERRAZO_HD void flowdir_compress(const FlowdirCells& c, std::uint64_t i) {
  if (c.kind[i] & kDirFlat) flowdir_store(&c.parent[i], flowdir_find(c, i));
}

// Step 4's tiles: g x g cells, tiles_x per row of tiles.
struct FlowdirTiles {
  std::uint64_t width = 0, height = 0;
  std::uint32_t g = 64;
  TERRAZO_HD std::uint64_t tiles_x() const { return (width + g - 1) / g; }
  TERRAZO_HD std::uint64_t tiles_y() const { return (height + g - 1) / g; }
  TERRAZO_HD std::uint64_t tiles() const { return tiles_x() * tiles_y(); }
  TERRAZO_HD std::uint32_t side() const { return g + 2; }  // the window's
  // Window cell k ((g+2)^2 row-major, the tile at (1, 1)..(g, g)) of `tile`: its raster cell, or
  // kNoFlatParent off the raster.
  TERRAZO_HD std::uint64_t window_cell(std::uint64_t tile, std::uint32_t k) const {
    const std::int64_t x = static_cast<std::int64_t>((tile % tiles_x()) * g) + static_cast<std::int64_t>(k % side()) - 1;
    const std::int64_t y = static_cast<std::int64_t>((tile / tiles_x()) * g) + static_cast<std::int64_t>(k / side()) - 1;
    if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(width) || y >= static_cast<std::int64_t>(height)) return kNoFlatParent;
    return static_cast<std::uint64_t>(y) * width + static_cast<std::uint64_t>(x);
  }
  // The window index of tile cell (lx, ly).
  TERRAZO_HD std::uint32_t window_index(std::uint32_t lx, std::uint32_t ly) const { return (ly + 1) * side() + lx + 1; }
  // The tile next to `tile` in direction d, or kNoFlatParent past the raster.
  TERRAZO_HD std::uint64_t next_tile(std::uint64_t tile, int d) const {
    const std::int64_t tx = static_cast<std::int64_t>(tile % tiles_x()) + d8_dx(d);
    const std::int64_t ty = static_cast<std::int64_t>(tile / tiles_x()) + d8_dy(d);
    if (tx < 0 || ty < 0 || tx >= static_cast<std::int64_t>(tiles_x()) || ty >= static_cast<std::int64_t>(tiles_y())) return kNoFlatParent;
    return static_cast<std::uint64_t>(ty) * tiles_x() + static_cast<std::uint64_t>(tx);
  }
};

// Step 4, window cell k of `tile`: its flat flag and distances as stored (off the raster: not flat).
TERRAZO_HD void flowdir_window_load(const FlowdirCells& c, const FlowdirTiles& t, std::uint64_t tile, std::uint32_t k,
                                    std::uint8_t* flat, std::uint32_t* towards, std::uint32_t* away) {
  const std::uint64_t n = t.window_cell(tile, k);
  if (n == kNoFlatParent || !(c.kind[n] & kDirFlat)) {
    *flat = 0;
    *towards = *away = kFlatUnreached;
    return;
  }
  *flat = 1;
  *towards = c.towards[n];
  *away = c.away[n];
}

// Step 4, one window cell i (inside the window's ring, side s): each distance lowered to 1 + its least
// flat neighbour's; whether either lowered.
TERRAZO_HD bool flowdir_relax(const std::uint8_t* flat, std::uint32_t* towards, std::uint32_t* away, std::uint32_t s,
                              std::uint32_t i) {
  if (!flat[i]) return false;
  std::uint32_t t = towards[i], a = away[i];
  const std::uint32_t own_t = t, own_a = a;
  for (int d = 0; d < 8; ++d) {
    const std::uint32_t j = static_cast<std::uint32_t>(static_cast<std::int64_t>(i) + d8_dy(d) * static_cast<std::int64_t>(s) + d8_dx(d));
    if (!flat[j]) continue;
    const std::uint32_t tj = towards[j], aj = away[j];
    if (tj != kFlatUnreached && tj + 1 < t) t = tj + 1;
    if (aj != kFlatUnreached && aj + 1 < a) a = aj + 1;
  }
  if (t == own_t && a == own_a) return false;
  towards[i] = t;
  away[i] = a;
  return true;
}

// Step 4: the directions (bit d) whose step from tile cell (lx, ly) leaves a g x g tile.
TERRAZO_HD unsigned flowdir_leaving(std::uint32_t lx, std::uint32_t ly, std::uint32_t g) {
  unsigned bits = 0;
  for (int d = 0; d < 8; ++d) {
    const std::int64_t x = static_cast<std::int64_t>(lx) + d8_dx(d), y = static_cast<std::int64_t>(ly) + d8_dy(d);
    if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(g) || y >= static_cast<std::int64_t>(g)) bits |= 1u << d;
  }
  return bits;
}

// A flat cell's away distance, unreached counting 0 (a flat with no higher neighbour).
TERRAZO_HD std::uint32_t flowdir_away(const FlowdirCells& c, std::uint64_t i) {
  return c.away[i] == kFlatUnreached ? 0 : c.away[i];
}

// Step 5 at cell i: its flat's largest away raised to its own.
TERRAZO_HD void flowdir_raise_top(const FlowdirCells& c, std::uint64_t i) {
  if (c.kind[i] & kDirFlat) flowdir_atomic_max(&c.top[c.parent[i]], flowdir_away(c, i));
}

// Step 6 at cell i: a flat cell's code (flat_gradient.h's rule) and what it counts: a flat at its root,
// an undrained cell, a defect when a drained cell has no lower mask (never, by the gradient's design).
TERRAZO_HD FlowdirCount flowdir_flat_code(const FlowdirCells& c, std::uint64_t i) {
  FlowdirCount count;
  if (!(c.kind[i] & kDirFlat)) return count;
  const std::uint64_t root = c.parent[i];
  const bool drained = c.towards[i] != kFlatUnreached;
  count.flats = root == i;
  count.undrained_flats = root == i && !drained;
  count.undrained_cells = !drained;
  if (!drained) return count;  // code 0 from step 1
  const std::uint64_t top = c.top[root];
  const auto mask = [&](std::uint64_t n) { return 2 * std::uint64_t{c.towards[n]} + (top - flowdir_away(c, n)); };
  std::uint64_t best = mask(i);
  int best_d = -1;
  const std::uint64_t x = i % c.width, y = i / c.width;
  for (int d = 0; d < 8; ++d) {
    std::uint64_t n;
    if (!c.neighbour(x, y, d, &n)) continue;
    const bool low = (c.low[i] >> d) & 1u;
    if (!low && !(c.kind[n] & kDirFlat)) continue;
    const std::uint64_t value = low ? 0 : mask(n);
    if (value < best) {
      best = value;
      best_d = d;
    }
  }
  if (best_d < 0) {
    count.defects = 1;
    return count;
  }
  c.code[i] = static_cast<std::uint8_t>(1u << best_d);
  return count;
}

}  // namespace terrazo
