// engine/flow/fill_resident.cpp: run_fill_resident (engine/flow/fill_resident.h).
#include "engine/flow/fill_resident.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "engine/flow/tile_batches.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"

namespace terrazo {
namespace {

ResidentFillOptions resident_options(const TileGrid& grid, const FillPhaseOptions& options, Device device,
                                     std::uint32_t g) {
  ResidentFillOptions ro;
  static_cast<FillRules&>(ro) = options;
  ro.width = grid.width;
  ro.height = grid.height;
  ro.g = g;
  // Rounds a few waves of the device wide: on a GPU ~512 tiles (an H200 holds 132 SMs x 3 blocks
  // of 66^2 windows at once), on the CPU a few tiles per thread; groups as wide as the device takes.
  ro.batch_tiles = device == Device::Cuda ? 8192 : 64;
  ro.round_tiles = device == Device::Cuda ? 512 : 4ull * std::max(1u, options.threads);
  return ro;
}

constexpr const char* kLoadTiles = "the tiles being read (2 a thread)";
constexpr const char* kWriteTile = "the output tile";

// The plan before any work: the load's tiles, the write's tile beside the sink, and in every phase
// the solver's host memory (the CUDA solver's pinned staging, or the CPU twin's arrays).
void plan_resident(const TileGrid& grid, const ResidentFillOptions& ro, Device device, unsigned threads,
                   const MemoryBudget& budget, MemoryPlan& plan, FillTileSink& sink) {
  const std::uint64_t tile_bytes = std::uint64_t{grid.tile} * grid.tile * 8;
  const std::uint64_t solver = device == Device::Cuda ? resident_fill_pinned_bytes(std::uint64_t{grid.tile} * grid.tile)
                                                      : resident_fill_bytes(ro, Device::Cpu, threads);
  const std::string what = device == Device::Cuda ? "the GPU solver's pinned staging" : "the resident arrays (CPU twin)";
  for (const char* phase : {"fill: load", "fill: solve", "fill: write"}) plan.need(phase, what, solver);
  plan.need("fill: load", kLoadTiles, 2ull * threads * tile_bytes);
  plan.need("fill: write", kWriteTile, tile_bytes);
  sink.declare_bytes(plan, "fill: write");
  assign_flow_plan(plan, "fill", "use fewer --threads or a smaller --tile", budget);
}

// Phase "fill: load": every present tile read by the pool, 2 x threads at a time, and written into
// the solver as the window of its cells inside the raster.
double load_tiles(const TileInput& input, WorkerPool& pool, ResidentFillSolver& solver, Progress& progress) {
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = std::uint64_t{t} * t;
  const unsigned group = 2 * pool.threads();
  std::vector<double> windows(group * tile_cells);
  return run_tile_phase("fill: load", progress, grid, input, pool, group,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        double* window = &windows[k * tile_cells];
        input.read_tile(tx, ty, window);
        const TileWindow in = grid.window(tx, ty);
        for (std::uint32_t y = 1; y < in.h && in.w < t; ++y)  // rows of w cells, packed in place
          std::copy_n(&window[std::size_t{y} * t], in.w, &window[std::size_t{y} * in.w]);
      },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        if (!input.tile_present(tx, ty)) return;
        const TileWindow in = grid.window(tx, ty);
        solver.write_values(in.x0, in.y0, in.w, in.h, &windows[k * tile_cells]);
      });
}

// Phase "fill: write": each tile's filled values read back (absent tiles are nodata), spread to rows
// of t with NaN padding, counted, handed to the sink in row-major order.
double write_tiles(const TileInput& input, ResidentFillSolver& solver, Progress& progress, FillTileSink& sink,
                   FillPhaseResult& result) {
  const Stopwatch watch;
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  std::vector<double> tile(std::size_t{t} * t);
  ResidentFillCounts counts;
  const char* phase = "fill: write";
  progress.update(phase, 0, grid.tile_count());
  for (std::uint64_t k = 0; k < grid.tile_count(); ++k) {
    const auto tx = static_cast<std::uint32_t>(k % grid.tiles_x()), ty = static_cast<std::uint32_t>(k / grid.tiles_x());
    std::fill(tile.begin(), tile.end(), std::nan(""));
    if (input.tile_present(tx, ty)) {
      const TileWindow in = grid.window(tx, ty);
      solver.read_filled(in.x0, in.y0, in.w, in.h, tile.data(), &counts);
      for (std::uint32_t y = in.h; y-- > 0;) {  // rows of w cells to rows of t, from the last row back
        std::copy_backward(&tile[std::size_t{y} * in.w], &tile[std::size_t{y} * in.w + in.w], &tile[std::size_t{y} * t + in.w]);
        std::fill(&tile[std::size_t{y} * t + in.w], &tile[std::size_t{y} * t + t], std::nan(""));
      }
    }
    sink.write_tile(tx, ty, tile.data());
    progress.update(phase, k + 1, grid.tile_count());
  }
  result.valid_cells = counts.valid;
  result.raised_cells = counts.raised;
  result.closed_cells = counts.closed;
  return watch.seconds();
}

}  // namespace

std::uint64_t fill_resident_device_bytes(const TileGrid& grid, const FillPhaseOptions& options, Device device,
                                         std::uint32_t g) {
  // The CPU twin's groups follow the threads (0: every core, as WorkerPool takes it).
  const unsigned threads = std::max(1u, options.threads ? options.threads : std::thread::hardware_concurrency());
  return resident_fill_bytes(resident_options(grid, options, device, g), device, threads);
}

FillPhaseResult run_fill_resident(const TileInput& input, const FillPhaseOptions& options, Device device,
                                  MemoryBudget& budget, Progress& progress, FillTileSink& sink, std::uint32_t g) {
  const TileGrid& grid = input.grid();
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  const ResidentFillOptions ro = resident_options(grid, options, device, g);
  MemoryPlan own_plan;
  MemoryPlan& plan = options.plan ? *options.plan : own_plan;
  plan_resident(grid, ro, device, threads, budget, plan, sink);
  const std::uint64_t tile_bytes = std::uint64_t{grid.tile} * grid.tile * 8;
  MemoryBudget::Reservation solver_bytes = budget.reserve(
      device == Device::Cuda ? resident_fill_pinned_bytes(std::uint64_t{grid.tile} * grid.tile)
                             : resident_fill_bytes(ro, Device::Cpu, threads),
      "fill resident solver");
  FillPhaseResult result;
  result.path = "resident";
  std::unique_ptr<ResidentFillSolver> solver = make_resident_fill_solver(device, ro, pool);
  {
    MemoryBudget::Reservation tiles = budget.reserve(2ull * threads * tile_bytes, "fill load tiles");
    result.load_seconds = load_tiles(input, pool, *solver, progress);
  }
  const char* phase = "fill: solve";
  const Stopwatch solve;
  progress.update(phase, 0, 0);
  result.resident = solver->solve([&](std::uint64_t, std::uint64_t solves) { progress.update(phase, solves, 0); });
  progress.update(phase, result.resident.solves, result.resident.solves);
  result.solve_seconds = solve.seconds();
  MemoryBudget::Reservation tile = budget.reserve(tile_bytes, "fill output tile");
  result.write_seconds = write_tiles(input, *solver, progress, sink, result);
  return result;
}

}  // namespace terrazo
