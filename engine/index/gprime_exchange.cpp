// engine/index/gprime_exchange.cpp: gprime_exchange (engine/index/gprime_exchange.h).
#include "engine/index/gprime_exchange.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <queue>

#include "kernels/common/error.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/index/boundary_ring.h"

namespace terrazo {

void check_index_fits(const IndexFile& index, const TileGrid& grid, const WeightParams& params, Connectivity connectivity) {
  const IndexFileHeader& h = index.header();
  if (h.width != grid.width || h.height != grid.height)
    throw UsageError("--index was built for a raster of " + std::to_string(h.width) + " x " + std::to_string(h.height) +
                     " cells, INPUT is " + std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                     ": build an index of INPUT with `terrazo index`");
  if (h.tile != grid.tile) throw Error("the index's tile " + std::to_string(h.tile) + " differs from the input's " + std::to_string(grid.tile));
  if (h.model != params.model || h.connectivity != connectivity || h.scale != params.scale ||
      h.offset != params.offset)
    throw UsageError(std::string("--index was built with --weight ") + to_string(h.model) + " --connectivity " +
                     to_string(h.connectivity) + " --scale " + std::to_string(h.scale) + ", this query asks for --weight " +
                     to_string(params.model) + " --connectivity " + to_string(connectivity) +
                     " --scale " + std::to_string(params.scale) + ": give the index's flags or rebuild it");
  // Step lengths (--distance): an index holds uniform ones (cells or map); geodesic lengths vary by row.
  auto lengths = [](double ew, double ns, double diag) {
    char buffer[128];
    std::snprintf(buffer, sizeof buffer, "%.17g, %.17g, %.17g", ew, ns, diag);
    return std::string(buffer);
  };
  const std::string built = std::string(h.distance == 0 ? "cells" : "map") + " (step lengths " +
                            lengths(h.step_ew, h.step_ns, h.step_diag) + ")";
  if (params.steps.rows != nullptr)
    throw UsageError("--index was built with --distance " + built +
                     "; --distance geodesic varies by row and has no index: drop --index");
  if (params.steps.ew != h.step_ew || params.steps.ns != h.step_ns || params.steps.diag != h.step_diag)
    throw UsageError("--index was built with --distance " + built + ", this query's step lengths are " +
                     lengths(params.steps.ew, params.steps.ns, params.steps.diag) +
                     ": give the index's --distance or rebuild it");
}

void check_index_tile(const IndexFile& index, std::uint64_t tile, const double* values, const std::string& what) {
  const std::uint32_t t = index.header().tile;
  if (index_values_crc(values, static_cast<std::uint64_t>(t) * t) != index.entry(tile).values_crc) {
    const std::uint32_t tiles_x = index.header().grid().tiles_x();
    throw UsageError("--index was built for another raster: the cells of tile " + std::to_string(tile % tiles_x) + "," +
                     std::to_string(tile / tiles_x) + " (holding " + what +
                     ") differ from those indexed (fingerprint); build an index of INPUT with `terrazo index`");
  }
}

RingSteps ring_out_steps(std::uint32_t t, Connectivity connectivity) {
  const std::uint32_t b = ring_size(t);
  RingSteps out;
  out.first.assign(b + 1, 0);
  for (std::uint32_t p = 0; p < b; ++p) {
    std::uint32_t lx, ly;
    ring_cell_of(t, p, &lx, &ly);
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const std::int64_t nx = static_cast<std::int64_t>(lx) + kDirDx[dir], ny = static_cast<std::int64_t>(ly) + kDirDy[dir];
      const int dx = nx < 0 ? -1 : nx >= static_cast<std::int64_t>(t) ? 1 : 0;
      const int dy = ny < 0 ? -1 : ny >= static_cast<std::int64_t>(t) ? 1 : 0;
      if (dx == 0 && dy == 0) continue;  // inside the tile: the matrix covers it
      const auto q = ring_position(t, static_cast<std::uint32_t>(nx - dx * static_cast<std::int64_t>(t)),
                                   static_cast<std::uint32_t>(ny - dy * static_cast<std::int64_t>(t)));
      out.steps.push_back(RingStep{dir, dx, dy, static_cast<std::uint32_t>(q)});
    }
    out.first[p + 1] = static_cast<std::uint32_t>(out.steps.size());
  }
  return out;
}

namespace {
// The queue exchange of one batch of sources (the contract in gprime_exchange.h). Stages: seed,
// then rounds of take_round (the tiles with the smallest pending labels), gather_vectors, solve_round
// (the tiles' relax) and push_tile (improved ring labels across the grid edges).
class GPrimeQueue {
 public:
  GPrimeQueue(GPrimeTiles& tiles, const TileGrid& grid, std::uint64_t kb, const GPrimeExchangeOptions& options,
              GPrimeStats& st)
      : tiles_(tiles),
        options_(options),
        st_(st),
        t_(grid.tile),
        b_(ring_size(t_)),
        tiles_x_(grid.tiles_x()),
        tiles_y_(grid.tiles_y()),
        kb_(kb),
        round_limit_(std::max<std::uint64_t>(1, tiles.round_tiles())),
        ring_steps_(ring_out_steps(t_, options.connectivity)) {}
  GPrimeLabels run(const std::vector<GPrimeSeed>& seeds);

 private:
  struct TileLabels {
    std::vector<PathLength> label, delta;  // batch x b each, source-major
    std::vector<std::uint32_t> dirty;      // sources with pending (delta) labels
    std::vector<char> is_dirty;            // batch
    PathLength queued = kUnreached;        // key it is queued with (kUnreached: not queued)
  };
  struct Neighbour {
    bool fetched = false, present = false;
    std::uint64_t tile = 0;
    std::vector<double> ring;
    TileLabels* labels = nullptr;
  };
  using Item = std::pair<PathLength, std::uint64_t>;

  bool take_round();
  void gather_vectors();
  void solve_round();
  void push_tile(std::uint64_t r);
  void group_improved(const TileLabels& l, std::uint64_t e0, std::uint64_t e1);
  Neighbour& neighbour(const RingStep& step, std::uint32_t tx, std::uint32_t ty);

  TileLabels& labels_of(std::uint64_t tile) {
    TileLabels& l = labels_[tile];
    if (l.label.empty()) {
      l.label.assign(kb_ * b_, kUnreached);
      l.delta.assign(kb_ * b_, kUnreached);
      l.is_dirty.assign(kb_, 0);
    }
    return l;
  }
  // Offers label d to ring cell q of `tile` for source v: kept when it improves.
  void offer(std::uint64_t tile, TileLabels& l, std::uint64_t v, std::uint32_t q, PathLength d) {
    if (d > options_.max_cost || d >= l.label[v * b_ + q]) return;
    l.label[v * b_ + q] = d;
    l.delta[v * b_ + q] = d;
    if (!l.is_dirty[v]) {
      l.is_dirty[v] = 1;
      l.dirty.push_back(static_cast<std::uint32_t>(v));
    }
    if (d < l.queued) {
      l.queued = d;
      queue_.push({d, tile});
    }
  }

  GPrimeTiles& tiles_;
  const GPrimeExchangeOptions& options_;
  GPrimeStats& st_;
  const std::uint32_t t_, b_, tiles_x_, tiles_y_;
  const std::uint64_t kb_, round_limit_;
  const RingSteps ring_steps_;
  // A round's vectors: per vector its tile, source, and x (the pending labels), y (the labels), the
  // labels before the solve (entries offered since the last solve count as changed).
  std::vector<PathLength> xs_, ys_, before_;
  std::vector<std::uint64_t> vector_tile_;
  std::vector<std::uint32_t> vector_source_;
  std::vector<std::uint64_t> round_;        // the round's tiles
  std::vector<std::uint64_t> round_first_;  // first vector of each round tile (+ end)
  // A round tile's improved (ring position, source) pairs grouped by position: the sources of
  // position p are improved_sources_[first_of_[p], first_of_[p + 1]).
  std::vector<std::uint64_t> first_of_, fill_at_;
  std::vector<std::uint32_t> improved_sources_;
  std::vector<double> ring_;
  std::array<Neighbour, 9> around_;  // the 3 x 3 tiles around the one solved
  std::unordered_map<std::uint64_t, TileLabels> labels_;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue_;
};

GPrimeLabels GPrimeQueue::run(const std::vector<GPrimeSeed>& seeds) {
  for (const GPrimeSeed& seed : seeds) {
    TileLabels& l = labels_of(seed.tile);
    for (std::uint32_t p = 0; p < b_; ++p) offer(seed.tile, l, seed.source, p, seed.ring[p]);
  }
  while (take_round()) {
    ++st_.rounds;
    st_.tile_solves += round_.size();
    gather_vectors();
    solve_round();
    for (std::uint64_t r = 0; r < round_.size(); ++r) push_tile(r);
  }
  GPrimeLabels out;
  for (auto& [tile, l] : labels_) out.emplace(tile, std::move(l.label));
  return out;
}

// The round: up to round_limit tiles in the order of their smallest pending label; false when none.
bool GPrimeQueue::take_round() {
  round_.clear();
  while (!queue_.empty() && round_.size() < round_limit_) {
    const auto [key, tile] = queue_.top();
    queue_.pop();
    TileLabels& l = labels_.at(tile);
    if (key != l.queued) continue;  // stale
    l.queued = kUnreached;
    round_.push_back(tile);
  }
  return !round_.empty();
}

// The pending sources of every round tile: one vector each (x: the pending labels, y: the labels).
void GPrimeQueue::gather_vectors() {
  vector_tile_.clear();
  vector_source_.clear();
  round_first_.clear();
  for (std::uint64_t tile : round_) {
    round_first_.push_back(vector_tile_.size());
    TileLabels& l = labels_.at(tile);
    for (std::uint32_t v : l.dirty) {
      l.is_dirty[v] = 0;
      vector_tile_.push_back(tile);
      vector_source_.push_back(v);
    }
    l.dirty.clear();
  }
  round_first_.push_back(vector_tile_.size());
  const std::uint64_t n = vector_tile_.size(), b = b_;
  xs_.resize(n * b);
  ys_.resize(n * b);
  before_.resize(n * b);
  for (std::uint64_t e = 0; e < n; ++e) {
    TileLabels& l = labels_.at(vector_tile_[e]);
    const std::uint64_t v = vector_source_[e];
    PathLength* delta = l.delta.data() + v * b;
    const PathLength* label = l.label.data() + v * b;
    PathLength* was = before_.data() + e * b;
    for (std::uint32_t p = 0; p < b; ++p) was[p] = delta[p] != kUnreached ? kUnreached : label[p];
    std::copy(delta, delta + b, xs_.data() + e * b);
    std::copy(label, label + b, ys_.data() + e * b);
    std::fill(delta, delta + b, kUnreached);
  }
}

// The round's relax; the solved labels go back to the tiles.
void GPrimeQueue::solve_round() {
  const std::uint64_t n = vector_tile_.size(), b = b_;
  tiles_.relax(vector_tile_.data(), n, xs_.data(), ys_.data());
  for (std::uint64_t e = 0; e < n; ++e) {
    PathLength* y = labels_.at(vector_tile_[e]).label.data() + static_cast<std::uint64_t>(vector_source_[e]) * b;
    const PathLength* solved = ys_.data() + e * b;
    for (std::uint32_t p = 0; p < b; ++p)  // beyond the limit: unreached, as the block solver leaves it
      y[p] = solved[p] > options_.max_cost ? kUnreached : solved[p];
  }
}

// Round tile r's improved ring labels pushed across the grid edges to the neighbouring tiles; each
// neighbour's ring values and labels are looked up once per tile.
void GPrimeQueue::push_tile(std::uint64_t r) {
  const std::uint64_t tile = round_[r];
  TileLabels& l = labels_.at(tile);
  const std::uint64_t e0 = round_first_[r], e1 = round_first_[r + 1];
  if (e0 == e1) return;
  tiles_.ring_values(tile, &ring_);
  const std::uint32_t tx = static_cast<std::uint32_t>(tile % tiles_x_), ty = static_cast<std::uint32_t>(tile / tiles_x_);
  for (Neighbour& nb : around_) nb.fetched = false;
  group_improved(l, e0, e1);
  const std::uint32_t t = t_, b = b_;
  for (std::uint32_t p = 0; p < b; ++p) {
    if (first_of_[p] == first_of_[p + 1]) continue;
    for (std::uint32_t k = ring_steps_.first[p]; k < ring_steps_.first[p + 1]; ++k) {
      const RingStep& step = ring_steps_.steps[k];
      const std::int64_t ntx = static_cast<std::int64_t>(tx) + step.dx, nty = static_cast<std::int64_t>(ty) + step.dy;
      if (ntx < 0 || nty < 0 || ntx >= static_cast<std::int64_t>(tiles_x_) || nty >= static_cast<std::int64_t>(tiles_y_)) continue;
      Neighbour& nb = neighbour(step, static_cast<std::uint32_t>(ntx), static_cast<std::uint32_t>(nty));
      if (!nb.present) continue;
      bool overflow = false;
      std::uint32_t lx, ly;
      ring_cell_of(t, p, &lx, &ly);
      const Weight w = step_weight(options_.params, ring_[p], nb.ring[step.q], step.dir,
                                   static_cast<std::int64_t>(ty) * t + ly - options_.params.steps.row0, &overflow);
      if (w == kNoEdge) continue;
      for (std::uint64_t e = first_of_[p]; e < first_of_[p + 1]; ++e) {
        const std::uint64_t v = improved_sources_[e];
        offer(nb.tile, *nb.labels, v, step.q, l.label[v * b + p] + w);
      }
    }
  }
}

// The improved (ring position, source) pairs of vectors [e0, e1) grouped by position (a counting
// sort; the scans run along each source's contiguous vector).
void GPrimeQueue::group_improved(const TileLabels& l, std::uint64_t e0, std::uint64_t e1) {
  const std::uint32_t b = b_;
  first_of_.assign(b + 1, 0);
  for (std::uint64_t e = e0; e < e1; ++e) {
    const PathLength* now = l.label.data() + static_cast<std::uint64_t>(vector_source_[e]) * b;
    const PathLength* was = before_.data() + e * b;
    for (std::uint32_t p = 0; p < b; ++p) first_of_[p + 1] += now[p] < was[p];
  }
  for (std::uint32_t p = 0; p < b; ++p) first_of_[p + 1] += first_of_[p];
  improved_sources_.resize(first_of_[b]);
  fill_at_.assign(first_of_.begin(), first_of_.end() - 1);
  for (std::uint64_t e = e0; e < e1; ++e) {
    const PathLength* now = l.label.data() + static_cast<std::uint64_t>(vector_source_[e]) * b;
    const PathLength* was = before_.data() + e * b;
    for (std::uint32_t p = 0; p < b; ++p)
      if (now[p] < was[p]) improved_sources_[fill_at_[p]++] = vector_source_[e];
  }
}

// The neighbour tile (ntx, nty) that `step` crosses to, its ring values and labels fetched once.
GPrimeQueue::Neighbour& GPrimeQueue::neighbour(const RingStep& step, std::uint32_t ntx, std::uint32_t nty) {
  Neighbour& nb = around_[step.neighbour()];
  if (nb.fetched) return nb;
  nb.fetched = true;
  nb.tile = static_cast<std::uint64_t>(nty) * tiles_x_ + ntx;
  nb.present = tiles_.present(nb.tile);
  if (nb.present) {
    tiles_.ring_values(nb.tile, &nb.ring);
    nb.labels = &labels_of(nb.tile);  // unordered_map: references stay valid on insertion
  }
  return nb;
}
}  // namespace

GPrimeLabels gprime_exchange(GPrimeTiles& tiles, const TileGrid& grid, std::uint64_t kb,
                             const std::vector<GPrimeSeed>& seeds, const GPrimeExchangeOptions& options,
                             GPrimeStats* stats) {
  GPrimeStats local;
  GPrimeQueue queue(tiles, grid, kb, options, stats ? *stats : local);
  return queue.run(seeds);
}

}  // namespace terrazo
