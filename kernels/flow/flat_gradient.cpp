// kernels/flow/flat_gradient.cpp: resolve_flats (kernels/flow/flat_gradient.h).
#include "kernels/flow/flat_gradient.h"

#include <algorithm>
#include <atomic>

#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kCellsPerTask = 4096;  // flats are taken in runs of about this many cells

// The flats: s.flat[i] = the component of cell i, numbered in order of their first cell; each flat's
// cells contiguous in s.members (in the order its BFS reached them), flat f at [s.first[f], s.first[f + 1]).
std::uint32_t label_flats(const FlatCells& cells, FlatScratch& s) {
  const std::size_t n = cells.size();
  s.flat.assign(n, kUnreached);
  s.members.clear();
  s.first.clear();
  std::uint32_t flats = 0;
  for (std::size_t first = 0; first < n; ++first) {
    if (s.flat[first] != kUnreached) continue;
    s.first.push_back(static_cast<std::uint32_t>(s.members.size()));
    s.members.push_back(static_cast<std::uint32_t>(first));
    s.flat[first] = flats;
    for (std::size_t head = s.first.back(); head < s.members.size(); ++head) {
      const std::uint32_t c = s.members[head];
      for (int d = 0; d < 8; ++d) {
        const std::uint32_t m = cells.neighbour[std::size_t{c} * 8 + d];
        if (m != kNoFlatCell && s.flat[m] == kUnreached) {
          s.flat[m] = flats;
          s.members.push_back(m);
        }
      }
    }
    ++flats;
  }
  s.first.push_back(static_cast<std::uint32_t>(n));
  return flats;
}

// One flat's gradients and codes; flats are independent (a cell's neighbours in the set are in its
// flat), so several run at once, each on its own slice of the scratch arrays.
class FlatResolver {
 public:
  FlatResolver(const FlatCells& cells, std::vector<std::uint8_t>& codes, FlatScratch& s) : cells_(cells), codes_(codes), s_(s) {}

  // Flat f's codes; false when it has no `low` cell (its codes stay kD8NoFlow).
  bool resolve(std::uint32_t f) {
    const std::uint32_t begin = s_.first[f], end = s_.first[f + 1];
    bfs_from(begin, end, [&](std::uint32_t i) { return cells_.low[i] != 0; }, s_.towards);
    bfs_from(begin, end, [&](std::uint32_t i) { return cells_.high[i] != 0; }, s_.away);
    std::uint32_t max_away = 0;
    bool drained = false;
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t i = s_.members[k];
      if (s_.away[i] == kUnreached) s_.away[i] = 0;  // a flat with no higher neighbour: no away gradient
      max_away = std::max(max_away, s_.away[i]);
      drained |= s_.towards[i] != kUnreached;
    }
    if (!drained) return false;
    for (std::uint32_t k = begin; k < end; ++k) codes_[s_.members[k]] = code(s_.members[k], max_away);
    return true;
  }

 private:
  // Multi-source BFS inside the flat [begin, end) of s.members: dist = 1 at the cells where seed(i),
  // +1 a step; kUnreached where no seed is. The queue is the flat's slice of s.queue.
  template <class Seed>
  void bfs_from(std::uint32_t begin, std::uint32_t end, Seed&& seed, std::vector<std::uint32_t>& dist) {
    std::uint32_t* queue = s_.queue.data() + begin;
    std::uint32_t tail = 0;
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t i = s_.members[k];
      dist[i] = seed(i) ? 1 : kUnreached;
      if (dist[i] == 1) queue[tail++] = i;
    }
    for (std::uint32_t head = 0; head < tail; ++head) {
      const std::uint32_t c = queue[head];
      for (int d = 0; d < 8; ++d) {
        const std::uint32_t m = cells_.neighbour[std::size_t{c} * 8 + d];
        if (m != kNoFlatCell && dist[m] == kUnreached) {
          dist[m] = dist[c] + 1;
          queue[tail++] = m;
        }
      }
    }
  }

  std::uint64_t mask(std::uint32_t i, std::uint32_t max_away) const { return 2 * std::uint64_t{s_.towards[i]} + (max_away - s_.away[i]); }

  // The step to the neighbour of least mask below the cell's own (a `low` neighbour: 0).
  std::uint8_t code(std::uint32_t i, std::uint32_t max_away) const {
    std::uint64_t best = mask(i, max_away);
    int best_d = -1;
    for (int d = 0; d < 8; ++d) {
      const std::uint32_t m = cells_.neighbour[std::size_t{i} * 8 + d];
      const bool low = (cells_.low[i] >> d) & 1u;
      if (!low && m == kNoFlatCell) continue;
      const std::uint64_t value = low ? 0 : mask(m, max_away);
      if (value < best) {
        best = value;
        best_d = d;
      }
    }
    if (best_d < 0) throw Error("resolve_flats: a drained flat cell with no lower mask (a defect)");
    return kD8Steps[best_d].code;
  }

  const FlatCells& cells_;
  std::vector<std::uint8_t>& codes_;
  FlatScratch& s_;
};

// The flats in runs of about kCellsPerTask cells (a large flat alone): [task[j], task[j + 1]).
std::vector<std::uint32_t> flat_tasks(const FlatScratch& s, std::uint32_t flats) {
  std::vector<std::uint32_t> task{0};
  for (std::uint32_t f = 0; f < flats; ++f)
    if (s.first[f + 1] - s.first[task.back()] >= kCellsPerTask || f + 1 == flats) task.push_back(f + 1);
  return task;
}

}  // namespace

void resolve_flats(const FlatCells& cells, std::vector<std::uint8_t>& codes, FlatScratch& s, FlatStats& stats,
                   WorkerPool* pool) {
  const std::size_t n = cells.size();
  codes.assign(n, kD8NoFlow);
  if (n == 0) return;
  const std::uint32_t flats = label_flats(cells, s);
  s.towards.resize(n);
  s.away.resize(n);
  s.queue.resize(n);
  FlatResolver resolver(cells, codes, s);
  const std::vector<std::uint32_t> task = flat_tasks(s, flats);
  std::atomic<std::uint64_t> undrained_flats{0}, undrained_cells{0};
  const auto run_task = [&](std::uint64_t j) {
    std::uint64_t flats_out = 0, cells_out = 0;
    for (std::uint32_t f = task[j]; f < task[j + 1]; ++f)
      if (!resolver.resolve(f)) ++flats_out, cells_out += s.first[f + 1] - s.first[f];
    undrained_flats += flats_out;
    undrained_cells += cells_out;
  };
  if (pool && task.size() > 2)
    pool->run(task.size() - 1, run_task);
  else
    for (std::uint64_t j = 0; j + 1 < task.size(); ++j) run_task(j);
  stats.flats += flats;
  stats.undrained_flats += undrained_flats;
  stats.undrained_cells += undrained_cells;
}

}  // namespace terrazo
