// tests/support/mst_reference.cpp: see mst_reference.h.
#include "tests/support/mst_reference.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "kernels/common/tile_geometry.h"

namespace terrazo::testing {
namespace {

struct Edge {
  Weight w;
  std::uint64_t a, b;  // a < b
  int dir;             // owned direction at a
};

std::uint64_t find(std::vector<std::uint64_t>& parent, std::uint64_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

}  // namespace

bool reference_edge_exists(const std::vector<double>& values, std::uint64_t width, std::uint64_t height,
                           std::uint64_t x, std::uint64_t y, int dir, Connectivity connectivity) {
  if (!direction_used(dir, connectivity)) return false;
  const std::int64_t nx = static_cast<std::int64_t>(x) + kDirDx[dir];
  const std::int64_t ny = static_cast<std::int64_t>(y) + kDirDy[dir];
  if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(width) || ny >= static_cast<std::int64_t>(height)) return false;
  const double a = values[y * width + x];
  const double b = values[static_cast<std::uint64_t>(ny) * width + static_cast<std::uint64_t>(nx)];
  return a == a && b == b;
}

ReferenceMst reference_mst(const std::vector<double>& values, std::uint64_t width, std::uint64_t height,
                           const WeightParams& params, Connectivity connectivity) {
  ReferenceMst result;
  const std::uint64_t n = width * height;
  result.bits.assign(n, 0);
  std::vector<Edge> edges;
  for (std::uint64_t y = 0; y < height; ++y) {
    for (std::uint64_t x = 0; x < width; ++x) {
      const std::uint64_t id = y * width + x;
      if (values[id] != values[id]) {
        result.bits[id] = 255;
        continue;
      }
      ++result.vertices;
      for (int dir = 0; dir < 4; ++dir) {
        if (!reference_edge_exists(values, width, height, x, y, dir, connectivity)) continue;
        const std::uint64_t other = (y + kDirDy[dir]) * width + (x + kDirDx[dir]);
        bool overflow = false;
        const Weight w = edge_weight(params, values[id], values[other], is_diagonal(dir), &overflow);
        if (overflow) result.overflow = true;
        edges.push_back(Edge{w, std::min(id, other), std::max(id, other), dir});
      }
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& p, const Edge& q) {
    return std::tie(p.w, p.a, p.b) < std::tie(q.w, q.a, q.b);
  });
  std::vector<std::uint64_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::uint64_t{0});
  for (const Edge& e : edges) {
    const std::uint64_t ra = find(parent, e.a), rb = find(parent, e.b);
    if (ra == rb) continue;
    parent[ra] = rb;
    result.bits[e.a] |= static_cast<std::uint8_t>(1u << e.dir);
    ++result.edges;
    result.total_weight += e.w;
  }
  result.components = result.vertices - result.edges;
  return result;
}

ReferenceMst reference_mst_totals(const std::vector<double>& values, std::uint64_t width, std::uint64_t height,
                                  const WeightParams& params, Connectivity connectivity) {
  ReferenceMst result;
  const std::uint64_t n = width * height;
  if (n > (std::uint64_t{1} << 30)) throw std::runtime_error("reference_mst_totals: more than 2^30 cells");
  static constexpr int kRankDirection[4] = {kEast, kSouthWest, kSouth, kSouthEast};
  std::vector<std::uint64_t> keys;
  keys.reserve(4 * n);
  for (std::uint64_t y = 0; y < height; ++y) {
    for (std::uint64_t x = 0; x < width; ++x) {
      const std::uint64_t id = y * width + x;
      if (values[id] != values[id]) continue;
      ++result.vertices;
      for (int rank = 0; rank < 4; ++rank) {
        const int dir = kRankDirection[rank];
        if (!reference_edge_exists(values, width, height, x, y, dir, connectivity)) continue;
        const std::uint64_t other = (y + kDirDy[dir]) * width + (x + kDirDx[dir]);
        bool overflow = false;
        const Weight w = edge_weight(params, values[id], values[other], is_diagonal(dir), &overflow);
        if (overflow) result.overflow = true;
        keys.push_back(static_cast<std::uint64_t>(w) << 32 | (id * 4 + static_cast<std::uint64_t>(rank)));
      }
    }
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::uint32_t{0});
  auto find = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const std::uint64_t key : keys) {
    const std::uint64_t low = key & 0xffffffffu;
    const std::uint64_t a = low >> 2;
    const int dir = kRankDirection[low & 3];
    const std::uint64_t b = (a / width + kDirDy[dir]) * width + a % width + kDirDx[dir];
    const std::uint32_t ra = find(static_cast<std::uint32_t>(a)), rb = find(static_cast<std::uint32_t>(b));
    if (ra == rb) continue;
    parent[ra] = rb;
    ++result.edges;
    result.total_weight += key >> 32;
  }
  result.components = result.vertices - result.edges;
  return result;
}

}  // namespace terrazo::testing
