// engine/flow/tile_batches.h: the tiles of a grid in row-major order, `count` at a time on a worker
// pool, for the flow phases (engine/flow/*_phases.h).
//
// Contract: body(slot, tx, ty) runs on the pool for each present tile of a batch (slot = its place
// in the batch), then after(slot, tx, ty) on the calling thread for every tile of the batch, present
// or not, in row-major order. An exception of a body is rethrown after its batch, the one of the
// first tile in row-major order: the error a run reports does not depend on the threads.
// run_tile_phase is a Progress phase of for_tile_batches; run_step_phase one of a single step.
#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <vector>

#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/progress.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"

namespace terrazo {

template <class Body, class After>
void for_tile_batches(const TileGrid& grid, const TileInput& input, WorkerPool& pool, unsigned count, Body&& body,
                      After&& after) {
  const std::uint64_t tiles = grid.tile_count();
  std::vector<std::exception_ptr> errors(count);
  for (std::uint64_t first = 0; first < tiles; first += count) {
    const std::uint64_t n = std::min<std::uint64_t>(count, tiles - first);
    std::fill(errors.begin(), errors.end(), nullptr);
    pool.run(n, [&](std::uint64_t k) {
      const std::uint64_t tile = first + k;
      const auto tx = static_cast<std::uint32_t>(tile % grid.tiles_x());
      const auto ty = static_cast<std::uint32_t>(tile / grid.tiles_x());
      try {
        if (input.tile_present(tx, ty)) body(static_cast<unsigned>(k), tx, ty);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
    for (std::uint64_t k = 0; k < n; ++k)
      if (errors[k]) std::rethrow_exception(errors[k]);
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t tile = first + k;
      after(static_cast<unsigned>(k), static_cast<std::uint32_t>(tile % grid.tiles_x()),
            static_cast<std::uint32_t>(tile / grid.tiles_x()));
    }
  }
}

// for_tile_batches as Progress phase `name`: at 0, then after each tile's after(); the phase's seconds.
template <class Body, class After>
double run_tile_phase(const char* name, Progress& progress, const TileGrid& grid, const TileInput& input,
                      WorkerPool& pool, unsigned count, Body&& body, After&& after) {
  const Stopwatch watch;
  const std::uint64_t tiles = grid.tile_count();
  std::uint64_t done = 0;
  progress.update(name, 0, tiles);
  for_tile_batches(grid, input, pool, count, body, [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
    after(k, tx, ty);
    progress.update(name, ++done, tiles);
  });
  return watch.seconds();
}

// The same with nothing to do after a tile but report it.
template <class Body>
double run_tile_phase(const char* name, Progress& progress, const TileGrid& grid, const TileInput& input,
                      WorkerPool& pool, unsigned count, Body&& body) {
  return run_tile_phase(name, progress, grid, input, pool, count, body, [](unsigned, std::uint32_t, std::uint32_t) {});
}

// step() as Progress phase `name` of one step (0 of 1, then 1 of 1); the phase's seconds.
template <class Step>
double run_step_phase(const char* name, Progress& progress, Step&& step) {
  const Stopwatch watch;
  progress.update(name, 0, 1);
  step();
  progress.update(name, 1, 1);
  return watch.seconds();
}

}  // namespace terrazo
