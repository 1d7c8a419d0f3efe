// engine/index/index_sssp.cpp: index_sssp (engine/index/index_sssp.h).
#include "engine/index/index_sssp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "kernels/common/error.h"
#include "engine/index/gprime_tiles.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/sssp/block_sssp.h"

namespace terrazo {
namespace {

// The tile's cells in the block solver's (t+2)^2 layout with an empty (NaN) halo.
void halo_layout(const double* tile_values, std::uint32_t t, std::vector<double>& values) {
  std::fill(values.begin(), values.end(), std::numeric_limits<double>::quiet_NaN());
  for (std::uint32_t y = 0; y < t; ++y)
    std::copy(tile_values + static_cast<std::uint64_t>(y) * t, tile_values + static_cast<std::uint64_t>(y + 1) * t,
              values.begin() + static_cast<std::ptrdiff_t>(y + 1) * (t + 2) + 1);
}

}  // namespace

IndexSsspStats index_sssp(const TileInput& input, const IndexFile& index, const std::vector<IndexSource>& sources,
                          const GPrimeExchangeOptions& options, std::uint64_t cache_bytes, DistanceStore& store,
                          MemoryBudget& budget, Progress& progress) {
  IndexSsspStats stats;
  const TileGrid& grid = input.grid();
  check_index_fits(index, grid, options.params, options.connectivity);
  const std::uint32_t t = grid.tile;
  const std::uint32_t b = ring_size(t);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t, halo = static_cast<std::uint64_t>(t + 2) * (t + 2);
  const std::uint64_t tiles = grid.tile_count();
  const std::uint64_t entry_bytes = static_cast<std::uint64_t>(b) * b * 8 + b * 8 + 64;
  MemoryBudget::Reservation buffers = budget.reserve(halo * 16 + cells * 17 + tiles * (b * 16 + 64), "sssp --index labels and tile buffers");
  if (cache_bytes == 0) {
    const std::uint64_t keep = (1ull << 20) + budget.cache_margin();  // kernels/common/memory_budget.h
    cache_bytes = budget.available() > keep ? budget.available() - keep : 0;
  }
  cache_bytes = std::max(2 * entry_bytes, std::min(cache_bytes, tiles * entry_bytes + 2 * entry_bytes));
  MemoryBudget::Reservation cache_reservation = budget.reserve(cache_bytes, "sssp --index tile cache");
  IndexTileCache cache(index, cache_bytes / entry_bytes);

  std::map<std::uint64_t, std::vector<const IndexSource*>> by_tile;
  for (const IndexSource& s : sources) {
    const std::uint64_t x = s.cell % grid.width, y = s.cell / grid.width;
    by_tile[(y / t) * grid.tiles_x() + x / t].push_back(&s);
  }
  std::vector<double> tile_values(cells), values(halo);
  std::vector<PathLength> dist(halo), interior(cells);
  std::vector<std::uint8_t> changed(cells);
  auto local_of = [&](std::uint64_t cell) {
    const std::uint64_t x = cell % grid.width, y = cell / grid.width;
    return static_cast<std::uint32_t>((y % t) * t + x % t);
  };
  auto read = [&](std::uint64_t tile) {
    const auto tx = static_cast<std::uint32_t>(tile % grid.tiles_x()), ty = static_cast<std::uint32_t>(tile / grid.tiles_x());
    if (input.tile_present(tx, ty)) input.read_tile(tx, ty, tile_values.data());
    else std::fill(tile_values.begin(), tile_values.end(), std::numeric_limits<double>::quiet_NaN());
    halo_layout(tile_values.data(), t, values);
  };
  auto at = [&](std::uint32_t x, std::uint32_t y) -> PathLength& { return dist[static_cast<std::uint64_t>(y + 1) * (t + 2) + x + 1]; };
  auto solve = [&]() {
    bool overflow = false;
    block_sssp_cpu(values.data(), t, options.params, options.connectivity, options.max_cost, dist.data(), changed.data(), &overflow);
    if (overflow) throw UsageError("an edge weight overflows at --scale " + std::to_string(options.params.scale));
  };
  // (1) The source tiles' rings.
  progress.update("sssp: index", 0, 1);
  std::vector<GPrimeSeed> seeds;
  for (const auto& [tile, list] : by_tile) {
    read(tile);
    check_index_tile(index, tile, tile_values.data(), list.front()->text);
    std::fill(dist.begin(), dist.end(), kUnreached);
    for (const IndexSource* s : list) {
      const std::uint32_t l = local_of(s->cell);
      if (std::isnan(tile_values[l])) throw UsageError(s->text + " is on a nodata cell; move it onto valid data");
      at(l % t, l / t) = 0;
    }
    solve();
    GPrimeSeed seed{tile, 0, std::vector<PathLength>(b)};
    for (std::uint32_t p = 0; p < b; ++p) {
      std::uint32_t x, y;
      ring_cell_of(t, p, &x, &y);
      seed.ring[p] = at(x, y);
    }
    seeds.push_back(std::move(seed));
  }
  // (2) G'.
  GPrimeStats gs;
  IndexMatrixTiles gtiles(index, cache);
  const GPrimeLabels labels = gprime_exchange(gtiles, grid, 1, seeds, options, &gs);
  stats.tile_solves = gs.tile_solves;
  stats.matrix_loads = cache.loads();
  progress.update("sssp: index", 1, 1);
  // (3) The cells of every tile reached, tile by tile in row-major order.
  std::vector<std::uint64_t> reached;
  for (const auto& [tile, ring] : labels) reached.push_back(tile);
  for (const auto& [tile, list] : by_tile) reached.push_back(tile);
  std::sort(reached.begin(), reached.end());
  reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
  progress.update("sssp: cells", 0, reached.size());
  std::uint64_t done = 0;
  for (std::uint64_t tile : reached) {
    read(tile);
    std::fill(dist.begin(), dist.end(), kUnreached);
    auto ring = labels.find(tile);
    if (ring != labels.end())
      for (std::uint32_t p = 0; p < b; ++p) {
        std::uint32_t x, y;
        ring_cell_of(t, p, &x, &y);
        at(x, y) = ring->second[p];
      }
    auto here = by_tile.find(tile);
    if (here != by_tile.end())
      for (const IndexSource* s : here->second) {
        const std::uint32_t l = local_of(s->cell);
        at(l % t, l / t) = 0;
      }
    solve();
    bool any = false;
    for (std::uint32_t y = 0; y < t; ++y)
      for (std::uint32_t x = 0; x < t; ++x) {
        interior[static_cast<std::uint64_t>(y) * t + x] = at(x, y);
        any = any || at(x, y) != kUnreached;
      }
    if (any) {
      store.write_interior(tile, interior.data(), nullptr, nullptr);
      ++stats.tiles_written;
    }
    progress.update("sssp: cells", ++done, reached.size(), cells);
  }
  return stats;
}

}  // namespace terrazo
