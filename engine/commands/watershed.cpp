// engine/commands/watershed.cpp: run_watershed (engine/commands/watershed.h).
#include "engine/commands/watershed.h"

namespace terrazo {

WatershedResult run_watershed(const WatershedOptions& options, RunContext& context) {
  check_flow_options("watershed", options, context, "its GPU twin is not built yet");
  FlowRun run(options, context);
  WatershedResult result;
  // OUTPUT: UInt32 labels, nodata 0.
  run.write<std::uint32_t>(result, CellType::UInt32, true, 0.0, [&](WatershedTileSink& sink) {
    return run_watershed_phases(run.input().cells(), flow_phase_options<WatershedPhaseOptions>(context),
                                context.budget(), context.progress(), sink);
  });
  return result;
}

}  // namespace terrazo
