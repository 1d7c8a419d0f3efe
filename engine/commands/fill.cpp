// engine/commands/fill.cpp: run_fill (engine/commands/fill.h).
#include "engine/commands/fill.h"

#include <cmath>

#include "engine/flow/fill_resident.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/error.h"
#include "kernels/common/named_values.h"
#include "kernels/common/warnings.h"

namespace terrazo {
namespace {

constexpr NamedValue<FillOutlets> kOutletNames[] = {
    {"both", FillOutlets::Both}, {"edge", FillOutlets::Edge}, {"nodata", FillOutlets::Nodata}};

void check_fill_options(const FillOptions& options, const RunContext& context) {
  check_flow_options("fill", options, context, nullptr);
  if (options.connectivity == Connectivity::Sixteen) throw UsageError("fill takes --connectivity 8 or 4, not 16");
}

}  // namespace

FillOutlets parse_fill_outlets(const std::string& text) { return parse_named_value("--outlets", text, kOutletNames); }

const char* to_string(FillOutlets outlets) { return value_name(outlets, kOutletNames); }

void check_outlets_exist(FillOutlets outlets, const std::string& input, const RasterInfo& info) {
  if (outlets != FillOutlets::Nodata || info.has_nodata || !cell_type_is_integer(info.type)) return;
  throw UsageError("--outlets nodata on '" + input + "', which has no nodata value: no cell is an outlet; "
                   "give --outlets edge or both");
}

FillResult run_fill(const FillOptions& options, RunContext& context) {
  check_fill_options(options, context);
  const Device device = context.device();
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(device, context.budget());
  FlowRun run(options, context);
  const RasterInfo& info = run.input().info();
  check_outlets_exist(options.outlets, options.input, info);
  FillPhaseOptions o = flow_phase_options<FillPhaseOptions>(context);
  o.connectivity = options.connectivity;
  set_outlets(o, options.outlets);
  // --device cuda (or auto on a GPU): the resident fill when it fits the GPU, else the tiles on the
  // CPU, said in a warning when the GPU was asked for.
  const std::string misfit =
      device == Device::Cuda
          ? resident_misfit("fill (16 bytes a cell)", fill_resident_device_bytes(run.grid(), o, Device::Cuda), context)
          : "";
  if (!misfit.empty() && context.device_request() == DeviceRequest::Cuda) warn("fill --device cuda: " + misfit);
  const bool resident = device == Device::Cuda && misfit.empty();
  // OUTPUT: INPUT's type and nodata. Without a nodata value, a float raster gets NaN for closed
  // regions; an integer one has none to write (check_outlets_exist refuses the outlets that could
  // close a region then).
  FillResult result;
  run.write<double>(result, info.type, info.has_nodata || !cell_type_is_integer(info.type),
                    info.has_nodata ? info.nodata : std::nan(""), [&](FillTileSink& sink) {
                      FillPhaseResult phases =
                          resident ? run_fill_resident(run.input().cells(), o, Device::Cuda, context.budget(),
                                                       context.progress(), sink)
                                   : run_fill_phases(run.input().cells(), o, context.budget(), context.progress(), sink);
                      phases.device = device_description(resident ? Device::Cuda : Device::Cpu);
                      phases.fallback = misfit;
                      return phases;
                    });
  return result;
}

}  // namespace terrazo
