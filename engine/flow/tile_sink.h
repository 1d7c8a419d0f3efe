// engine/flow/tile_sink.h: where the flow phases hand their finished tiles (engine/flow/*_phases.h),
// and the options every flow phase takes.
//
// Contract: write_tile(tx, ty, cells) gets tile (tx, ty)'s t * t cells (row-major; the padding past
// the raster's edge holds the phase's nodata), every tile of the grid once, in row-major tile order,
// from one thread at a time. The commands' sink writes them to a GeoTIFF (engine/commands/flow_run.h).
#pragma once
#include <cstdint>

#include "engine/run/memory_plan.h"

namespace terrazo {

template <class Cell>
class TileSink {
 public:
  virtual ~TileSink() = default;
  virtual void write_tile(std::uint32_t tx, std::uint32_t ty, const Cell* cells) = 0;
};

// The run's threads and plan, which every flow phase takes.
struct FlowPhaseOptions {
  unsigned threads = 0;        // 0: every core
  MemoryPlan* plan = nullptr;  // the run's plan; null: one of its own
};

}  // namespace terrazo
