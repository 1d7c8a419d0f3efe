// kernels/flow/resident_fill_steps.h: the steps of the resident fill (kernels/flow/resident_fill.h) that
// the CUDA solver and its CPU twin share, as host/device functions, so both start, sweep, activate
// and write alike.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/common/edge_weight.h"
#include "kernels/common/resident_nodata.h"
#include "kernels/common/types.h"
#include "kernels/flow/resident_fill.h"
#include "kernels/sssp/knight.h"
#include "kernels/sssp/resident_sssp.h"
#include "kernels/sssp/resident_sssp_steps.h"

namespace terrazo {

// Levels and elevations as order-preserving keys: x < y as doubles <=> fill_key(x) < fill_key(y)
// (and -0 before +0). No double maps to 0 or to ~0: kNodataKey is a nodata cell's elevation, kNoLevel
// an unreached level (above every elevation, +inf's key included) and a tile that is not pending
// (kUnreached, as NearFarSchedule takes it).
constexpr std::uint64_t kNodataKey = 0;
constexpr std::uint64_t kNoLevel = kUnreached;

TERRAZO_HD std::uint64_t fill_key(double value) {
  if (value != value) return kNodataKey;
#if defined(__CUDA_ARCH__)
  const auto bits = static_cast<std::uint64_t>(__double_as_longlong(value));
#else
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
#endif
  return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
}

TERRAZO_HD double fill_value(std::uint64_t key) {
  const std::uint64_t bits = (key >> 63) ? key & ~(std::uint64_t{1} << 63) : ~key;
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

TERRAZO_HD std::uint64_t max_key(std::uint64_t a, std::uint64_t b) { return a > b ? a : b; }
TERRAZO_HD std::uint64_t min_key(std::uint64_t a, std::uint64_t b) { return a < b ? a : b; }

// Every tile's cells in two arrays (ResidentLayout::index): the elevations' keys and the levels.
struct FillCells {
  ResidentLayout l;
  std::uint64_t* elev = nullptr;
  std::uint64_t* level = nullptr;
  TERRAZO_HD std::uint64_t elevation_at(std::uint64_t x, std::uint64_t y) const { return elev[l.index(x, y)]; }
  TERRAZO_HD std::uint64_t level_at(std::uint64_t x, std::uint64_t y) const { return level[l.index(x, y)]; }
};

// Padded cell k (tile k / g^2, local cell k % g^2) as global (x, y); false past the raster's edge.
TERRAZO_HD bool fill_cell_xy(const ResidentLayout& l, std::uint64_t k, std::uint64_t* x, std::uint64_t* y) {
  const std::uint64_t tile = k / l.tile_cells(), c = k % l.tile_cells();
  *x = (tile % l.tiles_x) * l.g + c % l.g;
  *y = (tile / l.tiles_x) * l.g + c / l.g;
  return *x < l.width && *y < l.height;
}

// Start: padded cell k's level: its elevation at an outlet, else kNoLevel (nodata and padding too).
TERRAZO_HD std::uint64_t fill_start_level(const FillCells& cells, const FillRules& r, std::uint64_t k) {
  std::uint64_t x, y;
  if (!fill_cell_xy(cells.l, k, &x, &y)) return kNoLevel;
  const std::uint64_t e = cells.elev[k];
  if (e == kNodataKey) return kNoLevel;
  const ResidentLayout& l = cells.l;
  if (r.edge_outlets && (x == 0 || y == 0 || x + 1 == l.width || y + 1 == l.height)) return e;
  if (!r.nodata_outlets) return kNoLevel;
  for (int d = 0; d < 8; ++d) {
    if (!step_used(d, r.connectivity)) continue;
    const std::int64_t nx = static_cast<std::int64_t>(x) + step_dx16(d), ny = static_cast<std::int64_t>(y) + step_dy16(d);
    if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(l.width) || ny >= static_cast<std::int64_t>(l.height)) continue;
    if (cells.elevation_at(static_cast<std::uint64_t>(nx), static_cast<std::uint64_t>(ny)) == kNodataKey) return e;
  }
  return kNoLevel;
}

// Start, once the levels are set: padded cell k's one-step candidate max(elev, least neighbour
// level) when it lowers the cell (its tile's key takes the least), else kNoLevel.
TERRAZO_HD std::uint64_t fill_start_candidate(const FillCells& cells, const FillRules& r, std::uint64_t k) {
  std::uint64_t x, y;
  if (!fill_cell_xy(cells.l, k, &x, &y) || cells.elev[k] == kNodataKey) return kNoLevel;
  const ResidentLayout& l = cells.l;
  std::uint64_t least = kNoLevel;
  for (int d = 0; d < 8; ++d) {
    if (!step_used(d, r.connectivity)) continue;
    const std::int64_t nx = static_cast<std::int64_t>(x) + step_dx16(d), ny = static_cast<std::int64_t>(y) + step_dy16(d);
    if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(l.width) || ny >= static_cast<std::int64_t>(l.height)) continue;
    least = min_key(least, cells.level_at(static_cast<std::uint64_t>(nx), static_cast<std::uint64_t>(ny)));
  }
  if (least == kNoLevel) return kNoLevel;
  const std::uint64_t candidate = max_key(cells.elev[k], least);
  return candidate < cells.level[k] ? candidate : kNoLevel;
}

// Window cell i of `tile` ((g+2)^2 row-major, the tile at (1, 1)..(g, g)): its elevation's key and
// level, or nodata and kNoLevel outside the raster.
TERRAZO_HD void fill_window_cell(const FillCells& cells, std::uint64_t tile, std::uint32_t i, std::uint64_t* elev_out,
                                 std::uint64_t* level_out) {
  const ResidentLayout& l = cells.l;
  const std::uint32_t s = l.window_side();
  const std::int64_t x = static_cast<std::int64_t>((tile % l.tiles_x) * l.g) + static_cast<std::int64_t>(i % s) - 1;
  const std::int64_t y = static_cast<std::int64_t>((tile / l.tiles_x) * l.g) + static_cast<std::int64_t>(i / s) - 1;
  if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(l.width) || y >= static_cast<std::int64_t>(l.height)) {
    *elev_out = kNodataKey;
    *level_out = kNoLevel;
    return;
  }
  const std::uint64_t k = l.index(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
  *elev_out = cells.elev[k];
  *level_out = cells.level[k];
}

// Step 1, one cell: window cell i (not on the window's ring) relaxed against its neighbours in the
// window (side s): max(elev, least neighbour level) when that lowers it, else its level. Nodata stays.
TERRAZO_HD std::uint64_t fill_relax(const std::uint64_t* elev, const std::uint64_t* level, std::uint32_t s,
                                    std::uint32_t i, Connectivity connectivity) {
  const std::uint64_t own = level[i];
  if (elev[i] == kNodataKey) return own;
  const auto si = static_cast<std::int64_t>(s);
  std::uint64_t least = kNoLevel;
  for (int d = 0; d < 8; ++d)
    if (step_used(d, connectivity)) least = min_key(least, level[static_cast<std::int64_t>(i) + step_dy16(d) * si + step_dx16(d)]);
  const std::uint64_t candidate = max_key(elev[i], least);
  return candidate < own ? candidate : own;
}

// The window's interior cell of tile cell c (row-major in the g x g tile).
TERRAZO_HD std::uint32_t fill_window_index(std::uint32_t c, std::uint32_t g) { return (c / g + 1) * (g + 2) + c % g + 1; }

// Step 3 for lowered border-band cell (lx, ly) of `tile`: the tile of the first neighbour in another
// tile, in direction order from `start`, that its level lowers (the candidate in *candidate_out,
// the direction in *found_dir), or ~0 when none; the caller repeats from *found_dir + 1.
TERRAZO_HD std::uint64_t fill_improved_neighbour(const FillCells& cells, std::uint64_t tile, std::uint32_t lx,
                                                 std::uint32_t ly, int start, int* found_dir, Connectivity connectivity,
                                                 std::uint64_t* candidate_out) {
  const ResidentLayout& l = cells.l;
  const std::uint64_t ux = (tile % l.tiles_x) * l.g + lx, uy = (tile / l.tiles_x) * l.g + ly;
  if (ux >= l.width || uy >= l.height) return ~std::uint64_t{0};
  const std::uint64_t lu = cells.level_at(ux, uy);
  if (lu == kNoLevel) return ~std::uint64_t{0};
  for (int d = start; d < 8; ++d) {
    if (!step_used(d, connectivity)) continue;
    const int dx = step_dx16(d), dy = step_dy16(d);
    const std::int64_t lvx = static_cast<std::int64_t>(lx) + dx, lvy = static_cast<std::int64_t>(ly) + dy;
    if (lvx >= 0 && lvy >= 0 && lvx < static_cast<std::int64_t>(l.g) && lvy < static_cast<std::int64_t>(l.g)) continue;
    const std::int64_t vx = static_cast<std::int64_t>(ux) + dx, vy = static_cast<std::int64_t>(uy) + dy;
    if (vx < 0 || vy < 0 || vx >= static_cast<std::int64_t>(l.width) || vy >= static_cast<std::int64_t>(l.height)) continue;
    const std::uint64_t k = l.index(static_cast<std::uint64_t>(vx), static_cast<std::uint64_t>(vy));
    if (cells.elev[k] == kNodataKey) continue;
    const std::uint64_t candidate = max_key(cells.elev[k], lu);
    if (candidate < cells.level[k]) {
      *found_dir = d;
      *candidate_out = candidate;
      return (static_cast<std::uint64_t>(vy) / l.g) * l.tiles_x + static_cast<std::uint64_t>(vx) / l.g;
    }
  }
  return ~std::uint64_t{0};
}

// What a cell is in the output, for the counts.
enum class FillCellKind : std::uint8_t { Nodata, Kept, Raised, Closed };

// The output of a cell: its filled elevation (NaN at nodata and closed cells; a raised zero +0,
// any other kept or raised value its own bits) and its kind.
TERRAZO_HD double fill_output(std::uint64_t elev, std::uint64_t level, FillCellKind* kind) {
  if (elev == kNodataKey) {
    *kind = FillCellKind::Nodata;
    return resident_nodata();  // the quiet NaN std::nan("") is
  }
  if (level == kNoLevel) {
    *kind = FillCellKind::Closed;
    return resident_nodata();
  }
  const double own = fill_value(elev), filled = fill_value(level);
  if (filled > own) {
    *kind = FillCellKind::Raised;
    return filled == 0 ? 0.0 : filled;
  }
  *kind = FillCellKind::Kept;
  return own;
}

}  // namespace terrazo
