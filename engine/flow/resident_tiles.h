// engine/flow/resident_tiles.h: the load and write phases of the flow commands' resident paths
// (engine/flow/flowacc_resident.h, engine/flow/watershed_resident.h), whose whole raster lives on one
// device: every tile sent to it once, every tile read back from it once, in row-major tile order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/flow/flow_phase.h"
#include "engine/flow/tile_batches.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/progress.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"

namespace terrazo {

// The bytes load_resident_tiles holds: `threads` tiles of doubles (two each with weights).
inline std::uint64_t resident_load_bytes(std::uint32_t t, unsigned threads, bool weighted) {
  return std::uint64_t{threads} * t * t * 8 * (weighted ? 2 : 1);
}

// Phase `name`: every present tile of `directions` (and of `weights`, when not null) read on the
// pool, `threads` at a time, then send(window, codes, weights) in row-major tile order (t-pitched
// tiles; weights null without them); the phase's seconds.
template <class Send>
double load_resident_tiles(const char* name, const TileInput& directions, const TileInput* weights, unsigned threads,
                           WorkerPool& pool, Progress& progress, Send&& send) {
  const TileGrid& grid = directions.grid();
  const std::size_t cells = std::size_t{grid.tile} * grid.tile;
  std::vector<std::vector<double>> codes(threads, std::vector<double>(cells)),
      amounts(weights ? threads : 0, std::vector<double>(cells));
  return run_tile_phase(name, progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        directions.read_tile(tx, ty, codes[k].data());
        if (weights) weights->read_tile(tx, ty, amounts[k].data());
      },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        if (directions.tile_present(tx, ty))
          send(grid.window(tx, ty), codes[k].data(), weights ? amounts[k].data() : nullptr);
      });
}

// The bytes write_resident_tiles holds: a tile of cells and one of nodata.
template <class Cell>
std::uint64_t resident_write_bytes(std::uint32_t t) {
  return std::uint64_t{t} * t * sizeof(Cell) * 2;
}

// The memory plan of a resident path whose phases are "COMMAND: load", "COMMAND: SOLVE" and "COMMAND:
// write": the solver's host bytes through all three, load_resident_tiles' `threads` tiles of `loaded`
// (two each when weighted), write_resident_tiles' tile of `written` and one of nodata, and the sink's
// bytes; assigned (assign_flow_plan), so that a too small budget is refused before any work.
template <class Cell>
void plan_resident_phases(const std::string& command, const std::string& solve, const std::string& loaded, bool weighted,
                          const std::string& written, const TileGrid& grid, unsigned threads, std::uint64_t solver_bytes,
                          const MemoryBudget& budget, MemoryPlan& plan, TileSink<Cell>& sink) {
  const std::string load = command + ": load", write = command + ": write";
  const char* const solver = "the resident solver's host memory";
  plan.need(load, solver, solver_bytes);
  plan.need(load, std::to_string(threads) + " tiles of " + loaded, resident_load_bytes(grid.tile, threads, weighted));
  plan.need(command + ": " + solve, solver, solver_bytes);
  plan.need(write, solver, solver_bytes);
  plan.need(write, "a tile of " + written + " and one of nodata", resident_write_bytes<Cell>(grid.tile));
  sink.declare_bytes(plan, write);
  assign_flow_plan(plan, command, "use fewer --threads or a smaller --tile", budget);
}

// Phase `name`: each tile in row-major order to the sink: a present one read(window, cells) into a
// t-pitched tile whose padding holds `nodata`, an absent one all `nodata`; the phase's seconds.
template <class Cell, class Read>
double write_resident_tiles(const char* name, const TileInput& directions, Cell nodata, Progress& progress,
                            TileSink<Cell>& sink, Read&& read) {
  const Stopwatch watch;
  const TileGrid& grid = directions.grid();
  const std::vector<Cell> nodata_tile(std::size_t{grid.tile} * grid.tile, nodata);
  std::vector<Cell> cells(nodata_tile.size());
  const std::uint64_t tiles = grid.tile_count();
  progress.update(name, 0, tiles);
  for (std::uint64_t tile = 0; tile < tiles; ++tile) {
    const auto tx = static_cast<std::uint32_t>(tile % grid.tiles_x()), ty = static_cast<std::uint32_t>(tile / grid.tiles_x());
    if (directions.tile_present(tx, ty)) {
      cells = nodata_tile;  // the padding past the raster's edge
      read(grid.window(tx, ty), cells.data());
      sink.write_tile(tx, ty, cells.data());
    } else {
      sink.write_tile(tx, ty, nodata_tile.data());
    }
    progress.update(name, tile + 1, tiles);
  }
  return watch.seconds();
}

}  // namespace terrazo
