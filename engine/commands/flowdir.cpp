// engine/commands/flowdir.cpp: run_flowdir (engine/commands/flowdir.h).
#include "engine/commands/flowdir.h"

#include <string>

#include "engine/flow/flowdir_resident.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/warnings.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {

FlowdirResult run_flowdir(const FlowdirOptions& options, RunContext& context) {
  check_flow_options("flowdir", options, context, nullptr);
  const Device device = context.device();
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(device, context.budget());
  FlowRun run(options, context);
  check_outlets_exist(options.outlets, options.input, run.input().info());
  FlowdirResidentOptions o;
  static_cast<FlowdirPhaseOptions&>(o) = flow_phase_options<FlowdirPhaseOptions>(context);
  set_outlets(o, options.outlets);
  // --device cuda (or auto on a GPU): the resident directions when they fit the GPU, else the tiles
  // on the CPU, said in a warning when the GPU was asked for.
  const std::string misfit =
      device == Device::Cuda ? resident_misfit("flowdir (31 bytes a cell)", flowdir_resident_device_bytes(run.grid()), context)
                             : "";
  if (!misfit.empty() && context.device_request() == DeviceRequest::Cuda) warn("flowdir --device cuda: " + misfit);
  const bool resident = device == Device::Cuda && misfit.empty();
  FlowdirResult result;
  run.write<std::uint8_t>(result, CellType::UInt8, true, double{kD8Nodata}, [&](FlowdirTileSink& sink) {
    FlowdirPhaseResult phases =
        resident ? run_flowdir_resident(run.input().cells(), o, context.budget(), context.progress(), sink)
                 : run_flowdir_phases(run.input().cells(), o, context.budget(), context.progress(), sink);
    phases.device = device_description(resident ? Device::Cuda : Device::Cpu);
    phases.fallback = misfit;
    return phases;
  });
  return result;
}

}  // namespace terrazo
