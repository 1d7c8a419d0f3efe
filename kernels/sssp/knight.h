// kernels/sssp/knight.h: the 16-neighbourhood of `sssp --connectivity 16` (GRASS r.cost -k).
//
// Source: docs/sssp.md "Knight's moves"; the weighting is GRASS r.cost's with -k [GRASS-r.cost].
// Directions 0..7 are the 8 neighbours of kernels/common/tile_geometry.h; 8..15 the knight's moves,
// also clockwise from east (y downwards):
//   8 (2, 1)   9 (1, 2)   10 (-1, 2)   11 (-2, 1)   12 (-2, -1)   13 (-1, -2)   14 (1, -2)   15 (2, -1)
// so opposite(d) = 8 + ((d - 8 + 4) & 7) for a knight's move, as (d + 4) & 7 for the others.
// A knight's move u -> v = u + (dx, dy) crosses two more cells, a and b:
//   |dx| == 2: a = u + (dx / 2, 0), b = u + (dx / 2, dy);   |dy| == 2: a = u + (0, dy / 2), b = u + (dx, dy / 2)
// (seen from v, a and b swap). The move exists only when u, a, b and v are all valid (GRASS: a null
// cost among the four makes the step's cost null). Its weight (symmetric, bit for bit):
//   friction : llround(((c(u) + c(v)) + (c(a) + c(b))) * 0.25 * L * scale)      GRASS r.cost -k
//   geometric: llround(L * scale)       unit: llround(scale)
// with L = sqrt((dx ew)^2 + (dy ns)^2) (cells: sqrt 5). Other models are refused with 16 neighbours
// (engine/commands/sssp.cpp), as is --distance geodesic.
// The halo of a tile window is two cells wide with 16 neighbours (halo_width), one cell otherwise.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/common/tile_geometry.h"

namespace terrazo {

// Connectivity::Sixteen (kernels/common/types.h) is sssp's only: the other commands refuse it when parsing.
// step_used covers all 16 directions; direction_used (kernels/common/tile_geometry.h) the first 8.

constexpr int kStepDx[16] = {1, 1, 0, -1, -1, -1, 0, 1, 2, 1, -1, -2, -2, -1, 1, 2};
constexpr int kStepDy[16] = {0, 1, 1, 1, 0, -1, -1, -1, 1, 2, 2, 1, -1, -2, -2, -1};

// The same tables as functions, for device code too: 3 bits per direction, offset by 2.
TERRAZO_HD int step_dx16(int dir) { return static_cast<int>((0x8c805c68929bull >> (3 * dir)) & 7u) - 2; }
TERRAZO_HD int step_dy16(int dir) { return static_cast<int>((0x20172324a6daull >> (3 * dir)) & 7u) - 2; }

TERRAZO_HD int direction_count(Connectivity c) { return c == Connectivity::Sixteen ? 16 : 8; }
// Whether step `dir` (0..15) exists with connectivity c (4: orthogonal; 8: + diagonal; 16: + knight).
TERRAZO_HD bool step_used(int dir, Connectivity c) {
  return dir < 8 ? (c != Connectivity::Four || (dir & 1) == 0) : c == Connectivity::Sixteen;
}
TERRAZO_HD bool is_knight(int dir) { return dir >= 8; }
TERRAZO_HD int opposite_step(int dir) { return dir < 8 ? ((dir + 4) & 7) : 8 + ((dir - 4) & 7); }
// Cells of halo around a tile window: 2 with knight's moves, else 1.
TERRAZO_HD std::uint32_t halo_width(Connectivity c) { return c == Connectivity::Sixteen ? 2u : 1u; }

// The offsets (dx, dy) of the two cells a knight's move `dir` (8..15) crosses.
TERRAZO_HD void knight_crossed(int dir, int* ax, int* ay, int* bx, int* by) {
  const int dx = step_dx16(dir), dy = step_dy16(dir);
  if (dx == 2 || dx == -2) {
    *ax = dx / 2; *ay = 0; *bx = dx / 2; *by = dy;
  } else {
    *ax = 0; *ay = dy / 2; *bx = dx; *by = dy / 2;
  }
}

// The length of knight's move `dir` with uniform step lengths (cells or --distance map).
inline double knight_length(const StepLengths& s, int dir) {
  const double x = kStepDx[dir] * s.ew, y = kStepDy[dir] * s.ns;
  return std::sqrt(x * x + y * y);
}

// The weight of a knight's move from u over a, b to v (values cu, ca, cb, cv) of length L.
TERRAZO_HD Weight knight_weight(const WeightParams& p, double cu, double ca, double cb, double cv, double length,
                                bool* overflow) {
  if (ca != ca || cb != cb) return kNoEdge;  // NaN: a crossed cell is nodata
  const double mean = ((cu + cv) + (ca + cb)) * 0.25;  // NaN when u or v is nodata
  return weight_of_step(p, mean, mean, length, overflow);
}

}  // namespace terrazo
