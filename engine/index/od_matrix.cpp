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
#include "engine/index/gprime_exchange.h"
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

}  // namespace

std::vector<PathLength> od_matrix_by_index(const TileInput& input, const IndexFile& index, const std::vector<OdSite>& sites,
                                           const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                           OdQueryStats* stats) {
  OdQueryStats local_stats;
  OdQueryStats& st = stats ? *stats : local_stats;
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  check_index_fits(index, grid, options.params, options.connectivity);
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
    throw BudgetError("memory budget too small for od-matrix with the index: the labels of one source need " +
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
      check_index_tile(index, group.tile, tile_values.data(), sites[group.sites.front()].text);
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
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> targets_in_tile;
  for (const SiteTile& group : site_tiles) targets_in_tile[group.tile] = group.sites;
  GPrimeExchangeOptions xo;
  xo.params = options.params;
  xo.connectivity = options.connectivity;
  xo.max_cost = options.max_cost;
  progress.update("od-matrix: queries", 0, k);
  for (std::uint64_t first = 0; first < k; first += batch) {
    const std::uint64_t kb = std::min<std::uint64_t>(batch, k - first);
    std::vector<GPrimeSeed> seeds;
    for (std::uint64_t v = 0; v < kb; ++v) {
      const std::uint64_t s = first + v;
      seeds.push_back(GPrimeSeed{tile_of_site[s], static_cast<std::uint32_t>(v), std::vector<PathLength>(site_ring.begin() + static_cast<std::ptrdiff_t>(s * b), site_ring.begin() + static_cast<std::ptrdiff_t>((s + 1) * b))});
    }
    GPrimeStats gs;
    const GPrimeLabels labels = gprime_exchange(index, cache, grid, kb, seeds, xo, &gs);
    st.tile_solves += gs.tile_solves;
    // Targets: min over the ring cells r of the target's tile of label(r) + d_tile(r, target).
    for (const auto& [tile, sites_here] : targets_in_tile) {
      auto it = labels.find(tile);
      if (it == labels.end()) continue;
      for (std::uint64_t v = 0; v < kb; ++v) {
        PathLength* best = result.data() + (first + v) * k;
        for (std::uint32_t j : sites_here)
          for (std::uint32_t p = 0; p < b; ++p) {
            const PathLength via = min_plus_add(it->second[v * b + p], site_ring[j * b + p]);
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
