// kernels/sssp/resident_sssp_steps.h: the steps of a resident SSSP round (kernels/sssp/resident_sssp.h)
// that the CUDA solver and its CPU twin share, as host/device functions, so both read the same
// windows and activate the same tiles.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/types.h"
#include "kernels/common/edge_weight.h"
#include "kernels/common/resident_nodata.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/common/tile_pager.h"
#include "kernels/sssp/knight.h"
#include "kernels/sssp/resident_sssp.h"

namespace terrazo {

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

// Where a round's steps find cells: global (x, y) -> value and distance, and a solved tile's
// interior distances stored back. Two layouts, one contract for the steps below:
//   ResidentCells: every tile's cells in two arrays (ResidentLayout::index);
//   PagedCells:    the interiors of the tiles in device slots (slot_of[tile], kNoSlot when out), and
//                  every tile's border band (ResidentLayout::border_cell order) in two ring arrays.
//                  A cell is read from its tile's slot when that tile is in, else from its band: the
//                  steps read only the solved tile's own cells (in a slot) and their neighbours' cells
//                  within `halo` of a tile edge (always in a band).
struct ResidentCells {
  ResidentLayout l;
  double* values = nullptr;
  PathLength* dist = nullptr;
  TERRAZO_HD double value(std::uint64_t x, std::uint64_t y) const { return values[l.index(x, y)]; }
  TERRAZO_HD PathLength distance(std::uint64_t x, std::uint64_t y) const { return dist[l.index(x, y)]; }
  TERRAZO_HD void store(std::uint64_t tile, std::uint32_t c, PathLength d) const { dist[tile * l.tile_cells() + c] = d; }
};

struct PagedCells {
  ResidentLayout l;
  const std::uint32_t* slot_of = nullptr;  // per tile
  double* slot_values = nullptr;           // slot * g^2 + local cell
  PathLength* slot_dist = nullptr;
  double* ring_values = nullptr;           // tile * border_count() + border position
  PathLength* ring_dist = nullptr;
  TERRAZO_HD std::uint64_t where(std::uint64_t x, std::uint64_t y, bool* in_slot) const {
    const std::uint64_t tile = (y / l.g) * l.tiles_x + x / l.g;
    const std::uint32_t lx = static_cast<std::uint32_t>(x % l.g), ly = static_cast<std::uint32_t>(y % l.g);
    const std::uint32_t slot = slot_of[tile];
    *in_slot = slot != kNoSlot;
    return *in_slot ? slot * l.tile_cells() + ly * l.g + lx : tile * l.border_count() + l.band_index(lx, ly);
  }
  TERRAZO_HD double value(std::uint64_t x, std::uint64_t y) const {
    bool in_slot;
    const std::uint64_t k = where(x, y, &in_slot);
    return in_slot ? slot_values[k] : ring_values[k];
  }
  TERRAZO_HD PathLength distance(std::uint64_t x, std::uint64_t y) const {
    bool in_slot;
    const std::uint64_t k = where(x, y, &in_slot);
    return in_slot ? slot_dist[k] : ring_dist[k];
  }
  // `tile` is in a slot; a band cell's ring copy is kept equal.
  TERRAZO_HD void store(std::uint64_t tile, std::uint32_t c, PathLength d) const {
    const std::uint32_t lx = c % l.g, ly = c / l.g;
    slot_dist[static_cast<std::uint64_t>(slot_of[tile]) * l.tile_cells() + c] = d;
    if (ly < l.halo || ly >= l.g - l.halo || lx < l.halo || lx >= l.g - l.halo)
      ring_dist[tile * l.border_count() + l.band_index(lx, ly)] = d;
  }
};

// Window cell i of `tile` ((g+2h)^2 row-major, h = l.halo, the tile at (h, h)..(g+h-1, g+h-1)):
// its value and distance, or nodata and unreached outside the raster.
template <class Cells>
TERRAZO_HD void resident_window_cell(const Cells& cells, std::uint64_t tile, std::uint32_t i, double* value_out,
                                     PathLength* dist_out) {
  const ResidentLayout& l = cells.l;
  const std::uint32_t s = l.window_side();
  const std::int64_t h = static_cast<std::int64_t>(l.halo);
  const std::int64_t x = static_cast<std::int64_t>((tile % l.tiles_x) * l.g) + static_cast<std::int64_t>(i % s) - h;
  const std::int64_t y = static_cast<std::int64_t>((tile / l.tiles_x) * l.g) + static_cast<std::int64_t>(i / s) - h;
  if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(l.width) || y >= static_cast<std::int64_t>(l.height)) {
    *value_out = resident_nodata();
    *dist_out = kUnreached;
    return;
  }
  *value_out = cells.value(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
  *dist_out = cells.distance(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
}

// Step 3 for border-band cell (lx, ly) of `tile` (its distance just decreased): the tile of the
// first neighbour in another tile whose distance dist(u) + w(u, v) would improve (that candidate in
// *candidate_out: the tile's key is the smallest such), or ~0 when none.
// Neighbours are tried in direction order (0..7, then the knight's moves 8..15 with 16 neighbours,
// kernels/sssp/knight.h); the caller repeats from the next direction (start) to activate every
// tile (a corner cell touches three other tiles).
template <class Cells>
TERRAZO_HD std::uint64_t resident_improved_neighbour(const Cells& cells, std::uint64_t tile, std::uint32_t lx,
                                                     std::uint32_t ly, int start, int* found_dir, const ResidentEdges& e,
                                                     PathLength* candidate_out, bool* overflow) {
  const ResidentLayout& l = cells.l;
  const std::uint64_t ux = (tile % l.tiles_x) * l.g + lx, uy = (tile / l.tiles_x) * l.g + ly;
  if (ux >= l.width || uy >= l.height) return ~std::uint64_t{0};
  const PathLength du = cells.distance(ux, uy);
  if (du == kUnreached || du > e.max_cost) return ~std::uint64_t{0};
  const double value_u = cells.value(ux, uy);
  const int directions = direction_count(e.connectivity);
  for (int d = start; d < directions; ++d) {
    if (!step_used(d, e.connectivity)) continue;
    const int dx = step_dx16(d), dy = step_dy16(d);
    const std::int64_t lvx = static_cast<std::int64_t>(lx) + dx, lvy = static_cast<std::int64_t>(ly) + dy;
    if (lvx >= 0 && lvy >= 0 && lvx < static_cast<std::int64_t>(l.g) && lvy < static_cast<std::int64_t>(l.g)) continue;
    const std::int64_t vx = static_cast<std::int64_t>(ux) + dx, vy = static_cast<std::int64_t>(uy) + dy;
    if (vx < 0 || vy < 0 || vx >= static_cast<std::int64_t>(l.width) || vy >= static_cast<std::int64_t>(l.height)) continue;
    const std::uint64_t cvx = static_cast<std::uint64_t>(vx), cvy = static_cast<std::uint64_t>(vy);
    Weight w;
    if (d < 8) {
      w = step_weight(e.params, value_u, cells.value(cvx, cvy), d, static_cast<std::int64_t>(uy), overflow);
    } else {  // the crossed cells lie in the bounding box of u and v, so in the raster
      int ax, ay, bx, by;
      knight_crossed(d, &ax, &ay, &bx, &by);
      const double ca = cells.value(static_cast<std::uint64_t>(static_cast<std::int64_t>(ux) + ax),
                                    static_cast<std::uint64_t>(static_cast<std::int64_t>(uy) + ay));
      const double cb = cells.value(static_cast<std::uint64_t>(static_cast<std::int64_t>(ux) + bx),
                                    static_cast<std::uint64_t>(static_cast<std::int64_t>(uy) + by));
      w = knight_weight(e.params, value_u, ca, cb, cells.value(cvx, cvy), (dx == 2 || dx == -2) ? e.knight_h : e.knight_v,
                        overflow);
    }
    if (w == kNoEdge) continue;
    const PathLength candidate = du + w;
    if (candidate < du || candidate > e.max_cost) continue;
    if (candidate < cells.distance(cvx, cvy)) {
      *found_dir = d;
      *candidate_out = candidate;
      return (cvy / l.g) * l.tiles_x + cvx / l.g;
    }
  }
  return ~std::uint64_t{0};
}

// Step 3's walk over a solved tile's changed border band, for the resident solvers' twins (this
// file's and kernels/flow/resident_fill_steps.h's): the band positions first, first + stride, ...
// (a block's threads stride it on the GPU) whose cell changed, and for each the neighbouring tiles
// next(lx, ly, start, &dir, &candidate) names one at a time from direction `start` on (~0: none
// left), each handed to lower(tile, candidate).
template <class Next, class Lower>
TERRAZO_HD void activate_band(const ResidentLayout& l, const std::uint8_t* changed, std::uint32_t first,
                              std::uint32_t stride, int directions, Next next, Lower lower) {
  for (std::uint32_t b = first; b < l.border_count(); b += stride) {
    std::uint32_t lx, ly;
    l.border_cell(b, &lx, &ly);
    if (!changed[ly * l.g + lx]) continue;
    for (int start = 0, dir = 0; start < directions; start = dir + 1) {
      PathLength candidate = kUnreached;
      const std::uint64_t n = next(lx, ly, start, &dir, &candidate);
      if (n == ~std::uint64_t{0}) break;
      lower(n, candidate);
    }
  }
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
  // A CPU twin's step 0 over the tiles' keys (kUnreached: not pending): the tiles whose key is at
  // most the threshold of the smallest, in ascending order into *active, their keys cleared, the
  // schedule adapted to their count; false when no tile is pending.
  bool select(std::vector<PathLength>& key, std::vector<std::uint64_t>* active) {
    active->clear();
    const PathLength min_key = *std::min_element(key.begin(), key.end());
    if (min_key == kUnreached) return false;
    const PathLength limit = threshold(min_key);
    for (std::uint64_t k = 0; k < key.size(); ++k)
      if (key[k] <= limit) {
        key[k] = kUnreached;
        active->push_back(k);
      }
    adapt(active->size());
    return true;
  }
};

}  // namespace terrazo
