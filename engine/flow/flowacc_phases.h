// engine/flow/flowacc_phases.h: exact flow accumulation of a D8 direction raster out of core, over
// the tiles of a TileInput ([Barnes2017]: each tile accumulated alone, the links of the tiles'
// perimeters solved once, each tile accumulated again with what enters it, and written).
//
// Contract: a valid cell's accumulation is the sum, over the valid cells whose flow path passes
// through it (itself included), of their amounts: 1 each (a count of cells), or the weight raster's
// value in fixed point, llround(w x scale) (0 where the weight is nodata). Codes, outlets and loops
// as kernels/flow/tile_d8.h: a code pointing off the raster or at a nodata cell ends the flow there.
// Sums are 64-bit integers, so the result is the same for any tile size, thread count and budget; an
// overflow is an Error, never wrapped. The sink gets accumulation / scale (exact for counts below
// 2^53; for weights the double nearest the fixed-point sum over scale) and NaN at nodata.
// Phases (Progress names): "flowacc: tiles", "flowacc: links", "flowacc: write".
// Memory: `threads` tiles' work at once (flowacc_tile_bytes each), the links of every tile's perimeter
// (FlowLinks, 13 bytes per perimeter cell, 17 during their solve) and the sink's bytes in the write
// phase (TileSink::declare_bytes), planned before any work.
#pragma once
#include <cstdint>
#include <string>

#include "engine/flow/flow_phase.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"

namespace terrazo {

struct FlowAccPhaseOptions : FlowPhaseOptions {
  double scale = 1;            // weights only: fixed-point units per weight unit
  std::string overflow_remedy = "the raster has too many cells for a 64-bit count";
};

struct FlowAccPhaseResult {
  std::uint64_t valid_cells = 0;
  std::uint64_t outlets = 0;       // cells where the flow ends (code 0, off the raster, into nodata)
  std::uint64_t exits = 0;         // perimeter cells whose flow enters another tile: the links' nodes
  std::int64_t largest = 0;        // the largest accumulation, fixed point (0 with no valid cell)
  std::uint64_t kept_tiles = 0;    // tiles whose ordered flow was kept for the write, not decoded again
  double tiles_seconds = 0, links_seconds = 0, write_seconds = 0;
  double load_seconds = 0, accumulate_seconds = 0;  // the resident path's (engine/flow/flowacc_resident.h)
};

// Where the accumulated tiles go (engine/flow/flow_phase.h): NaN at nodata and padding.
using FlowAccTileSink = TileSink<double>;

// `weights` (null: counts) on the same grid as `directions`.
FlowAccPhaseResult run_flowacc_phases(const TileInput& directions, const TileInput* weights,
                                      const FlowAccPhaseOptions& options, MemoryBudget& budget, Progress& progress,
                                      FlowAccTileSink& sink);

// The bytes one tile's work holds (cells, weights when `weighted`, the ordered flow, sums, path ends).
std::uint64_t flowacc_tile_bytes(std::uint32_t t, bool weighted);

}  // namespace terrazo
