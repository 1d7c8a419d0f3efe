// engine/index/gprime_exchange.cpp: gprime_exchange (engine/index/gprime_exchange.h).
#include "engine/index/gprime_exchange.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "core/error.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/index/min_plus.h"

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

GPrimeLabels gprime_exchange(const IndexFile& index, IndexTileCache& cache, const TileGrid& grid, std::uint64_t kb,
                             const std::vector<GPrimeSeed>& seeds, const GPrimeExchangeOptions& options,
                             GPrimeStats* stats) {
  GPrimeStats local;
  GPrimeStats& st = stats ? *stats : local;
  const std::uint32_t t = grid.tile;
  const std::uint32_t b = ring_size(t);
  const std::uint32_t tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  struct TileLabels {
    std::vector<PathLength> label, delta;  // batch x b each, source-major
    std::vector<std::uint32_t> dirty;      // sources with pending (delta) labels
    std::vector<char> is_dirty;            // batch
    PathLength queued = kUnreached;        // key it is queued with (kUnreached: not queued)
  };
  std::vector<PathLength> before;
  std::vector<std::uint32_t> solving;
  {
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
      const auto [key, tile] = queue.top();
      queue.pop();
      TileLabels& l = labels.at(tile);
      if (key != l.queued) continue;  // stale
      l.queued = kUnreached;
      ++st.tile_solves;
      const IndexTileCache::Entry& entry = cache.get(tile);
      // The sources with pending labels, one product each; `before` holds their labels as the previous
      // solve left them (entries offered since count as changed).
      solving.swap(l.dirty);
      l.dirty.clear();
      before.resize(solving.size() * static_cast<std::uint64_t>(b));
      for (std::uint64_t i = 0; i < solving.size(); ++i) {
        const std::uint64_t v = solving[i];
        l.is_dirty[v] = 0;
        PathLength* was = before.data() + i * b;
        PathLength* delta = l.delta.data() + v * b;
        for (std::uint32_t p = 0; p < b; ++p) was[p] = delta[p] != kUnreached ? kUnreached : l.label[v * b + p];
        min_plus_product_cpu(entry.matrix.data(), b, delta, 1, l.label.data() + v * b);
        if (options.max_cost != kUnreached) {  // beyond the limit: unreached, as the block solver leaves it
          PathLength* y = l.label.data() + v * b;
          for (std::uint32_t p = 0; p < b; ++p)
            if (y[p] > options.max_cost) y[p] = kUnreached;
        }
        std::fill(delta, delta + b, kUnreached);
      }
      const std::vector<double> ring = entry.ring;  // the cache may evict the entry below
      // Push the improved ring labels across the grid edges to the neighbouring tiles.
      const std::uint32_t tx = static_cast<std::uint32_t>(tile % tiles_x), ty = static_cast<std::uint32_t>(tile / tiles_x);
      for (std::uint32_t p = 0; p < b; ++p) {
        bool improved = false;
        for (std::uint64_t i = 0; i < solving.size() && !improved; ++i)
          improved = l.label[solving[i] * static_cast<std::uint64_t>(b) + p] < before[i * b + p];
        if (!improved) continue;
        std::uint32_t lx, ly;
        ring_cell_of(t, p, &lx, &ly);
        const std::int64_t gx = static_cast<std::int64_t>(tx) * t + lx, gy = static_cast<std::int64_t>(ty) * t + ly;
        for (int dir = 0; dir < 8; ++dir) {
          if (!direction_used(dir, options.connectivity)) continue;
          const std::int64_t nx = gx + kDirDx[dir], ny = gy + kDirDy[dir];
          if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(grid.width) || ny >= static_cast<std::int64_t>(grid.height)) continue;
          const std::uint32_t ntx = static_cast<std::uint32_t>(nx / t), nty = static_cast<std::uint32_t>(ny / t);
          if ((ntx == tx && nty == ty) || ntx >= tiles_x || nty >= tiles_y) continue;
          const std::uint64_t ntile = static_cast<std::uint64_t>(nty) * tiles_x + ntx;
          if (index.entry(ntile).offset == 0) continue;  // no valid ring cell there
          const std::uint32_t q = static_cast<std::uint32_t>(ring_position(t, static_cast<std::uint32_t>(nx % t), static_cast<std::uint32_t>(ny % t)));
          bool overflow = false;
          const Weight w = edge_weight(options.params, ring[p], cache.get(ntile).ring[q], is_diagonal(dir), &overflow);
          if (w == kNoEdge) continue;
          TileLabels& n = labels_of(ntile);
          TileLabels& self = labels.at(tile);  // labels_of may have rehashed the map
          for (std::uint64_t i = 0; i < solving.size(); ++i) {
            const std::uint64_t v = solving[i];
            const PathLength d = self.label[v * b + p];
            if (d == kUnreached || d >= before[i * b + p]) continue;
            offer(ntile, n, v, q, d + w);
          }
        }
      }
    }
    GPrimeLabels out;
    for (auto& [tile, l] : labels) out.emplace(tile, std::move(l.label));
    return out;
  }
}

}  // namespace terrazo
