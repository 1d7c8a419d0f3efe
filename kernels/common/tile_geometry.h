// kernels/common/tile_geometry.h: cells, directions and edge keys inside one t x t tile.
//
// A tile has t x t cells (t a power of two), local id l = ly * t + lx, row-major, y downwards as in GDAL.
// Directions are numbered clockwise from east; the first four are the edges a cell owns
// (the edge raster bits of docs/mst.md "Outputs"): bit 0 = E (x+1, y), bit 1 = SE (x+1, y+1), bit 2 = S (x, y+1),
// bit 3 = SW (x-1, y+1). Every undirected edge is owned by exactly one cell.
//
// The total edge order (docs/mst.md "The tree is unique") is (weight, min global id, max global id). Inside one tile,
// global ids of the tile's cells are ordered exactly as their local ids, and for one owner cell l
// the other end is l+1 (E) < l+t-1 (SW) < l+t (S) < l+t+1 (SE). So the 64-bit key
//   key = weight << 32 | (l * 4 + rank(dir)),  rank(E)=0, rank(SW)=1, rank(S)=2, rank(SE)=3
// orders a tile's edges exactly as the global total order does, and is unique (t <= 32768).
#pragma once
#include <cstdint>

#include "kernels/common/edge_weight.h"

namespace terrazo {

enum Direction : std::uint8_t { kEast = 0, kSouthEast = 1, kSouth = 2, kSouthWest = 3, kWest = 4, kNorthWest = 5, kNorth = 6, kNorthEast = 7 };

constexpr int kDirDx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
constexpr int kDirDy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
// kDirDx / kDirDy as arithmetic, usable in device code: dx + 1 packed in two bits per direction;
// dy(d) = dx(d + 6 mod 8).
TERRAZO_HD constexpr int step_dx(int dir) { return static_cast<int>((0x901Au >> (2 * dir)) & 3u) - 1; }
TERRAZO_HD constexpr int step_dy(int dir) { return step_dx((dir + 6) & 7); }
static_assert(step_dx(0) == kDirDx[0] && step_dx(1) == kDirDx[1] && step_dx(2) == kDirDx[2] && step_dx(3) == kDirDx[3] &&
                  step_dx(4) == kDirDx[4] && step_dx(5) == kDirDx[5] && step_dx(6) == kDirDx[6] &&
                  step_dx(7) == kDirDx[7],
              "step_dx must equal kDirDx");
static_assert(step_dy(0) == kDirDy[0] && step_dy(1) == kDirDy[1] && step_dy(2) == kDirDy[2] && step_dy(3) == kDirDy[3] &&
                  step_dy(4) == kDirDy[4] && step_dy(5) == kDirDy[5] && step_dy(6) == kDirDy[6] &&
                  step_dy(7) == kDirDy[7],
              "step_dy must equal kDirDy");

TERRAZO_HD bool is_diagonal(int dir) { return (dir & 1) != 0; }
TERRAZO_HD int opposite(int dir) { return (dir + 4) & 7; }
// In 4-connectivity only the orthogonal directions exist (16: all 8, plus the knight's moves of
// kernels/sssp/knight.h).
TERRAZO_HD bool direction_used(int dir, Connectivity c) { return c != Connectivity::Four || !is_diagonal(dir); }

// Rank of an owned direction (0..3) in the (min id, max id) order of its edge.
TERRAZO_HD std::uint32_t owned_direction_rank(int dir) {
  // E -> 0, SE -> 3, S -> 2, SW -> 1
  return dir == kEast ? 0u : dir == kSouthEast ? 3u : dir == kSouth ? 2u : 1u;
}
TERRAZO_HD int owned_direction_of_rank(std::uint32_t rank) {
  return rank == 0 ? kEast : rank == 1 ? kSouthWest : rank == 2 ? kSouth : kSouthEast;
}

// Local edge id: owner cell l and owned direction d (0..3), in the total order.
TERRAZO_HD std::uint32_t tile_edge_id(std::uint32_t l, int dir) { return l * 4u + owned_direction_rank(dir); }
TERRAZO_HD std::uint64_t tile_edge_key(Weight w, std::uint32_t edge_id) {
  return (static_cast<std::uint64_t>(w) << 32) | edge_id;
}
TERRAZO_HD std::uint32_t tile_edge_owner(std::uint32_t edge_id) { return edge_id >> 2; }
TERRAZO_HD int tile_edge_direction(std::uint32_t edge_id) { return owned_direction_of_rank(edge_id & 3u); }

}  // namespace terrazo
