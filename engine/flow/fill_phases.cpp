// engine/flow/fill_phases.cpp: run_fill_phases (engine/flow/fill_phases.h).
#include "engine/flow/fill_phases.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/flow/kept_tiles.h"
#include "engine/flow/spill_graph.h"
#include "engine/flow/tile_batches.h"
#include "engine/flow/tile_extent.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/tile_flood.h"

namespace terrazo {
namespace {

// One tile's flood input: its cells, its extent and which of its sides are the raster's edge.
TileFloodInput flood_input(const TileGrid& grid, const FillPhaseOptions& options, std::uint32_t tx, std::uint32_t ty,
                           const double* cells) {
  TileFloodInput in;
  static_cast<FillRules&>(in) = options;
  in.cells = cells;
  set_tile_extent(in, grid, tx, ty);
  return in;
}

// A batch's worth of tiles being flooded at once: each slot its cells and its flood.
struct FloodSlots {
  explicit FloodSlots(std::uint32_t t, unsigned count) : cells(count, std::vector<double>(std::size_t{t} * t)), floods(count) {}
  std::vector<std::vector<double>> cells;
  std::vector<TileFlood> floods;
};

constexpr const char* kKeptFloods = "the first pass's floods kept for the write (what is left)";
const std::vector<std::string> kKeptFloodPhases = {"fill: flood", "fill: spill graph", "fill: write"};

// A tile's flood levels and labels, kept from the first pass for the write.
struct KeptFlood {
  std::vector<double> level;
  std::vector<std::uint32_t> label;
};
using KeptFloods = KeptTiles<KeptFlood>;
std::uint64_t kept_flood_bytes(std::uint32_t t) { return std::uint64_t{t} * t * 12; }

// The plan before any work: the floods of a batch beside every tile's perimeter and the graph's
// solve (at least over the edges between tiles; at most with the tiles' own edges at their most),
// then what is left in all three phases to the floods kept from the first pass to the write.
void plan_fill(const TileGrid& grid, unsigned threads, const MemoryBudget& budget, MemoryPlan& plan, FillTileSink& sink) {
  const std::uint64_t perimeters = grid.tile_count() * SpillGraph::perimeter_bytes(grid.tile);
  const std::uint64_t tile_edges = SpillGraph::tile_edges_most(grid) * sizeof(SpillEdge);
  const std::uint64_t floods = threads * (tile_flood_bytes(grid.tile) + std::uint64_t{grid.tile} * grid.tile * 8);
  plan.need("fill: flood", std::to_string(threads) + " tile floods", floods);
  plan.need("fill: flood", "the tiles' perimeters (their own edges as they come)", perimeters, perimeters + tile_edges);
  plan.need("fill: spill graph", std::to_string(threads) + " tile floods (held between the passes)", floods);
  plan.need("fill: spill graph", "the tiles' perimeters", perimeters, perimeters + tile_edges);
  plan.need("fill: spill graph", "its solve over the edges between tiles (the tiles' own come with the data)",
            SpillGraph::solve_bytes(0, SpillGraph::cross_edges_most(grid)),
            SpillGraph::solve_bytes(grid.tile_count() * (4ull * grid.tile + 1),
                                    SpillGraph::tile_edges_most(grid) + SpillGraph::cross_edges_most(grid)));
  plan.need("fill: write", std::to_string(threads) + " tile floods", floods);
  plan.need("fill: write", "the spill levels", perimeters);
  sink.declare_bytes(plan, "fill: write");
  KeptFloods::plan(plan, kKeptFloodPhases, kKeptFloods, grid.tile_count(), kept_flood_bytes(grid.tile));
  for (const char* phase : {"fill: flood", "fill: write"}) plan.other_remedy(phase, "use fewer --threads or a smaller --tile");
  // The graph has about 4 x cells / t nodes: a larger tile shrinks it (and grows the floods).
  plan.other_remedy("fill: spill graph", "use a larger --tile (the spill graph shrinks) or fewer --threads");
  plan.assign(budget);
}

// The cells of one slot's tiles: valid, raised, with no outlet.
struct FillCounts {
  std::uint64_t valid = 0, raised = 0, closed = 0;
};

// Tile (tx, ty)'s `cells`, flooded (`flood`), raised to its labels' spill levels; NaN where no
// outlet is reached.
void raise_to_spill_levels(const SpillGraph& graph, std::uint32_t tx, std::uint32_t ty, const TileFlood& flood,
                           std::vector<double>& cells, FillCounts& counts) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (std::isnan(cells[i])) continue;
    ++counts.valid;
    // No label: a region of the tile closed by nodata, which no seed reached.
    const double spill = flood.label[i] == kNoLabel ? std::numeric_limits<double>::infinity()
                                                    : graph.spill_level(tx, ty, flood.label[i]);
    const double filled = std::max(flood.level[i], spill);
    if (spill == std::numeric_limits<double>::infinity()) {
      ++counts.closed;
      cells[i] = std::nan("");
    } else if (filled > cells[i]) {
      ++counts.raised;
      cells[i] = filled == 0 ? 0.0 : filled;  // -0 and +0 compare equal: a raised zero is +0
    }
  }
}

}  // namespace

FillPhaseResult run_fill_phases(const TileInput& input, const FillPhaseOptions& options, MemoryBudget& budget,
                                Progress& progress, FillTileSink& sink) {
  const TileGrid& grid = input.grid();
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  MemoryPlan own_plan;
  MemoryPlan& plan = options.plan ? *options.plan : own_plan;
  plan_fill(grid, threads, budget, plan, sink);
  FillPhaseResult result;
  MemoryBudget::Reservation slots_reservation =
      budget.reserve(threads * (tile_flood_bytes(grid.tile) + std::uint64_t{grid.tile} * grid.tile * 8), "fill tile floods");
  FloodSlots slots(grid.tile, threads);
  SpillGraph graph(grid, options.connectivity, options.nodata_outlets);
  KeptFloods kept(grid.tile_count(), kept_flood_bytes(grid.tile), KeptFloods::cap(plan, kKeptFloodPhases, kKeptFloods),
                  budget, "fill: kept floods");

  // 1. Every tile flooded from its perimeter; its perimeter and spill edges kept.
  result.flood_seconds = run_tile_phase("fill: flood", progress, grid, input, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        input.read_tile(tx, ty, slots.cells[k].data());
        flood_tile(flood_input(grid, options, tx, ty, slots.cells[k].data()), slots.floods[k]);
        if (kept.keeps(grid.tile_index(tx, ty)))
          kept.keep(grid.tile_index(tx, ty), KeptFlood{slots.floods[k].level, slots.floods[k].label});
      },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        if (!input.tile_present(tx, ty)) return;
        kept.or_drop_kept([&] {
          graph.add_tile(tx, ty, TilePerimeter::of(flood_input(grid, options, tx, ty, slots.cells[k].data()), slots.floods[k]),
                         budget);
        });
      });

  // 2. The spill graph solved.
  result.graph_seconds = run_step_phase("fill: spill graph", progress, [&] {
    kept.or_drop_kept([&] { graph.solve(budget); });
    result.graph_nodes = graph.nodes();
    result.graph_edges = graph.edges();
  });

  // 3. Every tile flooded again (unless kept from 1.) and raised to its labels' spill levels, then written.
  std::vector<FillCounts> counts(threads);
  const std::vector<double> nodata_tile(std::size_t{grid.tile} * grid.tile, std::nan(""));
  result.write_seconds = run_tile_phase("fill: write", progress, grid, input, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        input.read_tile(tx, ty, slots.cells[k].data());
        if (std::optional<KeptFlood> flood = kept.take(grid.tile_index(tx, ty))) {
          slots.floods[k].level.swap(flood->level);
          slots.floods[k].label.swap(flood->label);
        } else {
          TileFloodInput in = flood_input(grid, options, tx, ty, slots.cells[k].data());
          in.want_edges = false;  // the labels and levels only: the graph is solved
          flood_tile(in, slots.floods[k]);
        }
        raise_to_spill_levels(graph, tx, ty, slots.floods[k], slots.cells[k], counts[k]);
      },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        // The writer's block cache is reserved at the first tile: the kept tiles give way to it.
        kept.or_drop_kept([&] { sink.write_tile(tx, ty, input.tile_present(tx, ty) ? slots.cells[k].data() : nodata_tile.data()); });
      });
  for (const FillCounts& c : counts) {
    result.valid_cells += c.valid;
    result.raised_cells += c.raised;
    result.closed_cells += c.closed;
  }
  result.kept_tiles = kept.reused_tiles();
  return result;
}

}  // namespace terrazo
