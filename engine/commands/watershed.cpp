// engine/commands/watershed.cpp: run_watershed (engine/commands/watershed.h).
#include "engine/commands/watershed.h"

#include <algorithm>
#include <memory>

#include "engine/commands/watershed_pour_points.h"
#include "engine/commands/watershed_streams.h"
#include "engine/flow/pour_points.h"
#include "engine/flow/tile_batches.h"
#include "engine/flow/watershed_resident.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/error.h"
#include "kernels/common/warnings.h"

namespace terrazo {
namespace {

void check_watershed_options(const WatershedOptions& options, const RunContext& context) {
  check_flow_options("watershed", options, context, nullptr,
                     {{"--outlets-file", options.outlets_file}, {"--accumulation", options.accumulation}});
  const bool pour_points = !options.outlets.empty() || !options.outlets_file.empty();
  if (context.device_request() == DeviceRequest::Cuda && (pour_points || options.streams))
    throw UsageError("watershed --device cuda labels every basin; with pour points (--outlet, --outlets-file) or "
                     "--streams it runs on the CPU: drop --device cuda");
  if (options.snap && options.accumulation.empty())
    throw UsageError("--snap N moves the pour points to the largest accumulation nearby: give --accumulation ACC.tif "
                     "(terrazo flowacc's output on the same directions)");
  if (!options.accumulation.empty() && !options.snap && !options.streams)
    throw UsageError("--accumulation ACC.tif is read by --snap N and --streams THRESHOLD only: give one or drop "
                     "--accumulation");
  if (options.snap && !pour_points)
    throw UsageError("--snap N moves pour points: give --outlet X,Y or --outlets-file FILE");
  if (options.map_coords && options.outlets.empty())
    throw UsageError("--map-coords applies to --outlet values: give --outlet X,Y or drop --map-coords");
  check_stream_options(options);
}

// --snap: each pour point to the largest accumulation nearby, in phase "watershed: snap" of the plan.
void snap(const WatershedOptions& options, const TileGrid& grid, RunContext& context, WatershedResult& result) {
  MemoryBudget& budget = context.budget();
  const std::unique_ptr<RasterReader> accumulation =
      RasterReader::open(options.accumulation, 0, RasterReader::kExtractBand, &budget);
  plan_snap(context.plan(), *options.snap, grid.width, *accumulation);
  assign_flow_plan(context.plan(), "watershed", "use a smaller --snap", budget);
  result.snap_seconds = run_step_phase("watershed: snap", context.progress(), [&] {
    snap_pour_points(*accumulation, options.accumulation, grid.width, grid.height, *options.snap, budget,
                     context.plan(), result.pour_points);
  });
  result.bytes_read += accumulation->bytes_read();
}

// PourPointOnNodata (naming a cell) as a UsageError naming the pour point as given.
[[noreturn]] void refuse_on_nodata(const PourPointOnNodata& e, const WatershedResult& result, std::uint64_t width) {
  for (const WatershedPourPoint& p : result.pour_points) {
    if (p.snapped_y * width + p.snapped_x != e.cell()) continue;
    const bool moved = p.snapped_x != p.x || p.snapped_y != p.y;
    const std::string snapped =
        moved ? " (snapped to " + std::to_string(p.snapped_x) + "," + std::to_string(p.snapped_y) + ")" : "";
    throw UsageError(p.text + snapped + " is on a nodata cell of DIRECTIONS; move it onto valid data");
  }
  throw UsageError(e.what());
}

}  // namespace

WatershedResult run_watershed(const WatershedOptions& options, RunContext& context) {
  check_watershed_options(options, context);
  // Pour points and streams run on the CPU; the basins of every outlet on the context's device.
  const bool every_basin = options.outlets.empty() && options.outlets_file.empty() && !options.streams;
  const Device device = every_basin ? context.device() : Device::Cpu;
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(device, context.budget());
  FlowRun run(options, context);
  const TileGrid& grid = run.grid();
  WatershedResult result;
  // On a GPU: the resident path when it fits, else the tiles on the CPU, said in a warning when the
  // GPU was asked for.
  if (device == Device::Cuda)
    result.fallback = resident_misfit("watershed labelling", watershed_resident_device_bytes(grid), context);
  if (!result.fallback.empty() && context.device_request() == DeviceRequest::Cuda)
    warn("watershed --device cuda: " + result.fallback);
  const bool resident = device == Device::Cuda && result.fallback.empty();
  result.pour_points = locate_pour_points(options, run.input().info());
  std::uint64_t points_bytes = 0;  // the list, its texts and the phases' copy of the cells
  for (const WatershedPourPoint& p : result.pour_points) points_bytes += sizeof(p) + p.text.size() + 8;
  const MemoryBudget::Reservation points_held = context.budget().reserve(points_bytes, "watershed pour points as given");
  if (options.snap) snap(options, grid, context, result);
  std::unique_ptr<PipelineInput> accumulation;
  std::unique_ptr<WatershedStreams> streams;
  if (options.streams) {
    accumulation = open_accumulation(options, grid, context);
    streams = std::make_unique<WatershedStreams>(options, run, context);
  }
  WatershedPhaseOptions o = flow_phase_options<WatershedPhaseOptions>(context);
  if (streams) {
    o.more_phases = [&](MemoryPlan& plan, unsigned threads) { streams->declare(plan, threads); };
    run.after_write([&] { result.streams = streams->run(*accumulation); });
  }
  for (const WatershedPourPoint& p : result.pour_points) o.pour_points.push_back(p.snapped_y * grid.width + p.snapped_x);
  // OUTPUT: UInt32 labels, nodata 0.
  try {
    run.write<std::uint32_t>(result, CellType::UInt32, true, 0.0, [&](WatershedTileSink& sink) {
      result.device = device_description(Device::Cpu);
      if (!resident) return run_watershed_phases(run.input().cells(), o, context.budget(), context.progress(), sink);
      WatershedResidentOptions ro;
      static_cast<FlowPhaseOptions&>(ro) = o;
      const WatershedDeviceResult r =
          run_watershed_resident_or_tiles(run.input().cells(), ro, context.budget(), context.progress(), sink);
      result.path = r.resident ? "resident" : "tiles";
      if (r.resident) result.device = device_description(Device::Cuda);
      result.fallback = r.fallback;
      result.kernel_ms = r.kernel_ms;
      return r.phases;
    });
  } catch (const PourPointOnNodata& e) {
    refuse_on_nodata(e, result, grid.width);
  }
  if (accumulation) {
    result.bytes_read += accumulation->bytes_read();
    result.bytes_written += accumulation->bytes_written() + streams->bytes_written();
  }
  const WatershedPhaseResult& phases = result.phases;
  for (WatershedPourPoint& p : result.pour_points) {
    const std::uint64_t cell = p.snapped_y * grid.width + p.snapped_x;
    const auto at = std::lower_bound(phases.pour_point_cells.begin(), phases.pour_point_cells.end(), cell);
    p.basin = phases.pour_point_basins[static_cast<std::size_t>(at - phases.pour_point_cells.begin())];
  }
  return result;
}

}  // namespace terrazo
