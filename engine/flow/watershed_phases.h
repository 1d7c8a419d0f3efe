// engine/flow/watershed_phases.h: drainage basins of a D8 direction raster out of core, over the
// tiles of a TileInput: the per-tile step and the perimeter links of flow accumulation
// ([Barnes2017]; engine/flow/flow_links.h), with the basins' numbering of clump (docs/clump.md).
//
// Contract: a valid cell's basin is the cell where its flow ends (its outlet: code 0, a code
// pointing off the raster or at a nodata cell; kernels/flow/tile_d8.h). Basins are labelled 1..K in
// raster order of their first cell (the least y * width + x among their cells), 0 at nodata, so the
// labels do not depend on the tile size, the threads or the budget. With pour points
// (engine/flow/pour_points.h) each pour point is an outlet too (its flow stops there) and only the
// basins of pour points are labelled, 1..K in the same order; every other valid cell is 0, so a pour
// point upstream of another cuts its basin out of the downstream one's.
// Phases (Progress names): "watershed: tiles" (each tile's codes ordered, its perimeter's paths
// kept), "watershed: links" (each exit's outlet), "watershed: firsts" (each basin's first cell: the
// basins inside one tile counted per row, those that span tiles kept), "watershed: ranks" (the tiles
// holding the first cell of a basin that spans tiles, read again for its label), "watershed: write".
// Memory: `threads` tiles' work at once, the links (13 bytes per perimeter cell), the basins that span
// tiles (20 bytes each, at most one per exit), 4 bytes per tile row and 8 per raster row (the counts
// of first cells), 16 bytes per pour point and the sink's bytes in the write phase
// (TileSink::declare_bytes), planned before any work.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/flow/flow_phase.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"

namespace terrazo {

struct WatershedPhaseOptions : FlowPhaseOptions {
  // The pour points' raster ids (y * width + x; any order, repeats allowed); empty: every outlet's
  // basin is labelled.
  std::vector<std::uint64_t> pour_points;
  // Declares the phases the command runs after these (watershed's streams) in the plan, on the same
  // threads, before it is assigned: the whole run planned before any work.
  std::function<void(MemoryPlan& plan, unsigned threads)> more_phases;
};

struct WatershedPhaseResult {
  std::uint64_t valid_cells = 0;
  std::uint64_t labelled_cells = 0;   // the valid cells in a basin (all of them without pour points)
  std::uint64_t basins = 0;           // K
  std::uint64_t spanning_basins = 0;  // basins with cells in several tiles
  std::uint64_t exits = 0;
  // The distinct pour points, sorted, and each one's basin label (parallel).
  std::vector<std::uint64_t> pour_point_cells;
  std::vector<std::uint32_t> pour_point_basins;
  double tiles_seconds = 0, links_seconds = 0, firsts_seconds = 0, ranks_seconds = 0, write_seconds = 0;
  double load_seconds = 0, label_seconds = 0;  // the resident path's (engine/flow/watershed_resident.h)
};

// Where the labelled tiles go (engine/flow/flow_phase.h): 0 at nodata and padding.
using WatershedTileSink = TileSink<std::uint32_t>;

WatershedPhaseResult run_watershed_phases(const TileInput& directions, const WatershedPhaseOptions& options,
                                          MemoryBudget& budget, Progress& progress, WatershedTileSink& sink);

}  // namespace terrazo
