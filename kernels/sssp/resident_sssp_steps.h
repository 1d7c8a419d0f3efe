// kernels/sssp/resident_sssp_steps.h: the steps of a resident SSSP round (kernels/sssp/resident_sssp.h)
// that the CUDA solver and its CPU twin share, as host/device functions, so both read the same
// windows and activate the same tiles.
#pragma once
#include <cstdint>
#include <limits>

#include "kernels/common/types.h"
#include "kernels/common/edge_weight.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/sssp/knight.h"
#include "kernels/sssp/resident_sssp.h"

namespace terrazo {

TERRAZO_HD double resident_nodata() {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(0x7ff8000000000000LL);
#else
  return std::numeric_limits<double>::quiet_NaN();
#endif
}

// The edges the rounds weigh across tile borders: the run's weights, neighbourhood and cost bound,
// and the two knight's move lengths (from the host's knight_length, so both twins and the block
// solvers weigh the same doubles; unused without knight's moves).
struct ResidentEdges {
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;
  double knight_h = 0, knight_v = 0;  // |dx| = 2 and |dy| = 2 (kernels/sssp/knight.h)
};

inline ResidentEdges resident_edges(const WeightParams& params, Connectivity connectivity, PathLength max_cost) {
  ResidentEdges e;
  e.params = params;
  e.connectivity = connectivity;
  e.max_cost = max_cost;
  if (connectivity == Connectivity::Sixteen) {  // uniform step lengths (engine/commands/sssp.cpp refuses a table)
    e.knight_h = knight_length(params.steps, 8);
    e.knight_v = knight_length(params.steps, 9);
  }
  return e;
}

// Window cell i of `tile` ((g+2h)^2 row-major, h = l.halo, the tile at (h, h)..(g+h-1, g+h-1)):
// its value and distance in the resident arrays, or nodata and unreached outside the raster.
TERRAZO_HD void resident_window_cell(const ResidentLayout& l, std::uint64_t tile, std::uint32_t i, const double* values,
                                     const PathLength* dist, double* value_out, PathLength* dist_out) {
  const std::uint32_t s = l.window_side();
  const std::int64_t h = static_cast<std::int64_t>(l.halo);
  const std::int64_t x = static_cast<std::int64_t>((tile % l.tiles_x) * l.g) + static_cast<std::int64_t>(i % s) - h;
  const std::int64_t y = static_cast<std::int64_t>((tile / l.tiles_x) * l.g) + static_cast<std::int64_t>(i / s) - h;
  if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(l.width) || y >= static_cast<std::int64_t>(l.height)) {
    *value_out = resident_nodata();
    *dist_out = kUnreached;
    return;
  }
  const std::uint64_t k = l.index(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
  *value_out = values[k];
  *dist_out = dist[k];
}

// Step 3 for border-band cell (lx, ly) of `tile` (its distance just decreased): the tile of the
// first neighbour in another tile whose distance dist(u) + w(u, v) would improve (that candidate in
// *candidate_out: the tile's key is the smallest such), or ~0 when none.
// Neighbours are tried in direction order (0..7, then the knight's moves 8..15 with 16 neighbours,
// kernels/sssp/knight.h); the caller repeats from the next direction (start) to activate every
// tile (a corner cell touches three other tiles).
TERRAZO_HD std::uint64_t resident_improved_neighbour(const ResidentLayout& l, std::uint64_t tile, std::uint32_t lx,
                                                     std::uint32_t ly, int start, int* found_dir, const ResidentEdges& e,
                                                     const double* values, const PathLength* dist,
                                                     PathLength* candidate_out, bool* overflow) {
  const std::uint64_t ux = (tile % l.tiles_x) * l.g + lx, uy = (tile / l.tiles_x) * l.g + ly;
  if (ux >= l.width || uy >= l.height) return ~std::uint64_t{0};
  const std::uint64_t u = l.index(ux, uy);
  const PathLength du = dist[u];
  if (du == kUnreached || du > e.max_cost) return ~std::uint64_t{0};
  const int directions = direction_count(e.connectivity);
  for (int d = start; d < directions; ++d) {
    if (!step_used(d, e.connectivity)) continue;
    const int dx = step_dx16(d), dy = step_dy16(d);
    const std::int64_t lvx = static_cast<std::int64_t>(lx) + dx, lvy = static_cast<std::int64_t>(ly) + dy;
    if (lvx >= 0 && lvy >= 0 && lvx < static_cast<std::int64_t>(l.g) && lvy < static_cast<std::int64_t>(l.g)) continue;
    const std::int64_t vx = static_cast<std::int64_t>(ux) + dx, vy = static_cast<std::int64_t>(uy) + dy;
    if (vx < 0 || vy < 0 || vx >= static_cast<std::int64_t>(l.width) || vy >= static_cast<std::int64_t>(l.height)) continue;
    const std::uint64_t v = l.index(static_cast<std::uint64_t>(vx), static_cast<std::uint64_t>(vy));
    Weight w;
    if (d < 8) {
      w = step_weight(e.params, values[u], values[v], d, static_cast<std::int64_t>(uy), overflow);
    } else {  // the crossed cells lie in the bounding box of u and v, so in the raster
      int ax, ay, bx, by;
      knight_crossed(d, &ax, &ay, &bx, &by);
      const double ca = values[l.index(static_cast<std::uint64_t>(static_cast<std::int64_t>(ux) + ax),
                                       static_cast<std::uint64_t>(static_cast<std::int64_t>(uy) + ay))];
      const double cb = values[l.index(static_cast<std::uint64_t>(static_cast<std::int64_t>(ux) + bx),
                                       static_cast<std::uint64_t>(static_cast<std::int64_t>(uy) + by))];
      w = knight_weight(e.params, values[u], ca, cb, values[v], (dx == 2 || dx == -2) ? e.knight_h : e.knight_v, overflow);
    }
    if (w == kNoEdge) continue;
    const PathLength candidate = du + w;
    if (candidate < du || candidate > e.max_cost) continue;
    if (candidate < dist[v]) {
      *found_dir = d;
      *candidate_out = candidate;
      return (static_cast<std::uint64_t>(vy) / l.g) * l.tiles_x + static_cast<std::uint64_t>(vx) / l.g;
    }
  }
  return ~std::uint64_t{0};
}

// Which pending tiles a round solves (near-far at tile granularity, [Davidson2014]-style): those
// whose key (the smallest distance pushed into them since their last solve) is at most
// min key + delta. delta adapts so that a round holds about `target` tiles: doubled while rounds
// are smaller than target / 2 and more tiles wait, halved when a round exceeds 2 * target. Any
// schedule gives the same distances (the invariant of resident_sssp.h holds for any subset of the
// pending tiles); this one keeps the solves near distance order, so that few tiles are solved
// before their final distances arrive, while every round stays wide enough to fill the device.
struct NearFarSchedule {
  std::uint64_t target = 1;
  PathLength delta = 1;
  PathLength threshold(PathLength min_key) const {
    return min_key > kUnreached - 1 - delta ? kUnreached - 1 : min_key + delta;
  }
  void adapt(std::uint64_t selected) {
    if (selected * 2 < target && delta < (PathLength{1} << 62)) delta *= 2;
    else if (selected > 2 * target && delta > 1) delta /= 2;
  }
};

}  // namespace terrazo
