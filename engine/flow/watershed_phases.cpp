// engine/flow/watershed_phases.cpp: run_watershed_phases (engine/flow/watershed_phases.h).
#include "engine/flow/watershed_phases.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "engine/flow/flow_links.h"
#include "engine/flow/pour_points.h"
#include "engine/flow/tile_batches.h"
#include "engine/flow/tile_extent.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/d8_codes.h"
#include "kernels/flow/tile_d8.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kSpanning = 1ull << 63;  // basin key: kSpanning | its index among the spanning basins
constexpr std::uint64_t kNoBasin = ~0ull;        // nodata; else the in-tile index of its outlet
constexpr std::uint64_t kOutside = ~0ull - 1;     // a valid cell whose flow reaches no pour point

std::uint64_t slot_bytes(std::uint32_t t) { return std::uint64_t{t} * t * (8 + 4 + 8 + 8 + 1 + 4 + 4) + tile_d8_bytes(t); }

// One tile's work: codes, ordered flow, path ends, each cell's basin key, and the labelling's state.
struct BasinSlot {
  explicit BasinSlot(std::uint32_t t)
      : cells(std::size_t{t} * t), end(std::size_t{t} * t), key_of_end(std::size_t{t} * t), basin(std::size_t{t} * t),
        seen(std::size_t{t} * t), local_label(std::size_t{t} * t), labels(std::size_t{t} * t) {}
  std::vector<double> cells;
  TileD8 flow;
  std::vector<std::uint32_t> end;
  std::vector<std::uint64_t> key_of_end, basin;
  std::vector<std::uint8_t> seen;
  std::vector<std::uint32_t> local_label, labels;
};

// The basins that span tiles (by outlet, sorted), their first cells and labels; the counts of first
// cells per tile row (then their prefix along each band of tiles) and per raster row (then the prefix).
struct Basins {
  std::vector<std::uint64_t> outlets;
  std::vector<std::atomic<std::uint64_t>> first;
  std::vector<std::uint32_t> label;
  std::vector<std::uint32_t> tile_row;  // tiles * t
  std::vector<std::uint64_t> row;       // height + 1
  std::vector<char> holds_first;        // by tile: holds the first cell of a spanning basin

  void lower_first(std::size_t i, std::uint64_t id) {
    std::uint64_t now = first[i].load(std::memory_order_relaxed);
    while (id < now && !first[i].compare_exchange_weak(now, id, std::memory_order_relaxed)) {
    }
  }
};

class BasinTiles {
 public:
  BasinTiles(const TileInput& input, const FlowLinks& links, const PourPoints& pour, Basins& basins)
      : input_(input), links_(links), pour_(pour), basins_(basins), grid_(input.grid()) {}

  // Reads and orders tile (tx, ty), its pour points made outlets: its path ends, and for links_ set,
  // its cells' basin keys.
  void load(BasinSlot& slot, std::uint32_t tx, std::uint32_t ty, bool keys) const {
    input_.read_tile(tx, ty, slot.cells.data());
    pour_.make_outlets(tx, ty, slot.cells.data());
    order_tile_d8(tile_d8_input(grid_, tx, ty, slot.cells.data()), slot.flow);
    tile_d8_path_ends(slot.flow, slot.end.data());
    if (keys) assign_basins(slot, tx, ty);
  }

  // Each basin's first cell: counted per row when the basin lies in this tile alone, else lowered.
  // The tile's valid cells and those in a basin added to `valid` and `labelled`.
  void count_firsts(BasinSlot& slot, std::uint32_t tx, std::uint32_t ty, std::uint64_t& valid,
                    std::uint64_t& labelled) {
    std::fill(slot.seen.begin(), slot.seen.end(), 0);
    const TileWindow w = grid_.window(tx, ty);
    const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
    for (std::uint32_t y = 0; y < w.h; ++y)
      for (std::uint32_t x = 0; x < w.w; ++x) {
        const std::uint64_t b = slot.basin[std::size_t{y} * grid_.tile + x];
        if (b == kNoBasin) continue;
        ++valid;
        if (b == kOutside) continue;
        ++labelled;
        if (b & kSpanning) {
          basins_.lower_first(b & ~kSpanning, (w.y0 + y) * grid_.width + w.x0 + x);
        } else if (!slot.seen[b]) {
          slot.seen[b] = 1;
          ++basins_.tile_row[tile * grid_.tile + y];
        }
      }
  }

  // Labels tile (tx, ty): a basin's label is 1 + the first cells before its own in raster order (the
  // rows above, the tiles to the left in its row, the cells to the left in the tile). `spanning`:
  // set the labels of the spanning basins whose first cell lies here.
  void label(BasinSlot& slot, std::uint32_t tx, std::uint32_t ty, bool spanning) {
    std::fill(slot.seen.begin(), slot.seen.end(), 0);
    std::fill(slot.labels.begin(), slot.labels.end(), 0);
    const TileWindow w = grid_.window(tx, ty);
    const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
    for (std::uint32_t y = 0; y < w.h; ++y) {
      std::uint64_t next = 1 + basins_.row[w.y0 + y] + basins_.tile_row[tile * grid_.tile + y];
      for (std::uint32_t x = 0; x < w.w; ++x) {
        const std::size_t i = std::size_t{y} * grid_.tile + x;
        const std::uint64_t b = slot.basin[i];
        if (b == kNoBasin || b == kOutside) continue;
        if (b & kSpanning) {
          const std::size_t s = b & ~kSpanning;
          if (basins_.first[s].load(std::memory_order_relaxed) == (w.y0 + y) * grid_.width + w.x0 + x) {
            if (spanning) basins_.label[s] = static_cast<std::uint32_t>(next);
            ++next;
          }
          if (!spanning) slot.labels[i] = basins_.label[s];  // set by the ranks phase
        } else {
          if (!slot.seen[b]) slot.seen[b] = 1, slot.local_label[b] = static_cast<std::uint32_t>(next++);
          slot.labels[i] = slot.local_label[b];
        }
      }
    }
  }

 private:
  // The basin key of each valid cell, from the key of the end of its path in the tile: with pour
  // points, kOutside when that path's outlet is none of them.
  void assign_basins(BasinSlot& slot, std::uint32_t tx, std::uint32_t ty) const {
    const TileWindow w = grid_.window(tx, ty);
    for (const std::uint32_t c : slot.flow.order) {
      if (slot.end[c] != c) continue;  // not the end of a path
      const std::uint64_t outlet = slot.flow.next[c] == kFlowLeaves
                                       ? links_.outlet(tx, ty, c)
                                       : (w.y0 + c / grid_.tile) * grid_.width + w.x0 + c % grid_.tile;
      if (!pour_.empty() && !pour_.holds(outlet)) {
        slot.key_of_end[c] = kOutside;
        continue;
      }
      const auto at = std::lower_bound(basins_.outlets.begin(), basins_.outlets.end(), outlet);
      slot.key_of_end[c] = at != basins_.outlets.end() && *at == outlet
                               ? kSpanning | static_cast<std::uint64_t>(at - basins_.outlets.begin())
                               : c;
    }
    for (std::size_t i = 0; i < slot.basin.size(); ++i)
      slot.basin[i] = slot.flow.code[i] == kD8Nodata ? kNoBasin : slot.key_of_end[slot.end[i]];
  }

  const TileInput& input_;
  const FlowLinks& links_;
  const PourPoints& pour_;
  Basins& basins_;
  TileGrid grid_;
};

// The spanning basins' first cells counted in with the others, then the prefixes: along each band of
// tiles (exclusive, per row) and down the raster's rows (exclusive; row[height] = K).
void count_spanning_firsts(const TileGrid& grid, Basins& basins) {
  for (std::size_t s = 0; s < basins.outlets.size(); ++s) {
    const std::uint64_t f = basins.first[s].load(std::memory_order_relaxed);
    const std::uint64_t x = f % grid.width, y = f / grid.width;
    const std::uint64_t tile = (y / grid.tile) * grid.tiles_x() + x / grid.tile;
    ++basins.tile_row[tile * grid.tile + y % grid.tile];
    basins.holds_first[tile] = 1;
  }
  std::uint64_t above = 0;
  for (std::uint64_t y = 0; y < grid.height; ++y) {
    const std::uint64_t band = y / grid.tile, r = y % grid.tile;
    std::uint64_t left = 0;
    for (std::uint64_t tx = 0; tx < grid.tiles_x(); ++tx) {
      std::uint32_t& count = basins.tile_row[(band * grid.tiles_x() + tx) * grid.tile + r];
      const std::uint64_t here = count;
      count = static_cast<std::uint32_t>(left);
      left += here;
    }
    basins.row[y] = above;
    above += left;
  }
  basins.row[grid.height] = above;
  if (above >= 0xffffffffull)
    throw Error("the direction raster has " + std::to_string(above) + " basins: more than UInt32 labels hold");
}

void plan_watershed(const TileGrid& grid, unsigned threads, std::uint64_t pour_points, const WatershedPhaseOptions& options,
                    const MemoryBudget& budget, MemoryPlan& plan, WatershedTileSink& sink) {
  const std::uint64_t perimeter = FlowLinks::most_perimeter_cells(grid);
  const std::uint64_t links = perimeter * FlowLinks::bytes_per_cell();
  const std::uint64_t slots = threads * slot_bytes(grid.tile);
  const std::uint64_t counts = grid.tile_count() * (grid.tile * 4ull + 1) + (grid.height + 1) * 8;
  const std::uint64_t spanning = perimeter * 20;  // at most one basin per exit
  const std::string batch = std::to_string(threads) + " tiles' work";
  if (pour_points > 0)
    for (const char* phase :
         {"watershed: tiles", "watershed: links", "watershed: firsts", "watershed: ranks", "watershed: write"})
      plan.need(phase, "the pour points", pour_points * PourPoints::bytes_per_point());
  plan.need("watershed: tiles", batch, slots);
  plan.need("watershed: tiles", "the links of the tiles' perimeters", links);
  plan.need("watershed: links", batch + " (held between the passes)", slots);
  plan.need("watershed: links", "the links of the tiles' perimeters", links);
  plan.need("watershed: links", "their states and the spanning basins", perimeter * (4 + 20));
  for (const char* phase : {"watershed: firsts", "watershed: ranks", "watershed: write"}) {
    plan.need(phase, batch, slots);
    plan.need(phase, "the links of the tiles' perimeters", links);
    plan.need(phase, "the basins that span tiles", spanning);
    plan.need(phase, "the counts of first cells", counts);
  }
  sink.declare_bytes(plan, "watershed: write");
  if (options.more_phases) options.more_phases(plan, threads);
  assign_flow_plan(plan, "watershed", kLinksRemedy, budget);
}

// The spanning basins (from the solved links; with pour points, those of pour points) and the counts
// of first cells, reserved from `budget`.
MemoryBudget::Reservation prepare_basins(const FlowLinks& links, const TileGrid& grid, const PourPoints& pour,
                                         MemoryBudget& budget, Basins& basins) {
  MemoryBudget::Reservation held = budget.reserve(
      links.exits() * 20 + grid.tile_count() * (grid.tile * 4ull + 1) + (grid.height + 1) * 8, "watershed basins");
  basins.outlets = links.crossing_outlets();
  if (!pour.empty())
    basins.outlets.erase(std::remove_if(basins.outlets.begin(), basins.outlets.end(),
                                        [&](std::uint64_t outlet) { return !pour.holds(outlet); }),
                         basins.outlets.end());
  basins.first = std::vector<std::atomic<std::uint64_t>>(basins.outlets.size());
  for (auto& f : basins.first) f.store(~0ull, std::memory_order_relaxed);
  basins.label.assign(basins.outlets.size(), 0);
  basins.tile_row.assign(grid.tile_count() * grid.tile, 0);
  basins.row.assign(grid.height + 1, 0);
  basins.holds_first.assign(grid.tile_count(), 0);
  return held;
}

}  // namespace

WatershedPhaseResult run_watershed_phases(const TileInput& directions, const WatershedPhaseOptions& options,
                                          MemoryBudget& budget, Progress& progress, WatershedTileSink& sink) {
  const TileGrid& grid = directions.grid();
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  MemoryPlan own_plan;
  std::vector<std::uint64_t> pour_cells = options.pour_points;
  std::sort(pour_cells.begin(), pour_cells.end());
  pour_cells.erase(std::unique(pour_cells.begin(), pour_cells.end()), pour_cells.end());
  plan_watershed(grid, threads, pour_cells.size(), options, budget, options.plan ? *options.plan : own_plan, sink);
  const MemoryBudget::Reservation pour_held =
      budget.reserve(pour_cells.size() * PourPoints::bytes_per_point(), "watershed pour points");
  PourPoints pour(grid, std::move(pour_cells));
  pour.check_present(directions);
  const MemoryBudget::Reservation slots_held = budget.reserve(threads * slot_bytes(grid.tile), "watershed tiles' work");
  std::vector<BasinSlot> slots(threads, BasinSlot(grid.tile));
  FlowLinks links(grid, budget);
  Basins basins;
  BasinTiles tiles(directions, links, pour, basins);
  WatershedPhaseResult result;

  // 1. Each tile's codes ordered; its perimeter's paths kept.
  result.tiles_seconds = run_tile_phase("watershed: tiles", progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        tiles.load(slots[k], tx, ty, false);
        links.set_tile(tx, ty, slots[k].flow, slots[k].end.data(), nullptr);
      });

  // 2. Each exit's outlet; the basins that span tiles.
  MemoryBudget::Reservation basins_held;
  result.links_seconds = run_step_phase("watershed: links", progress, [&] {
    links.solve_outlets(budget);
    result.exits = links.exits();
    basins_held = prepare_basins(links, grid, pour, budget, basins);
    result.spanning_basins = basins.outlets.size();
  });

  // 3. Each basin's first cell.
  std::vector<std::uint64_t> valid(threads, 0), labelled(threads, 0);
  result.firsts_seconds = run_tile_phase("watershed: firsts", progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        tiles.load(slots[k], tx, ty, true);
        tiles.count_firsts(slots[k], tx, ty, valid[k], labelled[k]);
      });
  const Stopwatch counting;
  count_spanning_firsts(grid, basins);
  for (unsigned k = 0; k < threads; ++k) result.valid_cells += valid[k], result.labelled_cells += labelled[k];
  result.basins = basins.row[grid.height];
  result.firsts_seconds += counting.seconds();

  // 4. The labels of the spanning basins, in the tiles that hold their first cells.
  result.ranks_seconds = run_tile_phase("watershed: ranks", progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        if (!basins.holds_first[std::uint64_t{ty} * grid.tiles_x() + tx]) return;
        tiles.load(slots[k], tx, ty, true);
        tiles.label(slots[k], tx, ty, true);
      });

  // 5. Every tile labelled and written.
  const std::vector<std::uint32_t> nodata_tile(std::size_t{grid.tile} * grid.tile, 0);
  result.write_seconds = run_tile_phase("watershed: write", progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        tiles.load(slots[k], tx, ty, true);
        tiles.label(slots[k], tx, ty, false);
        pour.take_basins(tx, ty, slots[k].labels.data());
      },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        sink.write_tile(tx, ty, directions.tile_present(tx, ty) ? slots[k].labels.data() : nodata_tile.data());
      });
  pour.release(result.pour_point_cells, result.pour_point_basins);
  return result;
}

}  // namespace terrazo
