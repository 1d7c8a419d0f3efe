// engine/flow/flowacc_resident.cpp: run_flowacc_resident (engine/flow/flowacc_resident.h).
#include "engine/flow/flowacc_resident.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/flow/resident_tiles.h"
#include "engine/flow/tile_batches.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/resident_flowacc.h"

namespace terrazo {
namespace {

ResidentFlowAccOptions solver_options(const TileGrid& grid, bool weighted, double scale) {
  ResidentFlowAccOptions o;
  o.width = grid.width;
  o.height = grid.height;
  o.tile = grid.tile;
  o.weighted = weighted;
  o.scale = scale;
  return o;
}

// Host bytes the solver holds: its staging tiles (CUDA), or every cell (the CPU twin).
std::uint64_t solver_host_bytes(const ResidentFlowAccOptions& o, Device device) {
  return device == Device::Cuda ? resident_flowacc_cuda_host_bytes(o) : resident_flowacc_bytes(o);
}

// What the device found wrong, for the fallback's note; "" when nothing.
std::string describe_fault(const ResidentFlowAccStats& s) {
  std::string text;
  const auto add = [&](std::uint64_t count, const char* what) {
    if (count) text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  };
  add(s.bad_codes, "values that are no D8 code");
  add(s.bad_weights, "weights no 64-bit fixed point holds");
  add(s.looped, "cells on loops");
  if (s.overflow) text += std::string(text.empty() ? "" : ", ") + "a partial sum past 64 bits";
  return text;
}

}  // namespace

std::uint64_t flowacc_resident_device_bytes(const TileGrid& grid) {
  return resident_flowacc_bytes(solver_options(grid, false, 1)) + (1ull << 20);  // and the counters, rounded up
}

FlowAccResidentResult run_flowacc_resident(const TileInput& directions, const TileInput* weights,
                                           const FlowAccResidentOptions& options, MemoryBudget& budget,
                                           Progress& progress, FlowAccTileSink& sink) {
  const TileGrid& grid = directions.grid();
  if (weights) require_direction_grid(directions, *weights, "weight");
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  const ResidentFlowAccOptions so = solver_options(grid, weights != nullptr, options.scale);
  const std::uint64_t solver_bytes = solver_host_bytes(so, options.device);
  MemoryPlan own_plan;
  plan_resident_phases<double>("flowacc", "accumulate", weights ? "directions and weights" : "directions", weights != nullptr,
                               "values", grid, threads, solver_bytes, budget, options.plan ? *options.plan : own_plan, sink);
  const MemoryBudget::Reservation solver_held = budget.reserve(solver_bytes, "flowacc: the resident solver");
  std::unique_ptr<ResidentFlowAcc> solver = make_resident_flowacc(options.device, so, pool);
  FlowAccResidentResult result;
  {
    const MemoryBudget::Reservation slots_held =
        budget.reserve(resident_load_bytes(grid.tile, threads, weights != nullptr), "flowacc: tiles being loaded");
    result.phases.load_seconds = load_resident_tiles(
        "flowacc: load", directions, weights, threads, pool, progress,
        [&](const TileWindow& w, const double* codes, const double* amounts) {
          solver->write_codes(w.x0, w.y0, w.w, w.h, grid.tile, codes);
          if (amounts) solver->write_weights(w.x0, w.y0, w.w, w.h, grid.tile, amounts);
        });
  }
  ResidentFlowAccStats stats;
  result.phases.accumulate_seconds = run_step_phase("flowacc: accumulate", progress, [&] { stats = solver->accumulate(); });
  result.kernel_ms = stats.kernel_ms;
  result.fault = describe_fault(stats);
  if (!stats.exact()) return result;
  result.exact = true;
  result.phases.valid_cells = stats.valid_cells;
  result.phases.outlets = stats.outlets;
  result.phases.largest = stats.largest;
  const MemoryBudget::Reservation tiles_held = budget.reserve(resident_write_bytes<double>(grid.tile), "flowacc: the write's tiles");
  result.phases.write_seconds = write_resident_tiles<double>(
      "flowacc: write", directions, std::nan(""), progress, sink,
      [&](const TileWindow& w, double* values) { solver->read_values(w.x0, w.y0, w.w, w.h, grid.tile, values); });
  return result;
}

FlowAccDeviceResult run_flowacc_resident_or_tiles(const TileInput& directions, const TileInput* weights,
                                                  const FlowAccResidentOptions& options, MemoryBudget& budget,
                                                  Progress& progress, FlowAccTileSink& sink) {
  FlowAccDeviceResult result;
  FlowAccResidentResult resident = run_flowacc_resident(directions, weights, options, budget, progress, sink);
  result.kernel_ms = resident.kernel_ms;
  if (resident.exact) {
    result.phases = resident.phases;
    result.resident = true;
    return result;
  }
  result.fallback = "the device found " + resident.fault;
  FlowAccPhaseOptions tiled = options;
  tiled.plan = nullptr;
  result.phases = run_flowacc_phases(directions, weights, tiled, budget, progress, sink);
  return result;
}

}  // namespace terrazo
