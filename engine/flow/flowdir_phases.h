// engine/flow/flowdir_phases.h: D8 flow directions out of core, over the tiles of a TileInput
// (docs/flow.md "flowdir"; [Barnes2014b] for the flats).
//
// Contract: each valid cell's D8 code (kernels/flow/d8_codes.h): the steepest descent to a strictly
// lower neighbour (kernels/flow/d8_tile.h has the exact rule and its tie-break), kD8NoFlow at an
// outlet with no lower neighbour (outlets: the raster's edge when `edge_outlets`, the cells next to
// nodata when `nodata_outlets`, as `terrazo fill`), and on flats the gradient of [Barnes2014b]
// (kernels/flow/flat_gradient.h): every flat cell's path ends at a draining cell, except on a flat
// with no draining cell beside it (an undrained pit), whose cells get kD8NoFlow. kD8Nodata at nodata.
// The codes depend only on the raster's values: the same bytes for any tile size and thread count.
// Phases (Progress names): "flowdir: halos" (each tile's outer two rows and columns kept,
// engine/flow/halo_strips.h), "flowdir: directions" (each tile with a halo of two cells: the codes,
// its flats resolved when they stay inside it, the cells of those that cross its sides gathered),
// "flowdir: flats across tiles" (the gathered flats resolved at once, engine/flow/cross_tile_flats.h),
// "flowdir: write" (each tile again, the gathered codes put in, handed to the sink in row-major order).
// Each tile is read three times in all. Memory: `threads` tile windows and directions at once
// (slot_bytes each), every tile's border strips (64 bytes a tile side cell), the tile offsets, and the
// gathered flats' cells as they come (CrossTileFlats) and the sink's bytes in the write phase
// (TileSink::declare_bytes), planned in `plan` before any work.
#pragma once
#include <cstdint>
#include <string>

#include "engine/flow/flow_phase.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/flow/resident_flowdir.h"

namespace terrazo {

struct FlowdirPhaseOptions : FlowPhaseOptions {
  bool edge_outlets = true;
  bool nodata_outlets = true;
};

struct FlowdirPhaseResult : FlowdirCounts {  // the codes' counts (kernels/flow/resident_flowdir.h)
  std::uint64_t cross_tile_flat_cells = 0;  // the cells of the flats that cross tile borders
  std::uint64_t kept_tiles = 0;  // tiles whose codes were kept for the write, not computed again
  double halos_seconds = 0, directions_seconds = 0, flats_seconds = 0, write_seconds = 0;
  // The path taken: "tiles" (these phases) or "resident" (engine/flow/flowdir_resident.h: its rounds'
  // counts, its load and solve seconds; write_seconds is its write's; cross_tile_flat_cells and
  // kept_tiles 0).
  const char* path = "tiles";
  std::string device = "cpu";  // "cpu" or "cuda (<device name>)"
  std::string fallback;        // why a GPU run took the tile path ("" when it did not)
  ResidentFlowdirStats resident;
  double load_seconds = 0, solve_seconds = 0;
  // The bytes of one tile's slot: its window, a neighbour's tile, its directions.
  static std::uint64_t slot_bytes(std::uint32_t t);
};

// Where the codes go (engine/flow/flow_phase.h): kD8Nodata at nodata and padding.
using FlowdirTileSink = TileSink<std::uint8_t>;

FlowdirPhaseResult run_flowdir_phases(const TileInput& input, const FlowdirPhaseOptions& options, MemoryBudget& budget,
                                      Progress& progress, FlowdirTileSink& sink);

}  // namespace terrazo
