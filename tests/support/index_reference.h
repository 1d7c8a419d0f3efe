// tests/support/index_reference.h: plain references for the boundary-graph index kernels
// (kernels/index/): Floyd-Warshall in its textbook loop order, and ring-to-ring distances inside a
// block by one binary-heap Dijkstra per ring cell. Independent of the kernels' code.
#pragma once
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

}  // namespace terrazo::testing
