// engine/index/gprime_sweep.cpp: GPrimeSweep (engine/index/gprime_sweep.h).
#include "engine/index/gprime_sweep.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>

#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/index/min_plus_triangle.h"

namespace terrazo {
namespace {

constexpr std::int32_t kNotReached = -1, kSettled = -2;

std::uint64_t block_bytes(std::uint32_t b) { return b * 8ull + (b + 63) / 64 * 8ull + 16; }

}  // namespace

std::uint64_t GPrimeSweep::bytes(std::uint32_t t, std::uint64_t present, unsigned threads) {
  const std::uint32_t b = ring_size(t);
  return present * (5ull * b * 4 + 80) + std::max(1u, threads) * (present * (block_bytes(b) + 12) + b * 24ull + (1ull << 16));
}

GPrimeSweep::GPrimeSweep(const IndexInMemory& index, const GPrimeExchangeOptions& options, unsigned threads)
    : index_(index), options_(options), threads_(std::max(1u, threads)) {
  const TileGrid& grid = index.grid();
  const std::uint32_t t = grid.tile, tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  b_ = ring_size(t);
  words_ = (b_ + 63) / 64;
  // The grid edges leaving each ring position (the same for every tile): neighbour and position there.
  const RingSteps ring_steps = ring_out_steps(t, options.connectivity);
  step_first_ = ring_steps.first;
  std::vector<int> step_dir;
  for (const RingStep& step : ring_steps.steps) {
    steps_.push_back(Step{static_cast<std::uint8_t>(step.neighbour()), static_cast<std::uint16_t>(step.q)});
    step_dir.push_back(step.dir);
  }
  steps_total_ = static_cast<std::uint32_t>(steps_.size());
  dense_.assign(grid.tile_count(), -1);
  for (std::uint64_t tile = 0; tile < grid.tile_count(); ++tile)
    if (index.present(tile)) {
      dense_[tile] = static_cast<std::int64_t>(tile_of_.size());
      tile_of_.push_back(tile);
    }
  const std::uint64_t n = tile_of_.size();
  neighbours_.assign(n * 9, -1);
  weights_.assign(n * steps_total_, kNoEdge);
  valid_.assign(n, 0);
  WorkerPool pool(threads_);
  pool.run(n, [&](std::uint64_t d) {
    const std::uint64_t tile = tile_of_[d];
    const std::int64_t tx = static_cast<std::int64_t>(tile % tiles_x), ty = static_cast<std::int64_t>(tile / tiles_x);
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::int64_t nx = tx + dx, ny = ty + dy;
        if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= tiles_x || ny >= tiles_y) continue;
        neighbours_[d * 9 + static_cast<std::uint64_t>((dy + 1) * 3 + dx + 1)] =
            dense_[static_cast<std::uint64_t>(ny) * tiles_x + static_cast<std::uint64_t>(nx)];
      }
    const double* ring = index.ring(tile);
    std::uint16_t valid = 0;
    for (std::uint32_t p = 0; p < b_; ++p) {
      if (std::isnan(ring[p])) continue;
      ++valid;
      std::uint32_t lx, ly;
      ring_cell_of(t, p, &lx, &ly);
      for (std::uint32_t s = step_first_[p]; s < step_first_[p + 1]; ++s) {
        const std::int64_t nb = neighbours_[d * 9 + steps_[s].slot];
        if (nb < 0) continue;
        // As the label-correcting exchange (gprime_exchange): the step's weight from this cell, at its
        // global row; an overflowing step is no edge.
        bool overflow = false;
        weights_[d * steps_total_ + s] =
            step_weight(options.params, ring[p], index.ring(tile_of_[static_cast<std::uint64_t>(nb)])[steps_[s].r], step_dir[s],
                        ty * t + ly - options.params.steps.row0, &overflow);
      }
    }
    valid_[d] = valid;
  });
}

void GPrimeSweep::prefetch_triangle(std::uint64_t d) const {
  const std::uint64_t tile = tile_of_[d];
  const char* p = static_cast<const char*>(index_.triangle(tile));
  const std::uint64_t bytes = triangle_entries(b_) * index_.width(tile);
  for (std::uint64_t at = 0; at < bytes; at += 64) __builtin_prefetch(p + at, 0, 2);
}

namespace {
// The targets by dense tile: their lists, per list the latest rank among its sites, and the dense
// tiles that hold a list.
struct SweepTargets {
  std::vector<std::int32_t> list_of;  // per dense tile: its list, -1: none
  std::vector<const std::vector<SweepTarget>*> lists;
  std::vector<std::uint32_t> list_max;
  std::vector<std::uint64_t> dense;
};

SweepTargets index_targets(const std::vector<std::uint64_t>& tile_of,
                           const std::unordered_map<std::uint64_t, std::vector<SweepTarget>>& targets,
                           const std::vector<std::uint32_t>& rank) {
  const bool only_later = !rank.empty();
  SweepTargets out;
  out.list_of.assign(tile_of.size(), -1);
  for (std::uint64_t d = 0; d < tile_of.size(); ++d) {
    auto it = targets.find(tile_of[d]);
    if (it == targets.end() || it->second.empty()) continue;
    out.list_of[d] = static_cast<std::int32_t>(out.lists.size());
    out.lists.push_back(&it->second);
    std::uint32_t most = 0;  // the latest rank among the list's sites
    for (const SweepTarget& target : it->second) most = std::max(most, only_later ? rank[target.site] : target.site);
    out.list_max.push_back(most);
  }
  for (std::uint64_t d = 0; d < tile_of.size(); ++d)
    if (out.list_of[d] >= 0) out.dense.push_back(d);
  return out;
}

// What every source's sweep reads, and the k x k results it writes (row v: source v's).
struct SweepQuery {
  const std::vector<std::vector<SweepSeed>>& sources;
  const SweepTargets& targets;
  const std::vector<std::uint32_t>& rank;  // empty: every source serves every site
  PathLength* best;
  std::uint64_t k;
};
}  // namespace

// One thread's state for one source at a time: label blocks of the tiles reached and not settled.
struct GPrimeSweep::Source {
  const GPrimeSweep& g;
  std::vector<std::int32_t> slot_of;  // per dense tile: block, kNotReached or kSettled
  std::vector<std::uint64_t> touched;
  std::vector<PathLength> labels;     // blocks x b
  std::vector<std::uint64_t> pending;  // blocks x words
  std::vector<PathLength> queued;     // per block: its key in the queue (kUnreached: not queued)
  std::vector<std::int32_t> free_blocks;
  std::int32_t blocks = 0, live = 0, max_live = 0;
  using Item = std::pair<PathLength, std::uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue, settle;
  std::vector<PathLength> x, before;

  // The blocks' arrays reserved for every present tile: growing them never moves a block (solve()
  // holds a pointer into its tile's block while its offers allocate others); only the blocks used are
  // touched.
  explicit Source(const GPrimeSweep& sweep)
      : g(sweep), slot_of(sweep.tile_of_.size(), kNotReached), x(sweep.b_), before(sweep.b_) {
    const std::uint64_t n = std::max<std::uint64_t>(1, sweep.tile_of_.size());
    labels.reserve(n * sweep.b_);
    pending.reserve(n * sweep.words_);
    queued.reserve(n);
  }

  std::int32_t block_of(std::uint64_t d) {
    std::int32_t s = slot_of[d];
    if (s != kNotReached) return s;
    if (!free_blocks.empty()) {
      s = free_blocks.back();
      free_blocks.pop_back();
    } else {
      s = blocks++;
      labels.resize(static_cast<std::uint64_t>(blocks) * g.b_);
      pending.resize(static_cast<std::uint64_t>(blocks) * g.words_);
      queued.resize(static_cast<std::uint64_t>(blocks));
    }
    std::fill_n(labels.begin() + static_cast<std::ptrdiff_t>(static_cast<std::uint64_t>(s) * g.b_), g.b_, kUnreached);
    std::fill_n(pending.begin() + static_cast<std::ptrdiff_t>(static_cast<std::uint64_t>(s) * g.words_), g.words_, 0);
    queued[static_cast<std::uint64_t>(s)] = kUnreached;
    slot_of[d] = s;
    touched.push_back(d);
    max_live = std::max(max_live, ++live);
    return s;
  }

  void offer(std::uint64_t d, std::uint32_t r, PathLength value) {
    if (value > g.options_.max_cost || slot_of[d] == kSettled) return;
    const std::int32_t s = block_of(d);
    PathLength& label = labels[static_cast<std::uint64_t>(s) * g.b_ + r];
    if (value >= label) return;
    label = value;
    pending[static_cast<std::uint64_t>(s) * g.words_ + r / 64] |= std::uint64_t{1} << (r % 64);
    if (value < queued[static_cast<std::uint64_t>(s)]) {
      queued[static_cast<std::uint64_t>(s)] = value;
      queue.push({value, d});
    }
  }

  bool has_pending(std::int32_t s) const {
    for (std::uint32_t w = 0; w < g.words_; ++w)
      if (pending[static_cast<std::uint64_t>(s) * g.words_ + w]) return true;
    return false;
  }

  // Solves tile d (block s), popped with its least pending label: the product with its pending
  // labels, then the improved (and the pending) ring labels offered across the grid edges.
  void solve(std::uint64_t d, std::int32_t s) {
    const std::uint32_t b = g.b_;
    PathLength* label = labels.data() + static_cast<std::uint64_t>(s) * b;
    std::uint64_t* bits = pending.data() + static_cast<std::uint64_t>(s) * g.words_;
    std::fill(x.begin(), x.end(), kUnreached);
    std::uint32_t lo = b, hi = 0;
    for (std::uint32_t w = 0; w < g.words_; ++w) {
      for (std::uint64_t m = bits[w]; m != 0; m &= m - 1) {
        const std::uint32_t p = w * 64 + static_cast<std::uint32_t>(__builtin_ctzll(m));
        x[p] = label[p];
        lo = std::min(lo, p);
        hi = p;
      }
      bits[w] = 0;
    }
    queued[static_cast<std::uint64_t>(s)] = kUnreached;
    std::copy(label, label + b, before.begin());
    const std::uint64_t tile = g.tile_of_[d];
    if (g.index_.width(tile) == 4)
      min_plus_triangle_relax32(static_cast<const std::uint32_t*>(g.index_.triangle(tile)), b, x.data(), lo, hi, label);
    else
      min_plus_triangle_relax64(static_cast<const PathLength*>(g.index_.triangle(tile)), b, x.data(), lo, hi, label);
    if (g.options_.max_cost != kUnreached)  // beyond the limit: unreached, as the block solver leaves it
      for (std::uint32_t q = 0; q < b; ++q)
        if (label[q] > g.options_.max_cost) label[q] = kUnreached;
    const Weight* weights = g.weights_.data() + d * g.steps_total_;
    const std::int64_t* around = g.neighbours_.data() + d * 9;
    for (std::uint32_t q = 0; q < b; ++q) {
      if (label[q] >= before[q] && x[q] == kUnreached) continue;
      const PathLength value = label[q];  // (the offers go to other tiles: this block stays put)
      for (std::uint32_t k = g.step_first_[q]; k < g.step_first_[q + 1]; ++k) {
        const Weight w = weights[k];
        if (w == kNoEdge) continue;
        offer(static_cast<std::uint64_t>(around[g.steps_[k].slot]), g.steps_[k].r, value + w);
      }
    }
    // A settle candidate once every valid ring cell has a label: its largest. (The offers went to
    // other tiles and never move a block: `label` is still this tile's.)
    std::uint32_t finite = 0;
    PathLength most = 0;
    for (std::uint32_t q = 0; q < b; ++q)
      if (label[q] != kUnreached) {
        ++finite;
        most = std::max(most, label[q]);
      }
    if (finite == g.valid_[d]) settle.push({most, d});
  }

  // Source v's sweep: seeded from its parts' ring vectors, tiles solved in the order of their least
  // pending label, settled tiles harvested for the targets v serves; stops once those are all
  // settled. Leaves this state reset for the next source.
  void sweep(const SweepQuery& q, std::uint64_t v, GPrimeSweepStats& mine) {
    const std::uint32_t own = q.rank.empty() ? 0 : q.rank[v];
    std::uint64_t remaining = 0;
    for (std::uint64_t d : q.targets.dense) remaining += wanted(q, own, d);
    seed(q.sources[v]);
    bool early = false;
    while (!queue.empty()) {
      const auto [key, d] = queue.top();
      queue.pop();
      const std::int32_t s = slot_of[d];
      if (s < 0 || queued[static_cast<std::uint64_t>(s)] != key) continue;  // stale
      settle_up_to(key, q, v, own, remaining, mine);
      if (remaining == 0) {
        early = true;
        break;
      }
      // The tile likely popped next: its triangle fetched while this one is solved (a solve reads
      // its triangle once, from memory: the sweep is bound by that, not by the arithmetic).
      if (!queue.empty()) g.prefetch_triangle(queue.top().second);
      solve(d, s);
      ++mine.tile_solves;
    }
    if (!early)
      for (std::uint64_t d : q.targets.dense) {
        const std::int32_t s = slot_of[d];
        if (s >= 0 && wanted(q, own, d)) harvest(q, v, own, d, labels.data() + static_cast<std::uint64_t>(s) * g.b_);
      }
    mine.stopped_early += early;
    mine.max_live = std::max<std::uint64_t>(mine.max_live, static_cast<std::uint64_t>(max_live));
    max_live = 0;
    reset();
  }

  void seed(const std::vector<SweepSeed>& seeds) {
    for (const SweepSeed& seed : seeds) {
      const std::int64_t d = g.dense_[seed.tile];
      if (d < 0) continue;  // no valid ring cell: no label leaves the tile
      for (std::uint32_t q = 0; q < g.b_; ++q)
        if (seed.ring[q] != kUnreached) offer(static_cast<std::uint64_t>(d), q, seed.ring[q]);
    }
  }

  // Every label now and later is at least `key`: settles the tiles whose labels all are, harvesting
  // the wanted ones.
  void settle_up_to(PathLength key, const SweepQuery& q, std::uint64_t v, std::uint32_t own, std::uint64_t& remaining,
                    GPrimeSweepStats& mine) {
    while (!settle.empty() && settle.top().first <= key) {
      const std::uint64_t e = settle.top().second;
      settle.pop();
      const std::int32_t se = slot_of[e];
      if (se < 0 || has_pending(se)) continue;  // settled already, or improved since
      if (wanted(q, own, e)) {
        harvest(q, v, own, e, labels.data() + static_cast<std::uint64_t>(se) * g.b_);
        --remaining;
      }
      slot_of[e] = kSettled;
      free_blocks.push_back(se);
      --live;
      ++mine.settled;
    }
  }

  // Whether dense tile d holds a target that the source of rank `own` serves.
  static bool wanted(const SweepQuery& q, std::uint32_t own, std::uint64_t d) {
    const std::int32_t list = q.targets.list_of[d];
    return list >= 0 && (q.rank.empty() || q.targets.list_max[static_cast<std::size_t>(list)] > own);
  }

  // The targets in dense tile d reached from its ring labels `label`.
  void harvest(const SweepQuery& q, std::uint64_t v, std::uint32_t own, std::uint64_t d, const PathLength* label) const {
    for (const SweepTarget& target : *q.targets.lists[static_cast<std::size_t>(q.targets.list_of[d])]) {
      if (!q.rank.empty() && q.rank[target.site] <= own) continue;
      PathLength& out = q.best[v * q.k + target.site];
      for (std::uint32_t r = 0; r < g.b_; ++r) {
        const PathLength via = min_plus_add(label[r], target.ring[r]);
        if (via < out) out = via;
      }
    }
  }

  void reset() {
    for (std::uint64_t d : touched) slot_of[d] = kNotReached;
    touched.clear();
    free_blocks.clear();
    blocks = 0;
    live = 0;
    queue = {};
    settle = {};
  }
};

void GPrimeSweep::run(const std::vector<std::vector<SweepSeed>>& sources,
                      const std::unordered_map<std::uint64_t, std::vector<SweepTarget>>& targets,
                      const std::vector<std::uint32_t>& rank, PathLength* best, Progress& progress,
                      GPrimeSweepStats* stats) const {
  const std::uint64_t k = sources.size();
  const bool only_later = !rank.empty();
  if (only_later && rank.size() != k) throw Error("sweep: " + std::to_string(rank.size()) + " ranks for " + std::to_string(k) + " sources");
  std::vector<std::uint32_t> by_rank(k);  // the sources in the order they run
  for (std::uint32_t v = 0; v < k; ++v) by_rank[only_later ? rank[v] : v] = v;
  const SweepTargets indexed = index_targets(tile_of_, targets, rank);
  const SweepQuery query{sources, indexed, rank, best, k};
  // The sources on threads_ threads (this one among them), taken in rank order.
  std::atomic<std::uint64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // progress, stats, the first error
  std::exception_ptr error;
  GPrimeSweepStats total;
  progress.update("od-matrix: queries", 0, k);
  auto worker = [&]() {
    try {
      Source src(*this);
      GPrimeSweepStats mine;
      for (std::uint64_t at; !stop && (at = next++) < k;) {
        src.sweep(query, by_rank[at], mine);
        std::lock_guard<std::mutex> lock(mutex);
        progress.update("od-matrix: queries", ++done, k);
      }
      std::lock_guard<std::mutex> lock(mutex);
      total.tile_solves += mine.tile_solves;
      total.settled += mine.settled;
      total.stopped_early += mine.stopped_early;
      total.max_live = std::max(total.max_live, mine.max_live);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(threads_, std::max<std::uint64_t>(1, k)));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  if (stats) *stats = total;
}

}  // namespace terrazo
