// tests/support/sssp_reference.cpp: plain Dijkstra with a binary heap (see sssp_reference.h).
#include "tests/support/sssp_reference.h"

#include <utility>

#include <cmath>
#include <functional>
#include <queue>
#include <tuple>

#include "kernels/common/tile_geometry.h"
#include "kernels/sssp/knight.h"

namespace terrazo::testing {

namespace {

using Label = std::tuple<PathLength, std::uint32_t, std::uint32_t>;  // dist, source, hops

// The 16 steps written out: the 8 neighbours, then the knight's moves (dx, dy) with |dx| + |dy| == 3.
constexpr int kDx[16] = {1, 1, 0, -1, -1, -1, 0, 1, 2, 1, -1, -2, -2, -1, 1, 2};
constexpr int kDy[16] = {0, 1, 1, 1, 0, -1, -1, -1, 1, 2, 2, 1, -1, -2, -2, -1};

int steps_of(const SsspReferenceProblem& p) { return p.connectivity == Connectivity::Sixteen ? 16 : 8; }

bool neighbour(const SsspReferenceProblem& p, std::uint64_t u, int d, std::uint64_t* v) {
  if (d < 8 && p.connectivity == Connectivity::Four && (d & 1)) return false;
  const std::int64_t x = static_cast<std::int64_t>(u % p.width) + kDx[d];
  const std::int64_t y = static_cast<std::int64_t>(u / p.width) + kDy[d];
  if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(p.width) || y >= static_cast<std::int64_t>(p.height))
    return false;
  *v = static_cast<std::uint64_t>(y) * p.width + static_cast<std::uint64_t>(x);
  return true;
}

// The weight of the step u -> v in direction d. A knight's move (GRASS r.cost -k) crosses the two
// cells on either side of the segment's midpoint; all four cells must be valid, and friction is
// their mean times the step's length.
Weight reference_weight(const SsspReferenceProblem& p, std::uint64_t u, std::uint64_t v, int d, bool* overflow) {
  const double length = reference_step_length(p, u / p.width, kDx[d], kDy[d]);
  if (d < 8) return weight_of_step(p.params, p.values[u], p.values[v], length, overflow);
  const std::int64_t x = static_cast<std::int64_t>(u % p.width), y = static_cast<std::int64_t>(u / p.width);
  std::int64_t ax, ay, bx, by;  // the crossed cells: halfway along the long axis, on both sides
  if (kDx[d] == 2 || kDx[d] == -2) {
    ax = bx = x + kDx[d] / 2;
    ay = y;
    by = y + kDy[d];
  } else {
    ay = by = y + kDy[d] / 2;
    ax = x;
    bx = x + kDx[d];
  }
  const double ca = p.values[static_cast<std::uint64_t>(ay) * p.width + static_cast<std::uint64_t>(ax)];
  const double cb = p.values[static_cast<std::uint64_t>(by) * p.width + static_cast<std::uint64_t>(bx)];
  if (std::isnan(ca) || std::isnan(cb)) return kNoEdge;
  const double mean = ((p.values[u] + p.values[v]) + (ca + cb)) / 4.0;
  return weight_of_step(p.params, mean, mean, length, overflow);
}

}  // namespace

double reference_step_length(const SsspReferenceProblem& p, std::uint64_t y, int dx, int dy) {
  if (dx * dx + dy * dy == 5) {  // a knight's move: uniform lengths only (geodesic is refused)
    const double ex = dx * p.params.steps.ew, ny = dy * p.params.steps.ns;
    return std::sqrt(ex * ex + ny * ny);
  }
  if (p.row_lengths.empty()) return dy == 0 ? p.params.steps.ew : dx == 0 ? p.params.steps.ns : p.params.steps.diag;
  if (dy == 0) return p.row_lengths[3 * y];
  const std::uint64_t upper = dy > 0 ? y : y - 1;  // the step lies between rows upper and upper + 1
  return p.row_lengths[3 * upper + (dx == 0 ? 1 : 2)];
}

void set_reference_sources(SsspReferenceProblem& p, const std::vector<std::pair<std::uint64_t, std::uint32_t>>& sources) {
  const std::uint64_t n = p.width * p.height;
  p.dist.assign(n, kUnreached);
  p.source.assign(n, 0);
  p.hops.assign(n, 0);
  for (const auto& [cell, id] : sources) {
    if (p.dist[cell] == 0 && p.source[cell] <= id) continue;
    p.dist[cell] = 0;
    p.source[cell] = id;
  }
}

bool sssp_reference(SsspReferenceProblem& p) {
  const std::uint64_t n = p.width * p.height;
  bool overflow = false;
  using Entry = std::pair<Label, std::uint64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (std::uint64_t u = 0; u < n; ++u)
    if (p.dist[u] != kUnreached && p.dist[u] <= p.max_cost) queue.push({Label{p.dist[u], p.source[u], p.hops[u]}, u});
  while (!queue.empty()) {
    const auto [label, u] = queue.top();
    queue.pop();
    if (label != Label{p.dist[u], p.source[u], p.hops[u]}) continue;
    for (int d = 0; d < steps_of(p); ++d) {
      std::uint64_t v;
      if (!neighbour(p, u, d, &v)) continue;
      if (!p.frozen.empty() && p.frozen[v]) continue;
      const Weight w = reference_weight(p, u, v, d, &overflow);
      if (w == kNoEdge) continue;
      const PathLength nd = std::get<0>(label) + w;
      if (nd > p.max_cost || nd < w) continue;
      const Label candidate{nd, std::get<1>(label), std::get<2>(label) + 1};
      if (candidate < Label{p.dist[v], p.source[v], p.hops[v]}) {
        std::tie(p.dist[v], p.source[v], p.hops[v]) = candidate;
        queue.push({candidate, v});
      }
    }
  }
  return !overflow;
}

std::vector<std::uint8_t> backlinks_reference(const SsspReferenceProblem& p) {
  const std::uint64_t n = p.width * p.height;
  std::vector<std::uint8_t> back(n, 255);
  bool overflow = false;
  for (std::uint64_t u = 0; u < n; ++u) {
    if (p.dist[u] == kUnreached || p.hops[u] == 0) continue;
    for (int d = 0; d < steps_of(p); ++d) {
      std::uint64_t v;
      if (!neighbour(p, u, d, &v) || p.dist[v] == kUnreached) continue;
      // The step v -> u: direction opposite to d, from v.
      const int back_d = d < 8 ? (d + 4) % 8 : 8 + (d - 8 + 4) % 8;
      const Weight w = reference_weight(p, v, u, back_d, &overflow);
      if (w == kNoEdge) continue;
      if (p.dist[v] + w == p.dist[u] && p.source[v] == p.source[u] && p.hops[v] + 1 == p.hops[u]) {
        back[u] = static_cast<std::uint8_t>(d);
        break;
      }
    }
  }
  return back;
}

SsspReferenceProblem block_window_problem(const double* values, std::uint32_t t, const WeightParams& params,
                                          Connectivity connectivity, std::vector<PathLength> dist) {
  const std::uint32_t s = t + 2;
  const std::size_t cells = static_cast<std::size_t>(s) * s;
  SsspReferenceProblem p = reference_problem(s, s, values, params, connectivity);
  p.dist = std::move(dist);
  p.source.assign(cells, 0);
  p.hops.assign(cells, 0);
  p.frozen.assign(cells, 0);
  for (std::uint32_t y = 0; y < s; ++y)
    for (std::uint32_t x = 0; x < s; ++x)
      if (x == 0 || y == 0 || x == s - 1 || y == s - 1) p.frozen[static_cast<std::size_t>(y) * s + x] = 1;
  return p;
}

}  // namespace terrazo::testing
