// engine/commands/sssp_pass_input.h: the input stages of one sssp pass (engine/commands/sssp_pass.cpp):
// INPUT (or the index) opened, the step lengths and weights chosen, the barrier and friction rasters
// opened on INPUT's grid. Each stage is one function; run_sssp_pass calls them in order.
#pragma once
#include <memory>
#include <string>

#include "engine/commands/sssp_groups.h"
#include "engine/cost_models/walk_weights.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/tile_inputs/barrier_input.h"
#include "engine/tile_inputs/walk_input.h"
#include "io/store/index_file.h"
#include "io/store/run_directory.h"

namespace terrazo {
namespace sssp_pass {

// INPUT as the pass reads it: the run directory that imports go to (declared first, so it is
// removed after every file in it is closed), the index of --index, INPUT itself.
struct PassInput {
  explicit PassInput(const std::string& tmpdir) : run(tmpdir) {}
  RunDirectory run;
  std::unique_ptr<IndexFile> index;
  std::unique_ptr<PipelineInput> owned;   // opened by this pass (null: the group runner's pass.input)
  const PipelineInput* source = nullptr;  // owned or pass.input
  RasterInfo info;
  TileGrid grid;
  unsigned threads = 0;
};

// The pass's weights: the step lengths (--distance; the geodesic table lives here for the whole
// pass), the run's fixed point (params), the solver's (solve_params: the group's multiplier) and
// --max-cost in fixed point.
struct PassWeights {
  MemoryBudget::Reservation steps_reservation;
  StepTable steps;
  WeightParams params;
  WeightParams solve_params;
  PathLength max_cost = kUnreached;
};

// The cells the solver reads: INPUT, or INPUT behind the barriers (--barrier-raster), or the walk
// cells of a directed model (elevation and --friction packed into one value per cell).
struct PassCells {
  std::unique_ptr<PipelineInput> barrier_source;
  std::unique_ptr<BarrierTileInput> barred;
  MemoryBudget::Reservation barrier_reservation;
  std::unique_ptr<PipelineInput> friction_source;
  std::unique_ptr<WalkTileInput> walk_cells;
  MemoryBudget::Reservation walk_reservation;

  const TileInput& solved(const PassInput& input) const {
    return walk_cells ? static_cast<const TileInput&>(*walk_cells)
           : barred   ? static_cast<const TileInput&>(*barred)
                      : input.source->cells();
  }
};

// The barrier raster's band before any work: a raster of several bands needs --barrier-band
// (--band chooses INPUT's), refused with that flag's name (docs/reliability.md "Bands"). Returns
// its info (empty without --barrier-raster).
RasterInfo open_barrier_band(const SsspOptions& options, MemoryBudget& budget, SsspResult& result);

// Phase "import": the index, then INPUT (a store, tiles in memory, a tiled GeoTIFF in place or an
// import: engine/raster_inputs/pipeline_input.h), checked against the index's fingerprint; a raster
// without a valid cell is refused.
void open_pass_input(const SsspOptions& options, const SsspPass& pass, bool labelled, RunContext& context,
                     PassInput& input, SsspResult& result);

// The step lengths of --distance (walk and tobler: map units, or metres on a lon/lat CRS, unless
// given) and, for the symmetric models, the weights.
void choose_steps(const SsspOptions& options, const PassInput& input, MemoryBudget& budget, PassWeights& weights,
                  SsspResult& result);

// Barriers (--barrier-raster): cells of INPUT's grid that cannot be entered; counts the valid cells
// they close (one pass over both).
void open_barriers(const SsspOptions& options, const RasterInfo& barrier_info, PassInput& input, RunContext& context,
                   PassCells& cells, SsspResult& result);

// Directed models (--model walk|tobler): INPUT is the elevation, --friction an optional raster of
// its grid; both are packed into one value per cell (engine/tile_inputs/walk_input.h), whose
// weights are chosen here.
void open_walk_cells(const SsspOptions& options, PassInput& input, const PassWeights& weights, RunContext& context,
                     PassCells& cells, SsspResult& result);

// The run's fixed point, --max-cost (and the group's maximum) in it, and the solver's weights: the
// group's multiplier times each exact weight, rounded once (the scale times the multiplier), in the
// run's fixed point; distances, starts and maxima keep the run's scale.
void fix_weights(const SsspOptions& options, const SsspPass& pass, PassWeights& weights, SsspResult& result);

}  // namespace sssp_pass
}  // namespace terrazo
