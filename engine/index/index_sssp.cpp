// engine/index/index_sssp.cpp: index_sssp (engine/index/index_sssp.h).
#include "engine/index/index_sssp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

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

// One tile at a time through the block solver: its cells in the solver's (t+2)^2 layout, its
// labels (`dist`, the halo empty), the interior copied out.
struct IndexTileSolver {
  IndexTileSolver(const TileInput& input, const GPrimeExchangeOptions& options)
      : input(input), options(options), grid(input.grid()), t(grid.tile),
        tile_values(static_cast<std::uint64_t>(t) * t), values(static_cast<std::uint64_t>(t + 2) * (t + 2)),
        dist(static_cast<std::uint64_t>(t + 2) * (t + 2)), interior(static_cast<std::uint64_t>(t) * t),
        changed(static_cast<std::uint64_t>(t) * t) {}

  const TileInput& input;
  const GPrimeExchangeOptions& options;
  const TileGrid& grid;
  const std::uint32_t t;
  std::vector<double> tile_values, values;
  std::vector<PathLength> dist, interior;
  std::vector<std::uint8_t> changed;

  std::uint32_t local_of(std::uint64_t cell) const {
    const std::uint64_t x = cell % grid.width, y = cell / grid.width;
    return static_cast<std::uint32_t>((y % t) * t + x % t);
  }
  // The tile's cells (NaN for an absent tile), all labels unreached.
  void read(std::uint64_t tile) {
    const auto tx = static_cast<std::uint32_t>(tile % grid.tiles_x()), ty = static_cast<std::uint32_t>(tile / grid.tiles_x());
    if (input.tile_present(tx, ty)) input.read_tile(tx, ty, tile_values.data());
    else std::fill(tile_values.begin(), tile_values.end(), std::numeric_limits<double>::quiet_NaN());
    halo_layout(tile_values.data(), t, values);
    std::fill(dist.begin(), dist.end(), kUnreached);
  }
  PathLength& at(std::uint32_t x, std::uint32_t y) { return dist[static_cast<std::uint64_t>(y + 1) * (t + 2) + x + 1]; }
  void solve() {
    bool overflow = false;
    block_sssp_cpu(values.data(), t, options.params, options.connectivity, options.max_cost, dist.data(), changed.data(), &overflow);
    if (overflow) throw UsageError("an edge weight overflows at --scale " + std::to_string(options.params.scale));
  }
};

using SourcesByTile = std::map<std::uint64_t, std::vector<const IndexSource*>>;

// (1) The source tiles' rings: each source tile solved from its sources (checked against the
// index's record of the tile, and refused on nodata), its ring a seed of G'.
std::vector<GPrimeSeed> source_seeds(const IndexFile& index, const SourcesByTile& by_tile, IndexTileSolver& solver) {
  const std::uint32_t t = solver.t, b = ring_size(t);
  std::vector<GPrimeSeed> seeds;
  for (const auto& [tile, list] : by_tile) {
    solver.read(tile);
    check_index_tile(index, tile, solver.tile_values.data(), list.front()->text);
    for (const IndexSource* s : list) {
      const std::uint32_t l = solver.local_of(s->cell);
      if (std::isnan(solver.tile_values[l])) throw UsageError(s->text + " is on a nodata cell; move it onto valid data");
      solver.at(l % t, l / t) = 0;
    }
    solver.solve();
    GPrimeSeed seed{tile, 0, std::vector<PathLength>(b)};
    for (std::uint32_t p = 0; p < b; ++p) {
      std::uint32_t x, y;
      ring_cell_of(t, p, &x, &y);
      seed.ring[p] = solver.at(x, y);
    }
    seeds.push_back(std::move(seed));
  }
  return seeds;
}

// (3) The cells of every tile reached (a ring label or a source), tile by tile in row-major order,
// solved from their rings and sources into the store. Returns the tiles written.
std::uint64_t write_reached_tiles(const GPrimeLabels& labels, const SourcesByTile& by_tile, IndexTileSolver& solver,
                                  DistanceStore& store, Progress& progress) {
  const std::uint32_t t = solver.t, b = ring_size(t);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  std::vector<std::uint64_t> reached;
  for (const auto& [tile, ring] : labels) reached.push_back(tile);
  for (const auto& [tile, list] : by_tile) reached.push_back(tile);
  std::sort(reached.begin(), reached.end());
  reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
  progress.update("sssp: cells", 0, reached.size());
  std::uint64_t done = 0, written = 0;
  for (std::uint64_t tile : reached) {
    solver.read(tile);
    auto ring = labels.find(tile);
    if (ring != labels.end())
      for (std::uint32_t p = 0; p < b; ++p) {
        std::uint32_t x, y;
        ring_cell_of(t, p, &x, &y);
        solver.at(x, y) = ring->second[p];
      }
    auto here = by_tile.find(tile);
    if (here != by_tile.end())
      for (const IndexSource* s : here->second) {
        const std::uint32_t l = solver.local_of(s->cell);
        solver.at(l % t, l / t) = 0;
      }
    solver.solve();
    bool any = false;
    for (std::uint32_t y = 0; y < t; ++y)
      for (std::uint32_t x = 0; x < t; ++x) {
        solver.interior[static_cast<std::uint64_t>(y) * t + x] = solver.at(x, y);
        any = any || solver.at(x, y) != kUnreached;
      }
    if (any) {
      store.write_interior(tile, solver.interior.data(), nullptr, nullptr);
      ++written;
    }
    progress.update("sssp: cells", ++done, reached.size(), cells);
  }
  return written;
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

  SourcesByTile by_tile;
  for (const IndexSource& s : sources) {
    const std::uint64_t x = s.cell % grid.width, y = s.cell / grid.width;
    by_tile[(y / t) * grid.tiles_x() + x / t].push_back(&s);
  }
  IndexTileSolver solver(input, options);
  progress.update("sssp: index", 0, 1);
  const std::vector<GPrimeSeed> seeds = source_seeds(index, by_tile, solver);
  // (2) G'.
  GPrimeStats gs;
  IndexMatrixTiles gtiles(index, cache);
  const GPrimeLabels labels = gprime_exchange(gtiles, grid, 1, seeds, options, &gs);
  stats.tile_solves = gs.tile_solves;
  stats.matrix_loads = cache.loads();
  progress.update("sssp: index", 1, 1);
  stats.tiles_written = write_reached_tiles(labels, by_tile, solver, store, progress);
  return stats;
}

}  // namespace terrazo
