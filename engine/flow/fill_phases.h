// engine/flow/fill_phases.h: exact depression filling out of core, over the tiles of a TileInput
// ([Barnes2016]: Priority-Flood per tile, the spill graph of the tiles' labels, the tiles again).
//
// Contract: a cell's filled elevation is the least, over paths of neighbouring valid cells
// (connectivity 8 or 4) from the cell to an outlet, of the highest elevation on the path (the cell's
// own included); outlets are the cells on the raster's edge (`edge_outlets`) and the cells next to a
// nodata cell (`nodata_outlets`). Only max and min of the input's values are taken, so the filled
// values are input values, the same bits for any tile size, thread count and order: a cell keeps its
// own bits unless raised, and a cell raised to zero is +0 (the levels -0 and +0 compare equal, and
// which one a path brings would depend on the order). A valid cell
// with no path to an outlet (a region closed by nodata with edge outlets only) has no filled
// elevation: it is written as NaN (nodata) and counted in `closed_cells`.
// Phases (Progress names): "fill: flood" (each tile flooded from its perimeter, its perimeter and
// spill edges kept), "fill: spill graph" (the graph of the tiles' labels solved), "fill: write"
// (each tile flooded again, raised to its labels' spill levels, handed to the sink in row-major
// tile order). The first floods of the tiles that fit what the plan leaves are kept for the write
// instead (engine/flow/kept_tiles.h): the first in row-major order, as many as fit.
// Memory: the tile floods of `threads` tiles at once (tile_flood_bytes each, a batch twice while the
// sink writes), every tile's perimeter (SpillGraph::perimeter_bytes), the graph's solve and the
// sink's bytes in the write phase (TileSink::declare_bytes), planned in `plan` before any work; the
// kept floods take what the three phases leave (the graph planned at its most before them).
#pragma once
#include <cstdint>
#include <string>

#include "engine/flow/flow_phase.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"
#include "kernels/flow/resident_fill.h"

namespace terrazo {

// The phases' threads and plan, and the fill's rules (connectivity, edge and nodata outlets).
struct FillPhaseOptions : FlowPhaseOptions, FillRules {};

struct FillPhaseResult {
  std::uint64_t valid_cells = 0;
  std::uint64_t raised_cells = 0;  // filled above their elevation
  std::uint64_t closed_cells = 0;  // with no outlet: written as nodata
  std::uint64_t graph_nodes = 0, graph_edges = 0;
  std::uint64_t kept_tiles = 0;  // tiles whose first flood was kept for the write, not flooded again
  double flood_seconds = 0, graph_seconds = 0, write_seconds = 0;
  // The path taken: "tiles" (these phases) or "resident" (engine/flow/fill_resident.h: its rounds'
  // counts, its load and solve seconds; write_seconds is its write's).
  const char* path = "tiles";
  std::string device = "cpu";  // "cpu" or "cuda (<device name>)"
  std::string fallback;        // why a GPU run took the tile path ("" when it did not)
  ResidentFillStats resident;
  double load_seconds = 0, solve_seconds = 0;
};

// Where the filled tiles go (engine/flow/flow_phase.h): NaN at nodata and padding.
using FillTileSink = TileSink<double>;

FillPhaseResult run_fill_phases(const TileInput& input, const FillPhaseOptions& options, MemoryBudget& budget,
                                Progress& progress, FillTileSink& sink);

}  // namespace terrazo
