// engine/index/od_matrix.cpp: od_matrix_by_index and od_matrix_by_exchange (engine/index/od_matrix.h).
#include "engine/index/od_matrix.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <queue>
#include <unordered_map>
#include <utility>

#include "core/error.h"
#include "core/timer.h"
#include "engine/sssp/distance_store.h"
#include "engine/sssp/exchange.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/index/min_plus.h"
#include "kernels/sssp/block_sssp.h"

namespace terrazo {
namespace {

struct SiteTile {
  std::uint64_t tile = 0;
  std::vector<std::uint32_t> sites;  // indices into the site list
};

// Sites grouped by tile (row-major tile index), in tile order.
std::vector<SiteTile> group_sites(const TileGrid& grid, const std::vector<OdSite>& sites) {
  std::map<std::uint64_t, std::vector<std::uint32_t>> by_tile;
  for (std::uint32_t i = 0; i < sites.size(); ++i) {
    const std::uint64_t x = sites[i].cell % grid.width, y = sites[i].cell / grid.width;
    by_tile[(y / grid.tile) * grid.tiles_x() + x / grid.tile].push_back(i);
  }
  std::vector<SiteTile> out;
  for (auto& [tile, list] : by_tile) out.push_back(SiteTile{tile, std::move(list)});
  return out;
}

std::uint32_t local_of(const TileGrid& grid, std::uint64_t cell) {
  const std::uint64_t x = cell % grid.width, y = cell / grid.width;
  return static_cast<std::uint32_t>((y % grid.tile) * grid.tile + x % grid.tile);
}

// The LRU cache of index tiles (ring values and expanded matrices).
class IndexTileCache {
 public:
  struct Entry {
    std::vector<double> ring;
    std::vector<PathLength> matrix;
  };
  IndexTileCache(const IndexFile& index, std::uint64_t capacity) : index_(index), capacity_(std::max<std::uint64_t>(2, capacity)) {}
  const Entry& get(std::uint64_t tile) {
    auto it = map_.find(tile);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.second);
      return it->second.first;
    }
    Entry entry;
    if (map_.size() >= capacity_) {
      const std::uint64_t victim = lru_.back();
      lru_.pop_back();
      auto v = map_.find(victim);
      entry = std::move(v->second.first);
      map_.erase(v);
    }
    const std::uint32_t b = ring_size(index_.header().tile);
    entry.ring.resize(b);
    entry.matrix.resize(static_cast<std::uint64_t>(b) * b);
    index_.read_tile(tile, entry.ring.data(), entry.matrix.data());
    ++loads_;
    lru_.push_front(tile);
    auto& slot = map_[tile];
    slot.first = std::move(entry);
    slot.second = lru_.begin();
    return slot.first;
  }
  std::uint64_t loads() const { return loads_; }
  std::uint64_t capacity() const { return capacity_; }

 private:
  const IndexFile& index_;
  std::uint64_t capacity_;
  std::unordered_map<std::uint64_t, std::pair<Entry, std::list<std::uint64_t>::iterator>> map_;
  std::list<std::uint64_t> lru_;
  std::uint64_t loads_ = 0;
};

}  // namespace

std::vector<PathLength> od_matrix_by_index(const TileInput& input, const IndexFile& index, const std::vector<OdSite>& sites,
                                           const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                           OdQueryStats* stats) {
  OdQueryStats local_stats;
  OdQueryStats& st = stats ? *stats : local_stats;
  const TileGrid& grid = input.grid();
  const IndexFileHeader& h = index.header();
  const std::uint32_t t = grid.tile;
  if (h.width != grid.width || h.height != grid.height)
    throw UsageError("--index was built for a raster of " + std::to_string(h.width) + " x " + std::to_string(h.height) +
                     " cells, INPUT is " + std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                     ": build an index of INPUT with `terrazo index`");
  if (h.tile != t) throw Error("od-matrix: the index's tile " + std::to_string(h.tile) + " differs from the input's " + std::to_string(t));
  if (h.model != options.params.model || h.connectivity != options.connectivity || h.scale != options.params.scale ||
      h.offset != options.params.offset)
    throw UsageError(std::string("--index was built with --weight ") + to_string(h.model) + " --connectivity " +
                     to_string(h.connectivity) + " --scale " + std::to_string(h.scale) + ", this query asks for --weight " +
                     to_string(options.params.model) + " --connectivity " + to_string(options.connectivity) +
                     " --scale " + std::to_string(options.params.scale) + ": give the index's flags or rebuild it");
  const std::uint64_t k = sites.size();
  const std::uint32_t b = ring_size(t);
  const std::uint64_t tiles = grid.tile_count();
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t, halo = static_cast<std::uint64_t>(t + 2) * (t + 2);
  const std::uint64_t entry_bytes = static_cast<std::uint64_t>(b) * b * 8 + b * 8 + 64;
  // Fixed needs: labels, site ring vectors, in-tile solve buffers, the results.
  const std::uint64_t fixed = k * b * 8 + halo * 16 + cells * 9 + k * k * 8;
  MemoryBudget::Reservation fixed_reservation = budget.reserve(fixed, "od-matrix labels and site vectors");
  // Labels of a batch of sources: 2 x 8 bytes per ring cell and source (every tile reached, worst
  // case), from half of what is left; the matrix cache gets the rest.
  const std::uint64_t per_source = tiles * b * 16 + 64 * tiles;
  const std::uint64_t label_room = budget.available() / 2;
  if (per_source > label_room)
    throw Error("memory budget too small for od-matrix with the index: the labels of one source need " +
                MemoryBudget::format_size(per_source) + " and only " + MemoryBudget::format_size(label_room) +
                " is left for them; raise --memory");
  const std::uint64_t label_batch = std::min<std::uint64_t>(k, label_room / per_source);
  MemoryBudget::Reservation label_reservation = budget.reserve(label_batch * per_source, "od-matrix G' labels");
  std::uint64_t cache_bytes = options.cache_bytes;
  if (cache_bytes == 0) {
    const std::uint64_t keep = 1ull << 20;
    cache_bytes = budget.available() > keep ? budget.available() - keep : 0;
  }
  cache_bytes = std::min(cache_bytes, tiles * entry_bytes + 2 * entry_bytes);
  if (cache_bytes < 2 * entry_bytes) cache_bytes = 2 * entry_bytes;
  MemoryBudget::Reservation cache_reservation = budget.reserve(cache_bytes, "od-matrix index tile cache");
  IndexTileCache cache(index, cache_bytes / entry_bytes);
  st.cache_tiles = cache.capacity();

  std::vector<PathLength> result(k * k, kUnreached);
  std::vector<PathLength> site_ring(k * b, kUnreached);  // in-tile distance from site to its ring
  const std::vector<SiteTile> site_tiles = group_sites(grid, sites);
  std::vector<std::uint64_t> tile_of_site(k);
  // Phase: one in-tile solve per site.
  Stopwatch watch;
  progress.update("od-matrix: sites", 0, k);
  {
    std::vector<double> tile_values(cells), values(halo);
    std::vector<PathLength> dist(halo);
    std::vector<std::uint8_t> changed(cells);
    std::uint64_t done = 0;
    for (const SiteTile& group : site_tiles) {
      const auto tx = static_cast<std::uint32_t>(group.tile % grid.tiles_x()), ty = static_cast<std::uint32_t>(group.tile / grid.tiles_x());
      if (input.tile_present(tx, ty)) input.read_tile(tx, ty, tile_values.data());
      else std::fill(tile_values.begin(), tile_values.end(), std::numeric_limits<double>::quiet_NaN());
      if (index_values_crc(tile_values.data(), cells) != index.entry(group.tile).values_crc)
        throw UsageError("--index was built for another raster: the cells of tile " + std::to_string(tx) + "," +
                         std::to_string(ty) + " (holding " + sites[group.sites.front()].text +
                         ") differ from those indexed (fingerprint); build an index of INPUT with `terrazo index`");
      std::fill(values.begin(), values.end(), std::numeric_limits<double>::quiet_NaN());
      for (std::uint32_t y = 0; y < t; ++y)
        std::copy(tile_values.begin() + static_cast<std::ptrdiff_t>(y) * t, tile_values.begin() + static_cast<std::ptrdiff_t>(y + 1) * t,
                  values.begin() + static_cast<std::ptrdiff_t>(y + 1) * (t + 2) + 1);
      for (std::uint32_t i : group.sites) {
        tile_of_site[i] = group.tile;
        const std::uint32_t l = local_of(grid, sites[i].cell);
        if (std::isnan(tile_values[l])) throw UsageError(sites[i].text + " is on a nodata cell; move it onto valid data");
        std::fill(dist.begin(), dist.end(), kUnreached);
        dist[static_cast<std::uint64_t>(l / t + 1) * (t + 2) + l % t + 1] = 0;
        bool overflow = false;
        block_sssp_cpu(values.data(), t, options.params, options.connectivity, options.max_cost, dist.data(), changed.data(), &overflow);
        if (overflow) throw UsageError("an edge weight overflows at --scale " + std::to_string(options.params.scale));
        auto at = [&](std::uint32_t x, std::uint32_t y) { return dist[static_cast<std::uint64_t>(y + 1) * (t + 2) + x + 1]; };
        for (std::uint32_t p = 0; p < b; ++p) {
          std::uint32_t x, y;
          ring_cell_of(t, p, &x, &y);
          site_ring[i * b + p] = at(x, y);
        }
        for (std::uint32_t j : group.sites) {
          const std::uint32_t m = local_of(grid, sites[j].cell);
          result[i * k + j] = at(m % t, m / t);
        }
        progress.update("od-matrix: sites", ++done, k);
      }
    }
  }
  st.site_tiles = site_tiles.size();
  st.seconds_sites = watch.seconds();
  watch.restart();

  // Phase: the sources in batches of `batch`; per batch a tile-level exchange over G' with one label
  // vector per source: a tile's re-solve is the min-plus product of its matrix with the labels
  // improved since its last solve (kernels/index/min_plus.h), then the improved ring labels are
  // pushed across the grid edges to the neighbouring tiles' rings. Tiles are solved in the order of
  // their smallest pending label (a tile-level Dijkstra order), so most tiles are solved once or twice.
  const std::uint64_t batch = std::max<std::uint64_t>(1, std::min<std::uint64_t>(k, label_batch));
  st.batch_sources = batch;
  const std::uint32_t tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> targets_in_tile;
  for (const SiteTile& group : site_tiles) targets_in_tile[group.tile] = group.sites;
  struct TileLabels {
    std::vector<PathLength> label, delta;  // batch x b each, source-major
    std::vector<std::uint32_t> dirty;      // sources with pending (delta) labels
    std::vector<char> is_dirty;            // batch
    PathLength queued = kUnreached;        // key it is queued with (kUnreached: not queued)
  };
  std::vector<PathLength> before;
  std::vector<std::uint32_t> solving;
  progress.update("od-matrix: queries", 0, k);
  for (std::uint64_t first = 0; first < k; first += batch) {
    const std::uint64_t kb = std::min<std::uint64_t>(batch, k - first);
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
    for (std::uint64_t v = 0; v < kb; ++v) {
      const std::uint64_t s = first + v;
      TileLabels& l = labels_of(tile_of_site[s]);
      for (std::uint32_t p = 0; p < b; ++p) offer(tile_of_site[s], l, v, p, site_ring[s * b + p]);
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
    // Targets: min over the ring cells r of the target's tile of label(r) + d_tile(r, target).
    for (const auto& [tile, sites_here] : targets_in_tile) {
      auto it = labels.find(tile);
      if (it == labels.end()) continue;
      for (std::uint64_t v = 0; v < kb; ++v) {
        PathLength* best = result.data() + (first + v) * k;
        for (std::uint32_t j : sites_here)
          for (std::uint32_t p = 0; p < b; ++p) {
            const PathLength via = min_plus_add(it->second.label[v * b + p], site_ring[j * b + p]);
            if (via < best[j]) best[j] = via;
          }
      }
    }
    progress.update("od-matrix: queries", first + kb, k);
  }
  st.matrix_loads = cache.loads();
  st.seconds_queries = watch.seconds();
  for (PathLength& d : result)
    if (d > options.max_cost) d = kUnreached;
  return result;
}

std::vector<PathLength> od_matrix_by_exchange(const TileInput& input, const std::vector<OdSite>& sites,
                                              const OdQueryOptions& options, unsigned threads,
                                              const std::string& run_directory, MemoryBudget& budget,
                                              Progress& progress, OdQueryStats* stats) {
  OdQueryStats local_stats;
  OdQueryStats& st = stats ? *stats : local_stats;
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t k = sites.size();
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  std::vector<PathLength> result(k * k, kUnreached);
  const std::vector<SiteTile> site_tiles = group_sites(grid, sites);
  std::vector<PathLength> buffer(cells);
  MemoryBudget::Reservation reservation = budget.reserve(cells * 8 + k * k * 8, "od-matrix target tile and results");
  Stopwatch watch;
  progress.update("od-matrix: runs", 0, k);
  for (std::uint64_t s = 0; s < k; ++s) {
    DistanceStore store(run_directory + "/od_distances.bin", grid, false, budget);
    SsspExchangeOptions xo;
    xo.params = options.params;
    xo.connectivity = options.connectivity;
    xo.max_cost = options.max_cost;
    xo.device = Device::Cpu;
    xo.threads = std::max(1u, threads);
    xo.batch = xo.threads;
    xo.cache_bytes = options.cache_bytes;
    xo.keep_free_bytes = 1ull << 20;
    {
      SsspExchange exchange(input, store, xo, budget);
      const std::uint64_t x = sites[s].cell % grid.width, y = sites[s].cell / grid.width;
      const auto rejected = exchange.add_sources(static_cast<std::uint32_t>(x / t), static_cast<std::uint32_t>(y / t),
                                                 {TileSource{local_of(grid, sites[s].cell), 1}});
      if (!rejected.empty()) throw UsageError(sites[s].text + " is on a nodata cell; move it onto valid data");
      exchange.run(progress);
      exchange.flush();
      st.exchange_solves += exchange.stats().solves;
    }
    for (const SiteTile& group : site_tiles) {
      if (!store.interior_present(group.tile)) continue;
      store.read_interior(group.tile, buffer.data(), nullptr, nullptr);
      for (std::uint32_t j : group.sites) result[s * k + j] = buffer[local_of(grid, sites[j].cell)];
    }
    progress.update("od-matrix: runs", s + 1, k);
  }
  st.seconds_queries = watch.seconds();
  for (PathLength& d : result)
    if (d > options.max_cost) d = kUnreached;
  return result;
}

}  // namespace terrazo
