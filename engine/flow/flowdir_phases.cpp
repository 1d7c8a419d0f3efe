// engine/flow/flowdir_phases.cpp: run_flowdir_phases (engine/flow/flowdir_phases.h).
#include "engine/flow/flowdir_phases.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/flow/cross_tile_flats.h"
#include "engine/flow/halo_strips.h"
#include "engine/flow/kept_tiles.h"
#include "engine/flow/tile_batches.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/d8_codes.h"
#include "kernels/flow/d8_tile.h"

namespace terrazo {
namespace {

constexpr std::uint32_t kHalo = 2;

// One tile's work: its window with the halo, its cells as read, its directions.
struct Slot {
  explicit Slot(std::uint32_t t) : window((std::size_t{t} + 2 * kHalo) * (t + 2 * kHalo)) {}
  std::vector<double> window, scratch;
  D8Tile tile;
};

void read_window(const TileInput& input, const HaloStrips& strips, std::uint32_t tx, std::uint32_t ty, Slot& slot) {
  const std::uint32_t t = input.grid().tile, s = t + 2 * kHalo;
  slot.scratch.resize(std::size_t{t} * t);
  input.read_tile(tx, ty, slot.scratch.data());
  for (std::uint32_t y = 0; y < t; ++y)
    std::copy_n(slot.scratch.data() + std::size_t{y} * t, t, slot.window.data() + std::size_t{y + kHalo} * s + kHalo);
  strips.fill_halo(tx, ty, slot.window.data());
}

void direct_tile(const TileInput& input, const HaloStrips& strips, const FlowdirPhaseOptions& options, std::uint32_t tx,
                 std::uint32_t ty, Slot& slot) {
  const TileGrid& grid = input.grid();
  read_window(input, strips, tx, ty, slot);
  D8TileInput in;
  in.window = slot.window.data();
  in.t = grid.tile;
  in.x0 = static_cast<std::int64_t>(tx) * grid.tile;
  in.y0 = static_cast<std::int64_t>(ty) * grid.tile;
  in.raster_width = grid.width;
  in.raster_height = grid.height;
  in.edge_outlets = options.edge_outlets;
  in.nodata_outlets = options.nodata_outlets;
  d8_tile(in, slot.tile);
}

// Progress phase `name` over the tiles in batches of slots.size() (engine/flow/tile_batches.h):
// body(tx, ty, slot) for the present tiles on the pool, then after(slot or null for an absent tile,
// tx, ty) on this thread for every tile; the phase's seconds.
template <class Body, class After>
double run_slot_phase(const char* name, Progress& progress, const TileInput& input, WorkerPool& pool,
                      std::vector<Slot>& slots, Body&& body, After&& after) {
  return run_tile_phase(
      name, progress, input.grid(), input, pool, static_cast<unsigned>(slots.size()),
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) { body(tx, ty, slots[k]); },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) { after(input.tile_present(tx, ty) ? &slots[k] : nullptr, tx, ty); });
}

constexpr const char* kKeptCodes = "the first pass's codes kept for the write (what is left)";
const std::vector<std::string> kKeptCodePhases = {"flowdir: directions", "flowdir: flats across tiles", "flowdir: write"};
using KeptCodes = KeptTiles<std::vector<std::uint8_t>>;

void plan_flowdir(const TileGrid& grid, unsigned threads, const MemoryBudget& budget, MemoryPlan& plan,
                  FlowdirTileSink& sink) {
  const std::uint64_t slots = threads * FlowdirPhaseResult::slot_bytes(grid.tile);
  const std::uint64_t offsets = CrossTileFlats::offsets_bytes(grid);
  const std::uint64_t strips = HaloStrips::strips_bytes(grid, kHalo);
  plan.need("flowdir: halos", std::to_string(threads) + " tiles", slots);
  plan.need("flowdir: halos", "the tiles' border strips", strips);
  plan.need("flowdir: directions", "the tiles' border strips", strips);
  plan.need("flowdir: directions", std::to_string(threads) + " tile windows and their directions", slots);
  plan.need("flowdir: directions", "the tile offsets of the flats across tiles (their cells come with the data)", offsets);
  plan.need("flowdir: flats across tiles", std::to_string(threads) + " tile windows and their directions (held between the passes)", slots);
  plan.need("flowdir: flats across tiles", "the tiles' border strips (held between the passes)", strips);
  plan.need("flowdir: flats across tiles", "the tile offsets (the flats' cells come with the data)", offsets);
  plan.need("flowdir: write", std::to_string(threads) + " tile windows and their directions", slots);
  plan.need("flowdir: write", "the tile offsets", offsets);
  plan.need("flowdir: write", "the tiles' border strips", strips);
  sink.declare_bytes(plan, "flowdir: write");
  KeptCodes::plan(plan, kKeptCodePhases, kKeptCodes, grid.tile_count(), std::uint64_t{grid.tile} * grid.tile);
  assign_flow_plan(plan, "flowdir", "use fewer --threads or a smaller --tile", budget);
}

void add_counts(const D8Tile& tile, FlowdirPhaseResult& result) {
  result.valid_cells += tile.valid_cells;
  result.flat_cells += tile.flat_cells;
  result.outlet_cells += tile.outlet_cells;
  result.flats += tile.flats.flats;
  result.undrained_flats += tile.flats.undrained_flats;
  result.undrained_cells += tile.flats.undrained_cells;
}

}  // namespace

std::uint64_t FlowdirPhaseResult::slot_bytes(std::uint32_t t) {
  const std::uint64_t window = (std::uint64_t{t} + 2 * kHalo) * (t + 2 * kHalo) * 8;
  return window + std::uint64_t{t} * t * 8 + d8_tile_bytes(t);
}

FlowdirPhaseResult run_flowdir_phases(const TileInput& input, const FlowdirPhaseOptions& options, MemoryBudget& budget,
                                      Progress& progress, FlowdirTileSink& sink) {
  const TileGrid& grid = input.grid();
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  MemoryPlan own_plan;
  MemoryPlan& plan = options.plan ? *options.plan : own_plan;
  plan_flowdir(grid, threads, budget, plan, sink);
  FlowdirPhaseResult result;
  KeptCodes kept(grid.tile_count(), std::uint64_t{grid.tile} * grid.tile, KeptCodes::cap(plan, kKeptCodePhases, kKeptCodes),
                 budget, "flowdir: kept codes");
  MemoryBudget::Reservation slots_reservation = budget.reserve(threads * FlowdirPhaseResult::slot_bytes(grid.tile), "flowdir tile windows");
  MemoryBudget::Reservation offsets_reservation = budget.reserve(CrossTileFlats::offsets_bytes(grid), "flowdir tile offsets");
  std::vector<Slot> slots(threads, Slot(grid.tile));
  MemoryBudget::Reservation strips_reservation = budget.reserve(HaloStrips::strips_bytes(grid, kHalo), "flowdir border strips");
  HaloStrips strips(grid, kHalo);
  CrossTileFlats crossing(grid);
  const D8Tile none;
  auto direct = [&](std::uint32_t tx, std::uint32_t ty, Slot& slot) { direct_tile(input, strips, options, tx, ty, slot); };

  // 0. Every tile's border strips, for the others' halos.
  result.halos_seconds = run_slot_phase("flowdir: halos", progress, input, pool, slots,
      [&](std::uint32_t tx, std::uint32_t ty, Slot& slot) {
        slot.scratch.resize(std::size_t{grid.tile} * grid.tile);
        input.read_tile(tx, ty, slot.scratch.data());
        strips.add(tx, ty, slot.scratch.data());
      },
      [](Slot*, std::uint32_t, std::uint32_t) {});

  // 1. Every tile's directions; the cells of the flats that leave it gathered.
  result.directions_seconds = run_slot_phase("flowdir: directions", progress, input, pool, slots,
      [&](std::uint32_t tx, std::uint32_t ty, Slot& slot) {
        direct(tx, ty, slot);
        if (kept.keeps(grid.tile_index(tx, ty))) kept.keep(grid.tile_index(tx, ty), slot.tile.code);
      },
      [&](Slot* slot, std::uint32_t tx, std::uint32_t ty) {
        kept.or_drop_kept([&] { crossing.add_tile(tx, ty, slot ? slot->tile : none, budget); });
        if (slot) add_counts(slot->tile, result);
      });

  // 2. The flats across tiles, resolved at once.
  result.flats_seconds = run_step_phase("flowdir: flats across tiles", progress, [&] {
    FlatStats cross;
    kept.or_drop_kept([&] { crossing.resolve(pool, budget, cross); });
    result.flats += cross.flats;
    result.undrained_flats += cross.undrained_flats;
    result.undrained_cells += cross.undrained_cells;
    result.cross_tile_flat_cells = crossing.cells();
  });

  // 3. Every tile again (its codes kept from 1., or computed again), with the codes of its
  // crossing cells, written.
  const std::vector<std::uint8_t> nodata_tile(std::size_t{grid.tile} * grid.tile, kD8Nodata);
  result.write_seconds = run_slot_phase("flowdir: write", progress, input, pool, slots,
      [&](std::uint32_t tx, std::uint32_t ty, Slot& slot) {
        if (std::optional<std::vector<std::uint8_t>> codes = kept.take(grid.tile_index(tx, ty)))
          slot.tile.code.swap(*codes);
        else
          direct(tx, ty, slot);
      },
      [&](Slot* slot, std::uint32_t tx, std::uint32_t ty) {
        if (slot) crossing.apply(tx, ty, slot->tile.code.data());
        // The writer's block cache is reserved at the first tile: the kept tiles give way to it.
        kept.or_drop_kept([&] { sink.write_tile(tx, ty, slot ? slot->tile.code.data() : nodata_tile.data()); });
      });
  result.kept_tiles = kept.reused_tiles();
  return result;
}

}  // namespace terrazo
