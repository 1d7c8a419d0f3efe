// engine/flow/watershed_resident.cpp: run_watershed_resident_or_tiles (engine/flow/watershed_resident.h).
#include "engine/flow/watershed_resident.h"

#include <memory>
#include <string>

#include "engine/flow/resident_tiles.h"
#include "kernels/common/error.h"
#include "kernels/flow/resident_watershed.h"

namespace terrazo {
namespace {

ResidentWatershedOptions solver_options(const TileGrid& grid) {
  ResidentWatershedOptions o;
  o.width = grid.width;
  o.height = grid.height;
  o.tile = grid.tile;
  return o;
}

// Host bytes the solver holds: its staging tiles and chunk counts (CUDA), or every cell (the CPU twin).
std::uint64_t solver_host_bytes(const ResidentWatershedOptions& o, Device device) {
  return device == Device::Cuda ? resident_watershed_cuda_host_bytes(o) : resident_watershed_bytes(o);
}

std::string describe_fault(const ResidentWatershedStats& s) {
  std::string text;
  const auto add = [&](bool any, const std::string& what) {
    if (any) text += (text.empty() ? "" : ", ") + what;
  };
  add(s.bad_codes, std::to_string(s.bad_codes) + " values that are no D8 code");
  add(s.looped, std::to_string(s.looped) + " cells whose flow loops");
  add(s.basins > 0xffffffffull, std::to_string(s.basins) + " basins, more than UInt32 labels");
  return text;
}

// The resident path; `exact` false (nothing written) when the device found a fault.
bool run_resident(const TileInput& directions, const WatershedResidentOptions& options, MemoryBudget& budget,
                  Progress& progress, WatershedTileSink& sink, WatershedDeviceResult& result) {
  const TileGrid& grid = directions.grid();
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  const ResidentWatershedOptions so = solver_options(grid);
  const std::uint64_t solver_bytes = solver_host_bytes(so, options.device);
  MemoryPlan own_plan;
  plan_resident_phases<std::uint32_t>("watershed", "label", "directions", false, "labels", grid, threads, solver_bytes,
                                      budget, options.plan ? *options.plan : own_plan, sink);
  const MemoryBudget::Reservation solver_held = budget.reserve(solver_bytes, "watershed: the resident solver");
  std::unique_ptr<ResidentWatershed> solver = make_resident_watershed(options.device, so, pool);
  {
    const MemoryBudget::Reservation slots_held =
        budget.reserve(resident_load_bytes(grid.tile, threads, false), "watershed: tiles being loaded");
    result.phases.load_seconds = load_resident_tiles(
        "watershed: load", directions, nullptr, threads, pool, progress,
        [&](const TileWindow& w, const double* codes, const double*) {
          solver->write_codes(w.x0, w.y0, w.w, w.h, grid.tile, codes);
        });
  }
  ResidentWatershedStats stats;
  result.phases.label_seconds = run_step_phase("watershed: label", progress, [&] { stats = solver->label(); });
  result.kernel_ms = stats.kernel_ms;
  result.rounds = stats.rounds;
  result.fallback = describe_fault(stats);
  if (!stats.exact()) return false;
  result.phases.valid_cells = result.phases.labelled_cells = stats.valid_cells;
  result.phases.basins = stats.basins;
  const MemoryBudget::Reservation tiles_held =
      budget.reserve(resident_write_bytes<std::uint32_t>(grid.tile), "watershed: the write's tiles");
  result.phases.write_seconds = write_resident_tiles<std::uint32_t>(
      "watershed: write", directions, 0u, progress, sink,
      [&](const TileWindow& w, std::uint32_t* labels) { solver->read_labels(w.x0, w.y0, w.w, w.h, grid.tile, labels); });
  return true;
}

}  // namespace

std::uint64_t watershed_resident_device_bytes(const TileGrid& grid) {
  return resident_watershed_bytes(solver_options(grid)) + (1ull << 20);  // and the counters, rounded up
}

WatershedDeviceResult run_watershed_resident_or_tiles(const TileInput& directions, const WatershedResidentOptions& options,
                                                      MemoryBudget& budget, Progress& progress, WatershedTileSink& sink) {
  WatershedDeviceResult result;
  result.resident = run_resident(directions, options, budget, progress, sink, result);
  if (result.resident) return result;
  result.fallback = "the device found " + result.fallback;
  WatershedPhaseOptions tiled;
  tiled.threads = options.threads;
  result.phases = run_watershed_phases(directions, tiled, budget, progress, sink);
  return result;
}

}  // namespace terrazo
