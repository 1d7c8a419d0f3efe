// engine/flow/flowdir_resident.cpp: run_flowdir_resident (engine/flow/flowdir_resident.h).
#include "engine/flow/flowdir_resident.h"

#include <memory>
#include <string>

#include "engine/flow/resident_tiles.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

ResidentFlowdirOptions solver_options(const TileGrid& grid, const FlowdirResidentOptions& options) {
  ResidentFlowdirOptions o;
  o.width = grid.width;
  o.height = grid.height;
  o.tile = grid.tile;
  o.g = options.g;
  o.edge_outlets = options.edge_outlets;
  o.nodata_outlets = options.nodata_outlets;
  return o;
}

// Host bytes the solver holds: its staging tiles (CUDA), or every cell (the CPU twin).
std::uint64_t solver_host_bytes(const ResidentFlowdirOptions& o, Device device, unsigned threads) {
  return device == Device::Cuda ? resident_flowdir_cuda_host_bytes(o) : resident_flowdir_bytes(o, Device::Cpu, threads);
}

}  // namespace

std::uint64_t flowdir_resident_device_bytes(const TileGrid& grid) {
  FlowdirResidentOptions options;
  return resident_flowdir_bytes(solver_options(grid, options), Device::Cuda, 1);
}

FlowdirPhaseResult run_flowdir_resident(const TileInput& input, const FlowdirResidentOptions& options, MemoryBudget& budget,
                                        Progress& progress, FlowdirTileSink& sink) {
  const TileGrid& grid = input.grid();
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  const ResidentFlowdirOptions so = solver_options(grid, options);
  const std::uint64_t solver_bytes = solver_host_bytes(so, options.device, threads);
  MemoryPlan own_plan;
  plan_resident_phases<std::uint8_t>("flowdir", "solve", "elevations", false, "codes", grid, threads, solver_bytes, budget,
                                     options.plan ? *options.plan : own_plan, sink);
  const MemoryBudget::Reservation solver_held = budget.reserve(solver_bytes, "flowdir: the resident solver");
  std::unique_ptr<ResidentFlowdir> solver = make_resident_flowdir(options.device, so, pool);
  FlowdirPhaseResult result;
  result.path = "resident";
  {
    const MemoryBudget::Reservation slots_held =
        budget.reserve(resident_load_bytes(grid.tile, threads, false), "flowdir: tiles being loaded");
    result.load_seconds = load_resident_tiles("flowdir: load", input, nullptr, threads, pool, progress,
                                              [&](const TileWindow& w, const double* values, const double*) {
                                                solver->write_values(w.x0, w.y0, w.w, w.h, grid.tile, values);
                                              });
  }
  const char* phase = "flowdir: solve";
  const Stopwatch solve;
  progress.update(phase, 0, 0);
  const ResidentFlowdirStats stats = solver->solve([&](std::uint64_t, std::uint64_t solves) { progress.update(phase, solves, 0); });
  progress.update(phase, stats.solves, stats.solves);
  result.solve_seconds = solve.seconds();
  result.resident = stats;
  static_cast<FlowdirCounts&>(result) = stats;
  const MemoryBudget::Reservation tiles_held =
      budget.reserve(resident_write_bytes<std::uint8_t>(grid.tile), "flowdir: the write's tiles");
  result.write_seconds = write_resident_tiles<std::uint8_t>(
      "flowdir: write", input, kD8Nodata, progress, sink,
      [&](const TileWindow& w, std::uint8_t* codes) { solver->read_codes(w.x0, w.y0, w.w, w.h, grid.tile, codes); });
  return result;
}

}  // namespace terrazo
