// engine/commands/flowacc.cpp: run_flowacc (engine/commands/flowacc.h).
#include "engine/commands/flowacc.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/flow/flowacc_resident.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/error.h"
#include "kernels/common/named_values.h"
#include "kernels/common/warnings.h"

namespace terrazo {
namespace {

constexpr NamedValue<FlowAccType> kTypeNames[] = {
    {"auto", FlowAccType::Auto}, {"UInt32", FlowAccType::UInt32}, {"Float64", FlowAccType::Float64}};

void check_flowacc_options(const FlowAccOptions& options, const RunContext& context) {
  check_flow_options("flowacc", options, context, nullptr, {{"--weight", options.weight}});
  if (!options.weight.empty() && options.type == FlowAccType::UInt32)
    throw UsageError("--ot UInt32 with --weight: weighted sums are Float64; drop --ot");
  if (options.weight.empty() && options.scale != 0)
    throw UsageError("--scale applies to --weight only: give --weight RASTER or drop --scale");
  if (options.scale < 0 || !std::isfinite(options.scale))
    throw UsageError("invalid --scale " + format_value(options.scale) + ": expected a number > 0");
}

CellType output_type(const FlowAccOptions& options, const TileGrid& grid) {
  if (!options.weight.empty() || options.type == FlowAccType::Float64) return CellType::Float64;
  if (options.type == FlowAccType::UInt32) return CellType::UInt32;
  return grid.width * grid.height < (1ull << 32) ? CellType::UInt32 : CellType::Float64;
}

// The weight raster, on INPUT's grid and tiles.
std::unique_ptr<PipelineInput> open_weights(const FlowAccOptions& options, const TileGrid& grid, RunContext& context) {
  PipelineInputOptions in;
  in.path = options.weight;
  in.tile = grid.tile;
  in.mode = options.input_mode;
  in.threads = context.worker_threads();
  in.statistics = options.scale == 0;
  std::unique_ptr<PipelineInput> weights = open_pipeline_input(in, context.run_directory(), context.budget(), context.progress());
  const TileGrid& g = weights->grid();
  if (g.width != grid.width || g.height != grid.height)
    throw UsageError("--weight '" + options.weight + "' is " + std::to_string(g.width) + " x " + std::to_string(g.height) +
                     " cells, INPUT " + std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                     ": the weights must be on the directions' grid");
  if (g.tile != grid.tile)
    throw UsageError("--weight '" + options.weight + "' is a tile store of tile " + std::to_string(g.tile) +
                     ", INPUT's tiles are " + std::to_string(grid.tile) + ": give both on one tile size (--tile)");
  return weights;
}

}  // namespace

FlowAccType parse_flowacc_type(const std::string& text) { return parse_named_value("--ot", text, kTypeNames, true); }

const char* to_string(FlowAccType type) { return value_name(type, kTypeNames); }

double default_flowacc_scale(double largest, std::uint64_t cells, bool integer_type) {
  const double total = std::fabs(largest) * static_cast<double>(cells);
  if (integer_type || !(total > 0)) return 1;
  const double limit = 4611686018427387904.0;  // 2^62
  double scale = std::pow(10.0, std::floor(std::log10(limit / total)));
  while (total * scale > limit) scale /= 10;
  return scale;
}

FlowAccResult run_flowacc(const FlowAccOptions& options, RunContext& context) {
  check_flowacc_options(options, context);
  const Device device = context.device();
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(device, context.budget());
  FlowRun run(options, context);
  std::unique_ptr<PipelineInput> weights;
  FlowAccPhaseOptions o = flow_phase_options<FlowAccPhaseOptions>(context);
  if (!options.weight.empty()) {
    weights = open_weights(options, run.grid(), context);
    const RasterInfo& w = weights->info();
    o.scale = options.scale != 0 ? options.scale
                                 : default_flowacc_scale(std::max(std::fabs(w.min), std::fabs(w.max)), w.valid_cells,
                                                         cell_type_is_integer(w.type));
    o.overflow_remedy = "give a smaller --scale (it is " + format_value(o.scale) + ")";
  }
  // --device cuda (or auto on a GPU): the resident path when it fits the GPU, else the tiles on the
  // CPU, said in a warning when the GPU was asked for.
  FlowAccResult result;
  if (device == Device::Cuda)
    result.fallback = resident_misfit("flow accumulation", flowacc_resident_device_bytes(run.grid()), context);
  if (!result.fallback.empty() && context.device_request() == DeviceRequest::Cuda)
    warn("flowacc --device cuda: " + result.fallback);
  const bool resident = device == Device::Cuda && result.fallback.empty();
  result.type = output_type(options, run.grid());
  result.scale = o.scale;
  // Every valid count is >= 1, so 0 is free for nodata; floats take NaN.
  run.write<double>(result, result.type, true, result.type == CellType::UInt32 ? 0.0 : std::nan(""),
                    [&](FlowAccTileSink& sink) {
                      const TileInput* w = weights ? &weights->cells() : nullptr;
                      result.device = device_description(Device::Cpu);
                      if (!resident)
                        return run_flowacc_phases(run.input().cells(), w, o, context.budget(), context.progress(), sink);
                      FlowAccResidentOptions ro;
                      static_cast<FlowAccPhaseOptions&>(ro) = o;
                      const FlowAccDeviceResult r = run_flowacc_resident_or_tiles(run.input().cells(), w, ro,
                                                                                  context.budget(), context.progress(), sink);
                      result.path = r.resident ? "resident" : "tiles";
                      if (r.resident) result.device = device_description(Device::Cuda);
                      result.fallback = r.fallback;
                      result.kernel_ms = r.kernel_ms;
                      return r.phases;
                    });
  result.largest = static_cast<double>(result.phases.largest) / o.scale;
  if (weights) {
    result.bytes_read += weights->bytes_read();
    result.bytes_written += weights->bytes_written();
  }
  return result;
}

}  // namespace terrazo
