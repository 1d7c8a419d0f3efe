// engine/commands/fill.cpp: run_fill (engine/commands/fill.h).
#include "engine/commands/fill.h"

#include <cmath>

#include "kernels/common/error.h"
#include "kernels/common/named_values.h"

namespace terrazo {
namespace {

constexpr NamedValue<FillOutlets> kOutletNames[] = {
    {"both", FillOutlets::Both}, {"edge", FillOutlets::Edge}, {"nodata", FillOutlets::Nodata}};

void check_fill_options(const FillOptions& options, const RunContext& context) {
  check_flow_options("fill", options, context, "its GPU tile flood is not built yet");
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
  FlowRun run(options, context);
  const RasterInfo& info = run.input().info();
  check_outlets_exist(options.outlets, options.input, info);
  FillPhaseOptions o = flow_phase_options<FillPhaseOptions>(context);
  o.connectivity = options.connectivity;
  set_outlets(o, options.outlets);
  // OUTPUT: INPUT's type and nodata. Without a nodata value, a float raster gets NaN for closed
  // regions; an integer one has none to write (check_outlets_exist refuses the outlets that could
  // close a region then).
  FillResult result;
  run.write<double>(result, info.type, info.has_nodata || !cell_type_is_integer(info.type),
                    info.has_nodata ? info.nodata : std::nan(""), [&](FillTileSink& sink) {
                      return run_fill_phases(run.input().cells(), o, context.budget(), context.progress(), sink);
                    });
  return result;
}

}  // namespace terrazo
