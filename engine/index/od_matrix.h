// engine/index/od_matrix.h: origin-destination cost matrices between K sites, exactly, two ways
// (docs/index.md "Queries"):
//   - od_matrix_by_index: phase 2 of the boundary-graph index. Each site's tile is solved once
//     (block_sssp_cpu from the site, paths inside the tile: the site's distances to its tile's ring,
//     and to the other sites of its tile); then per source site a Dijkstra over G' (the tiles' ring
//     cells; inside a tile the index matrix, a row per settled ring cell, i.e. a min-plus product
//     with a unit vector; across tiles the grid edges between ring cells of neighbouring tiles,
//     diagonals included); a target's cost is min over its tile's ring cells r of D(r) + d_tile(r,
//     target), or the in-tile distance when that is smaller.
//   - od_matrix_by_exchange: K runs of the SSSP streamed exchange (engine/sssp/exchange.h), one per
//     source site (not batched: one label per cell), each target read from the distance store.
// Both give the same matrix: entry [i * K + j] = the shortest distance from site i to site j
// (fixed point), kUnreached when no path or beyond max_cost.
// Exactness of the index query: a path from s to u either stays in s's tile (the in-tile term) or
// leaves it; then its last entry into u's tile passes a ring cell r of that tile and continues
// inside the tile (d_tile(r, u), the site's ring vector by symmetry of the weights); the prefix s
// -> r is a G' path whose in-tile pieces are bounded below by the index matrices ([Gerritsen2012,
// ch. 4]).
// Memory: per batch of sources, G' labels and pending labels, 16 bytes per ring cell of the grid and
// source (tiles x (4t - 4) x 16 per source; the batch is half of the budget's rest over that), an LRU
// cache of expanded tile matrices ((4t - 4)^2 x 8 each) taking the rest, and per site its ring vector.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_budget.h"
#include "core/progress.h"
#include "engine/tile_input.h"
#include "kernels/common/edge_weight.h"
#include "store/index_file.h"

namespace terrazo {

struct OdSite {
  std::uint64_t cell = 0;  // global id y * W + x
  std::string text;        // for messages
};

struct OdQueryOptions {
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;
  std::uint64_t cache_bytes = 0;  // index matrix cache; 0: what the budget leaves (1 MiB kept free)
};

struct OdQueryStats {
  std::uint64_t site_tiles = 0;      // distinct tiles holding sites (in-tile solves)
  std::uint64_t batch_sources = 0;   // sources per batch of the G' exchange
  std::uint64_t tile_solves = 0;     // tile re-solves (min-plus products), all batches
  std::uint64_t matrix_loads = 0;    // index tiles read (cache misses)
  std::uint64_t cache_tiles = 0;     // cache capacity
  std::uint64_t exchange_solves = 0; // od_matrix_by_exchange: block solves, all runs
  double seconds_sites = 0, seconds_queries = 0;
};

// Throws UsageError naming the site when a site is on a nodata cell, and when the index does not
// fit the raster (size, tile, weights; a site tile whose values differ from those indexed: the
// fingerprint).
std::vector<PathLength> od_matrix_by_index(const TileInput& input, const IndexFile& index, const std::vector<OdSite>& sites,
                                           const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                           OdQueryStats* stats);

// run_directory: where each run's distance store lives (removed after each run).
std::vector<PathLength> od_matrix_by_exchange(const TileInput& input, const std::vector<OdSite>& sites,
                                              const OdQueryOptions& options, unsigned threads,
                                              const std::string& run_directory, MemoryBudget& budget,
                                              Progress& progress, OdQueryStats* stats);

}  // namespace terrazo
