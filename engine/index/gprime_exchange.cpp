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

GPrimeLabels gprime_exchange(GPrimeTiles& tiles, const TileGrid& grid, std::uint64_t kb,
                             const std::vector<GPrimeSeed>& seeds, const GPrimeExchangeOptions& options,
                             GPrimeStats* stats) {
  GPrimeStats local;
  GPrimeStats& st = stats ? *stats : local;
  const std::uint32_t t = grid.tile;
  const std::uint32_t b = ring_size(t);
  const std::uint32_t tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  const std::uint64_t round_limit = std::max<std::uint64_t>(1, tiles.round_tiles());
  struct TileLabels {
    std::vector<PathLength> label, delta;  // batch x b each, source-major
    std::vector<std::uint32_t> dirty;      // sources with pending (delta) labels
    std::vector<char> is_dirty;            // batch
    PathLength queued = kUnreached;        // key it is queued with (kUnreached: not queued)
  };
  // A round's vectors: per vector its tile, source, and x (the pending labels), y (the labels), the
  // labels before the solve (entries offered since the last solve count as changed).
  std::vector<PathLength> xs, ys, before;
  std::vector<std::uint64_t> vector_tile;
  std::vector<std::uint32_t> vector_source;
  std::vector<std::uint64_t> round;              // the round's tiles
  std::vector<std::uint64_t> round_first;        // first vector of each round tile (+ end)
  std::vector<std::uint64_t> first_of, fill_at;
  std::vector<std::uint32_t> improved_sources;
  std::vector<double> ring;
  const RingSteps ring_steps = ring_out_steps(t, options.connectivity);
  struct Neighbour {
    bool fetched = false, present = false;
    std::uint64_t tile = 0;
    std::vector<double> ring;
    TileLabels* labels = nullptr;
  };
  std::array<Neighbour, 9> around;  // the 3 x 3 tiles around the one solved
  const std::uint64_t vector_entries = kb * b;
  std::unordered_map<std::uint64_t, TileLabels> labels;
  using Item = std::pair<PathLength, std::uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  auto labels_of = [&](std::uint64_t tile) -> TileLabels& {
    TileLabels& l = labels[tile];
    if (l.label.empty()) {
      l.label.assign(vector_entries, kUnreached);
      l.delta.assign(vector_entries, kUnreached);
      l.is_dirty.assign(kb, 0);
    }
    return l;
  };
  // Offers label d to ring cell q of `tile` for source v: kept when it improves.
  auto offer = [&](std::uint64_t tile, TileLabels& l, std::uint64_t v, std::uint32_t q, PathLength d) {
    if (d > options.max_cost || d >= l.label[v * b + q]) return;
    l.label[v * b + q] = d;
    l.delta[v * b + q] = d;
    if (!l.is_dirty[v]) {
      l.is_dirty[v] = 1;
      l.dirty.push_back(static_cast<std::uint32_t>(v));
    }
    if (d < l.queued) {
      l.queued = d;
      queue.push({d, tile});
    }
  };
  for (const GPrimeSeed& seed : seeds) {
    TileLabels& l = labels_of(seed.tile);
    for (std::uint32_t p = 0; p < b; ++p) offer(seed.tile, l, seed.source, p, seed.ring[p]);
  }
  while (!queue.empty()) {
    // The round: up to round_limit tiles in the order of their smallest pending label.
    round.clear();
    while (!queue.empty() && round.size() < round_limit) {
      const auto [key, tile] = queue.top();
      queue.pop();
      TileLabels& l = labels.at(tile);
      if (key != l.queued) continue;  // stale
      l.queued = kUnreached;
      round.push_back(tile);
    }
    if (round.empty()) break;
    ++st.rounds;
    st.tile_solves += round.size();
    // Gather the pending sources of every round tile: one vector each.
    vector_tile.clear();
    vector_source.clear();
    round_first.clear();
    for (std::uint64_t tile : round) {
      round_first.push_back(vector_tile.size());
      TileLabels& l = labels.at(tile);
      for (std::uint32_t v : l.dirty) {
        l.is_dirty[v] = 0;
        vector_tile.push_back(tile);
        vector_source.push_back(v);
      }
      l.dirty.clear();
    }
    round_first.push_back(vector_tile.size());
    const std::uint64_t n = vector_tile.size();
    xs.resize(n * b);
    ys.resize(n * b);
    before.resize(n * b);
    for (std::uint64_t e = 0; e < n; ++e) {
      TileLabels& l = labels.at(vector_tile[e]);
      const std::uint64_t v = vector_source[e];
      PathLength* delta = l.delta.data() + v * b;
      const PathLength* label = l.label.data() + v * b;
      PathLength* was = before.data() + e * b;
      for (std::uint32_t p = 0; p < b; ++p) was[p] = delta[p] != kUnreached ? kUnreached : label[p];
      std::copy(delta, delta + b, xs.data() + e * b);
      std::copy(label, label + b, ys.data() + e * b);
      std::fill(delta, delta + b, kUnreached);
    }
    tiles.relax(vector_tile.data(), n, xs.data(), ys.data());
    for (std::uint64_t e = 0; e < n; ++e) {
      PathLength* y = labels.at(vector_tile[e]).label.data() + static_cast<std::uint64_t>(vector_source[e]) * b;
      const PathLength* solved = ys.data() + e * b;
      for (std::uint32_t p = 0; p < b; ++p)  // beyond the limit: unreached, as the block solver leaves it
        y[p] = solved[p] > options.max_cost ? kUnreached : solved[p];
    }
    // Push each round tile's improved ring labels across the grid edges to the neighbouring tiles;
    // each neighbour's ring values and labels are looked up once per tile.
    for (std::uint64_t r = 0; r < round.size(); ++r) {
      const std::uint64_t tile = round[r];
      TileLabels& l = labels.at(tile);
      const std::uint64_t e0 = round_first[r], e1 = round_first[r + 1];
      if (e0 == e1) continue;
      tiles.ring_values(tile, &ring);
      const std::uint32_t tx = static_cast<std::uint32_t>(tile % tiles_x), ty = static_cast<std::uint32_t>(tile / tiles_x);
      for (Neighbour& nb : around) nb.fetched = false;
      // The improved (ring position, source) pairs grouped by position (a counting sort; the scans
      // run along each source's contiguous vector).
      first_of.assign(b + 1, 0);
      for (std::uint64_t e = e0; e < e1; ++e) {
        const PathLength* now = l.label.data() + static_cast<std::uint64_t>(vector_source[e]) * b;
        const PathLength* was = before.data() + e * b;
        for (std::uint32_t p = 0; p < b; ++p) first_of[p + 1] += now[p] < was[p];
      }
      for (std::uint32_t p = 0; p < b; ++p) first_of[p + 1] += first_of[p];
      improved_sources.resize(first_of[b]);
      fill_at.assign(first_of.begin(), first_of.end() - 1);
      for (std::uint64_t e = e0; e < e1; ++e) {
        const PathLength* now = l.label.data() + static_cast<std::uint64_t>(vector_source[e]) * b;
        const PathLength* was = before.data() + e * b;
        for (std::uint32_t p = 0; p < b; ++p)
          if (now[p] < was[p]) improved_sources[fill_at[p]++] = vector_source[e];
      }
      for (std::uint32_t p = 0; p < b; ++p) {
        if (first_of[p] == first_of[p + 1]) continue;
        for (std::uint32_t k = ring_steps.first[p]; k < ring_steps.first[p + 1]; ++k) {
          const RingStep& step = ring_steps.steps[k];
          const std::int64_t ntx = static_cast<std::int64_t>(tx) + step.dx, nty = static_cast<std::int64_t>(ty) + step.dy;
          if (ntx < 0 || nty < 0 || ntx >= static_cast<std::int64_t>(tiles_x) || nty >= static_cast<std::int64_t>(tiles_y)) continue;
          Neighbour& nb = around[step.neighbour()];
          if (!nb.fetched) {
            nb.fetched = true;
            nb.tile = static_cast<std::uint64_t>(nty) * tiles_x + static_cast<std::uint64_t>(ntx);
            nb.present = tiles.present(nb.tile);
            if (nb.present) {
              tiles.ring_values(nb.tile, &nb.ring);
              nb.labels = &labels_of(nb.tile);  // unordered_map: references stay valid on insertion
            }
          }
          if (!nb.present) continue;
          bool overflow = false;
          std::uint32_t lx, ly;
          ring_cell_of(t, p, &lx, &ly);
          const Weight w = step_weight(options.params, ring[p], nb.ring[step.q], step.dir,
                                       static_cast<std::int64_t>(ty) * t + ly - options.params.steps.row0, &overflow);
          if (w == kNoEdge) continue;
          for (std::uint64_t e = first_of[p]; e < first_of[p + 1]; ++e) {
            const std::uint64_t v = improved_sources[e];
            offer(nb.tile, *nb.labels, v, step.q, l.label[v * b + p] + w);
          }
        }
      }
    }
  }
  GPrimeLabels out;
  for (auto& [tile, l] : labels) out.emplace(tile, std::move(l.label));
  return out;
}

}  // namespace terrazo
