// engine/flow/flowacc_phases.cpp: run_flowacc_phases (engine/flow/flowacc_phases.h).
#include "engine/flow/flowacc_phases.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/flow/flow_links.h"
#include "engine/flow/kept_tiles.h"
#include "engine/flow/tile_batches.h"
#include "engine/flow/tile_extent.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/d8_codes.h"
#include "kernels/flow/tile_d8.h"

namespace terrazo {
namespace {

// One tile's work: its codes (and weights), its ordered flow, its sums and its paths' ends.
struct FlowSlot {
  FlowSlot(std::uint32_t t, bool weighted)
      : cells(std::size_t{t} * t), weights(weighted ? std::size_t{t} * t : 0), amount(std::size_t{t} * t),
        end(std::size_t{t} * t) {}
  std::vector<double> cells, weights;
  TileD8 flow;
  std::vector<std::int64_t> amount;
  std::vector<std::uint32_t> end;
};

// A tile's ordered flow (TileD8's code, next and order), kept from the first pass for the write.
struct KeptFlow {
  std::vector<std::uint8_t> code;
  std::vector<std::uint32_t> next, order;
};
using KeptFlows = KeptTiles<KeptFlow>;
std::uint64_t kept_flow_bytes(std::uint32_t t) { return std::uint64_t{t} * t * 9; }
constexpr const char* kKeptFlows = "the first pass's ordered tiles kept for the write (what is left)";
const std::vector<std::string> kKeptFlowPhases = {"flowacc: tiles", "flowacc: links", "flowacc: write"};

class TileAccumulator {
 public:
  TileAccumulator(const TileInput& directions, const TileInput* weights, const FlowAccPhaseOptions& options)
      : directions_(directions), weights_(weights), options_(options), grid_(directions.grid()) {}

  // Reads, decodes and orders tile (tx, ty) into `slot` and sets each valid cell's own amount.
  void load(FlowSlot& slot, std::uint32_t tx, std::uint32_t ty) const {
    directions_.read_tile(tx, ty, slot.cells.data());
    order_tile_d8(tile_d8_input(grid_, tx, ty, slot.cells.data()), slot.flow);
    set_own_amounts(slot, tx, ty);
  }

  // The same with the tile's ordered flow kept from the first pass.
  void load_kept(FlowSlot& slot, std::uint32_t tx, std::uint32_t ty, KeptFlow& kept) const {
    slot.flow.code.swap(kept.code);
    slot.flow.next.swap(kept.next);
    slot.flow.order.swap(kept.order);
    set_own_amounts(slot, tx, ty);
  }

  void accumulate(FlowSlot& slot) const {
    if (!accumulate_tile_d8(slot.flow, slot.amount.data()))
      throw Error("flow accumulation overflows 64 bits: " + options_.overflow_remedy);
  }

 private:
  void set_own_amounts(FlowSlot& slot, std::uint32_t tx, std::uint32_t ty) const {
    if (weights_) weights_->read_tile(tx, ty, slot.weights.data());
    for (std::size_t i = 0; i < slot.amount.size(); ++i)
      slot.amount[i] = slot.flow.code[i] == kD8Nodata ? 0 : weights_ ? fixed_point(slot.weights[i], tx, ty, i) : 1;
  }

  // llround(w x scale); 0 for nodata; an infinite weight or one past 64 bits is refused.
  std::int64_t fixed_point(double w, std::uint32_t tx, std::uint32_t ty, std::size_t i) const {
    if (std::isnan(w)) return 0;
    const double v = w * options_.scale;
    if (std::isfinite(v) && std::fabs(v) < 9.2e18) return std::llround(v);
    const TileWindow win = grid_.window(tx, ty);
    throw UsageError("the weight raster holds " + format_value(w) + " at cell " + std::to_string(win.x0 + i % grid_.tile) +
                     "," + std::to_string(win.y0 + i / grid_.tile) + " (column,row), which no 64-bit fixed point "
                     "holds at --scale " + format_value(options_.scale) + ": " + options_.overflow_remedy);
  }

  const TileInput& directions_;
  const TileInput* weights_;
  const FlowAccPhaseOptions& options_;
  TileGrid grid_;
};

// The plan before any work: a batch of tiles' work beside the links, and the links' solve.
void plan_flowacc(const TileGrid& grid, unsigned threads, bool weighted, const MemoryBudget& budget, MemoryPlan& plan,
                  FlowAccTileSink& sink) {
  const std::uint64_t links = FlowLinks::most_perimeter_cells(grid) * FlowLinks::bytes_per_cell();
  const std::uint64_t slots = threads * flowacc_tile_bytes(grid.tile, weighted);
  const std::string batch = std::to_string(threads) + " tiles' work";
  plan.need("flowacc: tiles", batch, slots);
  plan.need("flowacc: tiles", "the links of the tiles' perimeters", links);
  plan.need("flowacc: links", batch + " (held between the passes)", slots);
  plan.need("flowacc: links", "the links of the tiles' perimeters", links);
  plan.need("flowacc: links", "their in-degrees",
            FlowLinks::most_perimeter_cells(grid) * FlowLinks::solve_bytes_per_cell());
  plan.need("flowacc: write", batch, slots);
  plan.need("flowacc: write", "the links of the tiles' perimeters", links);
  sink.declare_bytes(plan, "flowacc: write");
  KeptFlows::plan(plan, kKeptFlowPhases, kKeptFlows, grid.tile_count(), kept_flow_bytes(grid.tile));
  assign_flow_plan(plan, "flowacc", kLinksRemedy, budget);
}

// What enters tile (tx, ty) from other tiles, added to its valid perimeter cells' amounts.
void add_inflows(const FlowLinks& links, FlowSlot& slot, std::uint32_t tx, std::uint32_t ty, const TileGrid& grid,
                 const std::string& overflow_remedy) {
  const TileWindow w = grid.window(tx, ty);
  const auto add = [&](std::uint32_t x, std::uint32_t y) {
    const std::uint32_t i = y * grid.tile + x;
    if (slot.flow.code[i] == kD8Nodata) return;
    if (__builtin_add_overflow(slot.amount[i], links.inflow(tx, ty, i), &slot.amount[i]))
      throw Error("flow accumulation overflows 64 bits: " + overflow_remedy);
  };
  for_each_perimeter_cell(w.w, w.h, add);
}

// The counts of one written tile, kept per slot and summed in order.
struct TileCounts {
  std::uint64_t valid = 0, outlets = 0;
  std::int64_t largest = 0;
};

// Tile `slot` as the sink takes it: accumulation / scale, NaN at nodata; its counts.
TileCounts finish_tile(FlowSlot& slot, double scale) {
  TileCounts counts;
  for (std::size_t i = 0; i < slot.cells.size(); ++i) {
    if (slot.flow.code[i] == kD8Nodata) {
      slot.cells[i] = std::nan("");
      continue;
    }
    ++counts.valid;
    counts.outlets += slot.flow.next[i] == kFlowEnds;
    if (counts.valid == 1 || slot.amount[i] > counts.largest) counts.largest = slot.amount[i];
    slot.cells[i] = scale == 1 ? static_cast<double>(slot.amount[i]) : static_cast<double>(slot.amount[i]) / scale;
  }
  return counts;
}

}  // namespace

std::uint64_t flowacc_tile_bytes(std::uint32_t t, bool weighted) {
  return std::uint64_t{t} * t * (8 + (weighted ? 8 : 0) + 8 + 4) + tile_d8_bytes(t);
}

FlowAccPhaseResult run_flowacc_phases(const TileInput& directions, const TileInput* weights,
                                      const FlowAccPhaseOptions& options, MemoryBudget& budget, Progress& progress,
                                      FlowAccTileSink& sink) {
  const TileGrid& grid = directions.grid();
  if (weights) require_direction_grid(directions, *weights, "weight");
  WorkerPool pool(options.threads);
  const unsigned threads = pool.threads();
  MemoryPlan own_plan;
  MemoryPlan& plan = options.plan ? *options.plan : own_plan;
  plan_flowacc(grid, threads, weights != nullptr, budget, plan, sink);
  KeptFlows kept(grid.tile_count(), kept_flow_bytes(grid.tile), KeptFlows::cap(plan, kKeptFlowPhases, kKeptFlows),
                 budget, "flowacc: kept tiles");
  const MemoryBudget::Reservation slots_held =
      budget.reserve(threads * flowacc_tile_bytes(grid.tile, weights != nullptr), "flowacc tiles' work");
  std::vector<FlowSlot> slots(threads, FlowSlot(grid.tile, weights != nullptr));
  FlowLinks links(grid, budget);
  const TileAccumulator accumulator(directions, weights, options);
  FlowAccPhaseResult result;

  // 1. Each tile accumulated alone; its perimeter's links kept.
  result.tiles_seconds = run_tile_phase("flowacc: tiles", progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        FlowSlot& slot = slots[k];
        accumulator.load(slot, tx, ty);
        accumulator.accumulate(slot);
        tile_d8_path_ends(slot.flow, slot.end.data());
        links.set_tile(tx, ty, slot.flow, slot.end.data(), slot.amount.data());
        if (kept.keeps(grid.tile_index(tx, ty)))
          kept.keep(grid.tile_index(tx, ty), KeptFlow{slot.flow.code, slot.flow.next, slot.flow.order});
      });

  // 2. The links solved: every exit's accumulation over the raster.
  result.links_seconds = run_step_phase("flowacc: links", progress, [&] {
    links.solve_accumulation(budget, options.overflow_remedy.c_str());
    result.exits = links.exits();
  });

  // 3. Each tile accumulated again with what enters it, and written.
  std::vector<TileCounts> counts(threads);
  const std::vector<double> nodata_tile(std::size_t{grid.tile} * grid.tile, std::nan(""));
  result.write_seconds = run_tile_phase("flowacc: write", progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        FlowSlot& slot = slots[k];
        if (std::optional<KeptFlow> flow = kept.take(grid.tile_index(tx, ty)))
          accumulator.load_kept(slot, tx, ty, *flow);
        else
          accumulator.load(slot, tx, ty);
        add_inflows(links, slot, tx, ty, grid, options.overflow_remedy);
        accumulator.accumulate(slot);
        counts[k] = finish_tile(slot, options.scale);
      },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        const bool present = directions.tile_present(tx, ty);
        // The writer's block cache is reserved at the first tile: the kept tiles give way to it.
        kept.or_drop_kept([&] { sink.write_tile(tx, ty, present ? slots[k].cells.data() : nodata_tile.data()); });
        if (present && counts[k].valid) {
          if (result.valid_cells == 0 || counts[k].largest > result.largest) result.largest = counts[k].largest;
          result.valid_cells += counts[k].valid;
          result.outlets += counts[k].outlets;
        }
      });
  result.outlets += links.exits_into_nodata();
  result.kept_tiles = kept.reused_tiles();
  return result;
}

}  // namespace terrazo
