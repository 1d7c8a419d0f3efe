// engine/commands/flowdir.cpp: run_flowdir (engine/commands/flowdir.h).
#include "engine/commands/flowdir.h"

#include "kernels/flow/d8_codes.h"

namespace terrazo {

FlowdirResult run_flowdir(const FlowdirOptions& options, RunContext& context) {
  check_flow_options("flowdir", options, context, "its GPU twin is not built yet");
  FlowRun run(options, context);
  check_outlets_exist(options.outlets, options.input, run.input().info());
  FlowdirPhaseOptions o = flow_phase_options<FlowdirPhaseOptions>(context);
  set_outlets(o, options.outlets);
  FlowdirResult result;
  run.write<std::uint8_t>(result, CellType::UInt8, true, double{kD8Nodata}, [&](FlowdirTileSink& sink) {
    return run_flowdir_phases(run.input().cells(), o, context.budget(), context.progress(), sink);
  });
  return result;
}

}  // namespace terrazo
