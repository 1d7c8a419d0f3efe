// kernels/flow/flat_gradient.cpp: resolve_flats (kernels/flow/flat_gradient.h).
#include "kernels/flow/flat_gradient.h"

#include <algorithm>

#include "kernels/common/error.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();

// The flats: scratch.flat[i] = the component of cell i, numbered in order of their first cell.
std::uint32_t label_flats(const FlatCells& cells, FlatScratch& s) {
  const std::size_t n = cells.size();
  s.flat.assign(n, kUnreached);
  std::uint32_t flats = 0;
  for (std::size_t first = 0; first < n; ++first) {
    if (s.flat[first] != kUnreached) continue;
    s.queue.clear();
    s.queue.push_back(static_cast<std::uint32_t>(first));
    s.flat[first] = flats;
    for (std::size_t head = 0; head < s.queue.size(); ++head) {
      const std::uint32_t c = s.queue[head];
      for (int d = 0; d < 8; ++d) {
        const std::uint32_t m = cells.neighbour[std::size_t{c} * 8 + d];
        if (m != kNoFlatCell && s.flat[m] == kUnreached) {
          s.flat[m] = flats;
          s.queue.push_back(m);
        }
      }
    }
    ++flats;
  }
  return flats;
}

// Multi-source BFS inside the flats: dist = 1 at the cells where seed(i), +1 a step; kUnreached
// where no seed of the cell's flat is.
template <class Seed>
void bfs_from(const FlatCells& cells, Seed&& seed, std::vector<std::uint32_t>& dist, std::vector<std::uint32_t>& queue) {
  const std::size_t n = cells.size();
  dist.assign(n, kUnreached);
  queue.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (seed(i)) {
      dist[i] = 1;
      queue.push_back(static_cast<std::uint32_t>(i));
    }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t c = queue[head];
    for (int d = 0; d < 8; ++d) {
      const std::uint32_t m = cells.neighbour[std::size_t{c} * 8 + d];
      if (m != kNoFlatCell && dist[m] == kUnreached) {
        dist[m] = dist[c] + 1;
        queue.push_back(m);
      }
    }
  }
}

}  // namespace

void resolve_flats(const FlatCells& cells, std::vector<std::uint8_t>& codes, FlatScratch& s, FlatStats& stats) {
  const std::size_t n = cells.size();
  codes.assign(n, kD8NoFlow);
  if (n == 0) return;
  const std::uint32_t flats = label_flats(cells, s);
  bfs_from(cells, [&](std::size_t i) { return cells.low[i] != 0; }, s.towards, s.queue);
  bfs_from(cells, [&](std::size_t i) { return cells.high[i] != 0; }, s.away, s.queue);
  s.flat_max_away.assign(flats, 0);
  s.flat_drained.assign(flats, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (s.away[i] == kUnreached) s.away[i] = 0;  // a flat with no higher neighbour: no away gradient
    s.flat_max_away[s.flat[i]] = std::max(s.flat_max_away[s.flat[i]], s.away[i]);
    s.flat_drained[s.flat[i]] |= s.towards[i] != kUnreached;
  }
  auto mask = [&](std::uint32_t i) {
    return 2 * std::uint64_t{s.towards[i]} + (s.flat_max_away[s.flat[i]] - s.away[i]);
  };
  stats.flats += flats;
  for (std::uint32_t f = 0; f < flats; ++f) stats.undrained_flats += !s.flat_drained[f];
  for (std::size_t i = 0; i < n; ++i) {
    if (!s.flat_drained[s.flat[i]]) {
      ++stats.undrained_cells;
      continue;
    }
    std::uint64_t best = mask(static_cast<std::uint32_t>(i));
    int best_d = -1;
    for (int d = 0; d < 8; ++d) {
      const std::uint32_t m = cells.neighbour[i * 8 + d];
      const bool low = (cells.low[i] >> d) & 1u;
      if (!low && m == kNoFlatCell) continue;
      const std::uint64_t value = low ? 0 : mask(m);
      if (value < best) {
        best = value;
        best_d = d;
      }
    }
    if (best_d < 0) throw Error("resolve_flats: a drained flat cell with no lower mask (a defect)");
    codes[i] = kD8Steps[best_d].code;
  }
}

}  // namespace terrazo
