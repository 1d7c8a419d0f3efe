// engine/index/index_sssp.h: cost distance from the boundary-graph index (`terrazo sssp --index`,
// docs/index.md "sssp --index"): phase 2 and 3 of [Gerritsen2012, ch. 4] over the index.
//
// Contract: fills `store` (an unlabelled DistanceStore of the input's grid) with the exact distances
// from the source cells, the same as the streamed exchange leaves (engine/sssp/exchange.h; cells
// farther than max_cost unreached); tiles no source reaches are not written.
// Steps: (1) one in-tile solve per source tile (all its sources at 0, block_sssp_cpu with an empty
// halo): the sources' labels on the tile's ring; (2) the G' exchange with one label vector
// (engine/index/gprime_exchange.h): the exact distance of every ring cell reached; (3) per tile
// reached, one in-tile solve seeded with its ring's distances and its sources: every path into a tile
// enters through a ring cell, so the cells' distances are exact.
// Errors: UsageError for an index of another raster or weights (check_index_fits, and the values
// CRC of every source tile), a source on nodata.
// Memory: labels 16 B bytes per tile reached, the in-tile buffers ((t+2)^2 x 16 + t^2 x 9), the
// index tile cache (the rest of the budget but 1 MiB, or cache_bytes).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/index/gprime_exchange.h"
#include "engine/sssp/distance_store.h"
#include "engine/tile_inputs/tile_input.h"

namespace terrazo {

struct IndexSource {
  std::uint64_t cell = 0;
  std::string text;
};

struct IndexSsspStats {
  std::uint64_t tile_solves = 0;    // G' re-solves
  std::uint64_t matrix_loads = 0;   // index tiles read
  std::uint64_t tiles_written = 0;  // tiles with distances (phase 3 solves)
};

// Progress phases "sssp: index" (G') and "sssp: cells" (phase 3, done = tiles).
IndexSsspStats index_sssp(const TileInput& input, const IndexFile& index, const std::vector<IndexSource>& sources,
                          const GPrimeExchangeOptions& options, std::uint64_t cache_bytes, DistanceStore& store,
                          MemoryBudget& budget, Progress& progress);

}  // namespace terrazo
