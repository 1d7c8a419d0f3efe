// tests/support/index_reference.h: plain references for the boundary-graph index kernels
// (kernels/index/): Floyd-Warshall in its textbook loop order, and ring-to-ring distances inside a
// block by one binary-heap Dijkstra per ring cell. Independent of the kernels' code.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "kernels/common/tile_geometry.h"
#include "kernels/index/boundary_ring.h"

namespace terrazo::testing {

inline void plain_floyd_warshall(std::vector<PathLength>& d, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k)
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        const PathLength a = d[static_cast<std::size_t>(i) * n + k], b = d[static_cast<std::size_t>(k) * n + j];
        if (a == kUnreached || b == kUnreached) continue;
        if (a + b < d[static_cast<std::size_t>(i) * n + j]) d[static_cast<std::size_t>(i) * n + j] = a + b;
      }
}

// Distances from cell `from` (x + y * s) to every cell of the s x s block values[y * stride + x].
inline std::vector<PathLength> block_dijkstra(const double* values, std::uint64_t stride, std::uint32_t s,
                                              const WeightParams& params, Connectivity connectivity,
                                              std::uint32_t from, bool* overflow) {
  const std::uint32_t n = s * s;
  std::vector<PathLength> dist(n, kUnreached);
  auto value = [&](std::uint32_t c) { return values[(c / s) * stride + c % s]; };
  if (value(from) != value(from)) return dist;
  using Item = std::pair<PathLength, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  dist[from] = 0;
  queue.push({0, from});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d != dist[u]) continue;
    const int ux = static_cast<int>(u % s), uy = static_cast<int>(u / s);
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const int vx = ux + kDirDx[dir], vy = uy + kDirDy[dir];
      if (vx < 0 || vy < 0 || vx >= static_cast<int>(s) || vy >= static_cast<int>(s)) continue;
      const std::uint32_t v = static_cast<std::uint32_t>(vy) * s + static_cast<std::uint32_t>(vx);
      const Weight w = step_weight(params, value(u), value(v), dir, 0, overflow);
      if (w == kNoEdge) continue;
      if (d + w < dist[v]) {
        dist[v] = d + w;
        queue.push({d + w, v});
      }
    }
  }
  return dist;
}

// The block's ring-to-ring matrix (kernels/index/blocked_floyd_warshall.h contract) by Dijkstras.
inline std::vector<PathLength> ring_matrix_reference(const double* values, std::uint64_t stride, std::uint32_t s,
                                                     const WeightParams& params, Connectivity connectivity,
                                                     bool* overflow) {
  const std::uint32_t b = ring_size(s);
  std::vector<PathLength> m(static_cast<std::size_t>(b) * b);
  for (std::uint32_t p = 0; p < b; ++p) {
    std::uint32_t px, py;
    ring_cell_of(s, p, &px, &py);
    const std::vector<PathLength> dist = block_dijkstra(values, stride, s, params, connectivity, py * s + px, overflow);
    for (std::uint32_t q = 0; q < b; ++q) {
      std::uint32_t qx, qy;
      ring_cell_of(s, q, &qx, &qy);
      m[static_cast<std::size_t>(p) * b + q] = dist[qy * s + qx];
    }
  }
  return m;
}

// The textbook 2x2 merge (kernels/index/boundary_merge.h contract), one pivot at a time over the whole
// union matrix: U = the children's ring cells numbered c * B(s) + p (children 0 = top-left, 1 =
// top-right, 2 = bottom-left, 3 = bottom-right), the children's matrices and the grid edges between
// cells of different children; every vertex off the parent's ring eliminated in turn (first to last),
// then Floyd-Warshall over the parent's ring; read out in the parent's ring order. Independent of the
// kernels' union order and blocking.
inline std::vector<PathLength> one_pivot_merge_reference(const double* values, std::uint64_t stride, std::uint32_t s,
                                                         const WeightParams& params, Connectivity connectivity,
                                                         const PathLength* children, bool* overflow) {
  const std::uint32_t b = ring_size(s), u = 4 * b, pb = ring_size(2 * s);
  std::vector<PathLength> d(static_cast<std::size_t>(u) * u, kUnreached);
  std::vector<std::int32_t> parent_position(u);
  auto cell = [&](std::uint32_t v, std::uint32_t* x, std::uint32_t* y) {
    const std::uint32_t c = v / b;
    ring_cell_of(s, v % b, x, y);
    *x += (c & 1u) * s;
    *y += (c >> 1) * s;
  };
  for (std::uint32_t v = 0; v < u; ++v) {
    std::uint32_t x, y;
    cell(v, &x, &y);
    parent_position[v] = ring_position(2 * s, x, y);
  }
  for (std::uint32_t c = 0; c < 4; ++c)
    for (std::uint32_t p = 0; p < b; ++p)
      for (std::uint32_t q = 0; q < b; ++q)
        d[static_cast<std::size_t>(c * b + p) * u + c * b + q] = children[static_cast<std::size_t>(c) * b * b + p * b + q];
  for (std::uint32_t v = 0; v < u; ++v) {
    std::uint32_t x, y;
    cell(v, &x, &y);
    const double a = values[y * stride + x];
    if (a != a) continue;
    for (std::uint32_t w = 0; w < u; ++w) {
      if (w / b == v / b) continue;
      std::uint32_t wx, wy;
      cell(w, &wx, &wy);
      for (int dir = 0; dir < 8; ++dir) {
        if (!direction_used(dir, connectivity)) continue;
        if (static_cast<int>(x) + kDirDx[dir] != static_cast<int>(wx) || static_cast<int>(y) + kDirDy[dir] != static_cast<int>(wy)) continue;
        const Weight weight = step_weight(params, a, values[wy * stride + wx], dir, 0, overflow);
        if (weight != kNoEdge) d[static_cast<std::size_t>(v) * u + w] = std::min<PathLength>(d[static_cast<std::size_t>(v) * u + w], weight);
      }
    }
  }
  auto relax = [&](std::uint32_t k, std::uint32_t i, std::uint32_t j) {
    const PathLength a = d[static_cast<std::size_t>(i) * u + k], c = d[static_cast<std::size_t>(k) * u + j];
    if (a == kUnreached || c == kUnreached) return;
    if (a + c < d[static_cast<std::size_t>(i) * u + j]) d[static_cast<std::size_t>(i) * u + j] = a + c;
  };
  std::vector<char> alive(u, 1);
  for (std::uint32_t k = 0; k < u; ++k) {
    if (parent_position[k] >= 0) continue;
    alive[k] = 0;
    for (std::uint32_t i = 0; i < u; ++i)
      for (std::uint32_t j = 0; j < u; ++j)
        if (alive[i] && alive[j]) relax(k, i, j);
  }
  for (std::uint32_t k = 0; k < u; ++k) {
    if (!alive[k]) continue;
    for (std::uint32_t i = 0; i < u; ++i)
      for (std::uint32_t j = 0; j < u; ++j)
        if (alive[i] && alive[j]) relax(k, i, j);
  }
  std::vector<PathLength> parent(static_cast<std::size_t>(pb) * pb);
  for (std::uint32_t v = 0; v < u; ++v)
    for (std::uint32_t w = 0; w < u; ++w)
      if (alive[v] && alive[w])
        parent[static_cast<std::size_t>(parent_position[v]) * pb + parent_position[w]] = d[static_cast<std::size_t>(v) * u + w];
  return parent;
}

}  // namespace terrazo::testing
