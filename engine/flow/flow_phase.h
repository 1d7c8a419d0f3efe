// engine/flow/flow_phase.h: what every flow phase (engine/flow/*_phases.h) shares: its options (the
// run's threads and plan), the sink it hands its finished tiles to, and the end of its plan.
//
// TileSink: write_tile(tx, ty, cells) gets tile (tx, ty)'s t * t cells (row-major; the padding past
// the raster's edge holds the phase's nodata), every tile of the grid once, in row-major tile order,
// from one thread at a time. The phases' plan calls declare_bytes(plan, phase) with their write phase
// before assigning it: the sink declares there what it holds while it takes the tiles (the commands'
// GeoTIFF writer: its block cache, engine/commands/flow_run.h), and takes it at its first tile.
#pragma once
#include <cstdint>
#include <string>

#include "engine/run/memory_plan.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

template <class Cell>
class TileSink {
 public:
  virtual ~TileSink() = default;
  virtual void declare_bytes(MemoryPlan& /*plan*/, const std::string& /*phase*/) {}
  virtual void write_tile(std::uint32_t tx, std::uint32_t ty, const Cell* cells) = 0;
};

// The run's threads and plan, which every flow phase takes.
struct FlowPhaseOptions {
  unsigned threads = 0;        // 0: every core
  MemoryPlan* plan = nullptr;  // the run's plan; null: one of its own
};

// The end of a flow command's plan: `remedy` said after the --memory each of the phases named
// "<command>: ..." would need, then the plan assigned (BudgetError before any work when one does not fit).
inline void assign_flow_plan(MemoryPlan& plan, const std::string& command, const std::string& remedy,
                             const MemoryBudget& budget) {
  for (const MemoryPlan::Phase& phase : plan.phases())
    if (phase.name.rfind(command + ": ", 0) == 0) plan.other_remedy(phase.name, remedy);
  plan.assign(budget);
}

// UsageError unless the `what` raster (a flow phase's second input) has the direction raster's size
// and tile.
inline void require_direction_grid(const TileInput& directions, const TileInput& other, const std::string& what) {
  const TileGrid& grid = directions.grid();
  if (other.grid().width != grid.width || other.grid().height != grid.height || other.grid().tile != grid.tile)
    throw UsageError("the " + what + " raster's grid differs from the direction raster's");
}

}  // namespace terrazo
