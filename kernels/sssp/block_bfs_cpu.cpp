// kernels/sssp/block_bfs_cpu.cpp: the CPU twin of the frontier BFS block solver (kernels/sssp/block_bfs.h).
//
// Dijkstra with equal weights needs no heap: if cells are taken in nondecreasing distance, the cells
// they reach get distance + c, so a FIFO of reached cells is itself sorted. The seeds (finite cells,
// possibly at different distances) are sorted once and merged with that FIFO: always take the smaller
// head. A cell reached from the FIFO stream is final when first stored (every later cell taken has a
// distance at least as large), so each interior cell enters the FIFO at most once; a seed whose
// distance dropped after the sort is stale and skipped. As block_sssp_cpu, only seeds that can improve
// a neighbour are queued (a re-solve after a few halo changes costs a scan plus the improved region).
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/sssp/block_bfs.h"

namespace terrazo {

namespace {

struct BfsWorkspace {
  std::vector<std::pair<PathLength, std::uint32_t>> seeds;
  std::vector<std::uint32_t> fifo;
};

BfsWorkspace& bfs_workspace() {
  thread_local BfsWorkspace w;
  return w;
}

}  // namespace

std::uint64_t block_bfs_cpu(const double* values, std::uint32_t t, const WeightParams& params,
                            Connectivity connectivity, PathLength max_cost, PathLength* dist, std::uint8_t* changed) {
  Weight c = 0;
  if (!block_bfs_step(params, &c)) throw Error("internal: block_bfs_cpu needs the unit weight model with a weight that fits");
  const std::int64_t s = static_cast<std::int64_t>(t) + 2;
  std::memset(changed, 0, static_cast<std::size_t>(t) * t);
  int offsets[8];
  int used = 0;
  for (int dir = 0; dir < 8; ++dir)
    if (direction_used(dir, connectivity)) offsets[used++] = kDirDy[dir] * static_cast<int>(s) + kDirDx[dir];
  auto valid = [&](std::int64_t i) { return values[i] == values[i]; };
  auto interior = [&](std::int64_t i) {
    const std::int64_t x = i % s, y = i / s;
    return x >= 1 && y >= 1 && x <= t && y <= t;
  };
  // Candidate through u, or false when it wraps or exceeds max_cost.
  auto extend = [&](PathLength d, PathLength* out) {
    const PathLength e = d + c;
    if (d == kUnreached || d > max_cost || e < d || e > max_cost) return false;
    *out = e;
    return true;
  };

  BfsWorkspace& w = bfs_workspace();
  w.seeds.clear();
  w.fifo.clear();
  for (std::int64_t i = 0; i < s * s; ++i) {
    PathLength e;
    if (!valid(i) || !extend(dist[i], &e)) continue;
    for (int k = 0; k < used; ++k) {
      const std::int64_t v = i + offsets[k];
      // A step off the window's left or right edge wraps to x = s-1 or 0 of the next row: halo, not interior.
      if (v < 0 || v >= s * s || !interior(v) || !valid(v)) continue;
      if (e < dist[v]) {
        w.seeds.emplace_back(dist[i], static_cast<std::uint32_t>(i));
        break;
      }
    }
  }
  std::sort(w.seeds.begin(), w.seeds.end());

  std::uint64_t count = 0;
  std::size_t next_seed = 0, head = 0;
  while (next_seed < w.seeds.size() || head < w.fifo.size()) {
    std::int64_t u;
    if (head < w.fifo.size() && (next_seed == w.seeds.size() || dist[w.fifo[head]] <= w.seeds[next_seed].first)) {
      u = w.fifo[head++];
    } else {
      const auto [key, i] = w.seeds[next_seed++];
      if (key != dist[i]) continue;  // improved since the sort: its new distance is in the FIFO
      u = i;
    }
    PathLength e;
    if (!extend(dist[u], &e)) break;  // every later cell is at least as far
    for (int k = 0; k < used; ++k) {
      const std::int64_t v = u + offsets[k];
      if (v < 0 || v >= s * s || !interior(v) || !valid(v) || e >= dist[v]) continue;
      dist[v] = e;
      const std::size_t l = static_cast<std::size_t>(v / s - 1) * t + static_cast<std::size_t>(v % s - 1);
      if (!changed[l]) {
        changed[l] = 1;
        ++count;
      }
      w.fifo.push_back(static_cast<std::uint32_t>(v));
    }
  }
  return count;
}

}  // namespace terrazo
