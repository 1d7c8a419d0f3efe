// kernels/index/tile_boundary_matrix_cpu.cpp: the CPU twin of tile_boundary_matrix.h: leaves by
// blocked Floyd-Warshall, then the merge levels, one block after the other.
#include <algorithm>
#include <string>

#include "kernels/common/error.h"
#include "kernels/index/blocked_floyd_warshall.h"
#include "kernels/index/boundary_merge.h"
#include "kernels/index/tile_boundary_matrix.h"

namespace terrazo {
namespace {

void check_sides(std::uint32_t t, std::uint32_t leaf) {
  const bool t_ok = t >= 16 && t <= 4096 && (t & (t - 1)) == 0;
  const bool leaf_ok = (leaf == 4 || leaf == 8 || leaf == 16) && leaf <= t;
  if (!t_ok || !leaf_ok)
    throw Error("tile boundary matrix: tile " + std::to_string(t) + " and leaf " + std::to_string(leaf) +
                " are not a power-of-two tile 16..4096 with a leaf of 4, 8 or 16");
}

std::uint64_t level_entries(std::uint32_t t, std::uint32_t s) {
  const std::uint64_t blocks = static_cast<std::uint64_t>(t / s) * (t / s);
  return blocks * ring_size(s) * ring_size(s);
}

}  // namespace

std::uint64_t tile_boundary_workspace_entries(std::uint32_t t, std::uint32_t leaf) {
  check_sides(t, leaf);
  // Two levels of matrices (children and parents), the four children of one merge, and the larger
  // of the leaf's and the top merge's scratch.
  std::uint64_t level = 0;
  for (std::uint32_t s = leaf; s < t; s *= 2) level = std::max(level, level_entries(t, s));
  const std::uint64_t leaf_scratch = static_cast<std::uint64_t>(leaf) * leaf * leaf * leaf;
  return 2 * level + std::max(leaf_scratch, merge_workspace_entries(t / 2));
}

void tile_boundary_matrix_cpu(const double* values, std::uint32_t t, std::uint32_t leaf, const WeightParams& params,
                              Connectivity connectivity, std::vector<PathLength>& workspace, PathLength* out,
                              bool* overflow) {
  const std::uint64_t need = tile_boundary_workspace_entries(t, leaf);
  if (workspace.size() < need) workspace.resize(need);
  std::uint64_t level_size = 0;
  for (std::uint32_t s = leaf; s < t; s *= 2) level_size = std::max(level_size, level_entries(t, s));
  PathLength* halves[2] = {workspace.data(), workspace.data() + level_size};
  PathLength* scratch = workspace.data() + 2 * level_size;
  // Leaves, row-major over the tile's leaf grid.
  std::uint32_t s = leaf;
  std::uint32_t per_row = t / s;
  std::uint64_t b2 = static_cast<std::uint64_t>(ring_size(s)) * ring_size(s);
  PathLength* level = s == t ? out : halves[0];
  for (std::uint32_t by = 0; by < per_row; ++by)
    for (std::uint32_t bx = 0; bx < per_row; ++bx)
      leaf_boundary_matrix_cpu(values + static_cast<std::uint64_t>(by) * s * t + bx * s, t, s, params, connectivity,
                               scratch, level + (static_cast<std::uint64_t>(by) * per_row + bx) * b2, overflow);
  // Merges: level s (per_row x per_row blocks, row-major) -> level 2s, until the tile.
  int half = 0;
  std::vector<PathLength> children;
  while (s < t) {
    const std::uint32_t parent_row = per_row / 2;
    const std::uint64_t parent_b2 = static_cast<std::uint64_t>(ring_size(2 * s)) * ring_size(2 * s);
    half ^= 1;
    PathLength* next = 2 * s == t ? out : halves[half];
    children.resize(4 * b2);
    for (std::uint32_t py = 0; py < parent_row; ++py) {
      for (std::uint32_t px = 0; px < parent_row; ++px) {
        for (std::uint32_t c = 0; c < 4; ++c) {
          const std::uint32_t cx = 2 * px + (c & 1u), cy = 2 * py + (c >> 1);
          const PathLength* m = level + (static_cast<std::uint64_t>(cy) * per_row + cx) * b2;
          std::copy(m, m + b2, children.data() + c * b2);
        }
        boundary_merge_cpu(values + static_cast<std::uint64_t>(py) * 2 * s * t + px * 2 * s, t, s, params,
                           connectivity, children.data(), scratch,
                           next + (static_cast<std::uint64_t>(py) * parent_row + px) * parent_b2, overflow);
      }
    }
    level = next;
    s *= 2;
    per_row = parent_row;
    b2 = parent_b2;
  }
}

}  // namespace terrazo
