// engine/flow/stream_phases.cpp: run_stream_phases (engine/flow/stream_phases.h).
#include "engine/flow/stream_phases.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/flow/flow_links.h"
#include "engine/flow/stream_links.h"
#include "engine/flow/stream_segments.h"
#include "engine/flow/stream_tiles.h"
#include "engine/flow/tile_batches.h"
#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"

namespace terrazo {
namespace {

constexpr char kTiles[] = "watershed: streams tiles";
constexpr char kLinks[] = "watershed: streams links";
constexpr char kWrite[] = "watershed: streams write";
constexpr char kVector[] = "watershed: streams vector";
constexpr char kGathered[] = "the stream network gathered for its segments";

}  // namespace

std::uint64_t stream_tile_bytes(std::uint32_t t, bool pieces) {
  const std::uint64_t per_cell = 8 + 8 + 6 + 4 + sizeof(StrahlerChain) + (pieces ? 8 + sizeof(StreamPiece) : 0);
  return std::uint64_t{t} * t * per_cell + tile_d8_bytes(t);
}

void plan_stream_phases(const TileGrid& grid, unsigned threads, bool vector, MemoryPlan& plan, StreamTileSink& sink) {
  const std::uint64_t links = StreamLinks::most_slots(grid) * StreamLinks::bytes_per_slot();
  const std::uint64_t slots = threads * stream_tile_bytes(grid.tile, vector);
  const std::string batch = std::to_string(threads) + " tiles' work";
  plan.need(kTiles, batch, slots);
  plan.need(kTiles, "the stream links of the tiles' perimeters", links);
  plan.need(kLinks, batch + " (held between the passes)", slots);
  plan.need(kLinks, "the stream links of the tiles' perimeters", links);
  plan.need(kLinks, "their in-degrees", StreamLinks::most_slots(grid) * StreamLinks::solve_bytes_per_slot());
  plan.need(kWrite, batch, slots);
  plan.need(kWrite, "the stream links of the tiles' perimeters", links);
  // The raster's writer stays open through the vector phase: its cache is a part of both (the
  // write phase's declared last: its assignment is the one the writer takes).
  if (vector) sink.declare_bytes(plan, kVector);
  sink.declare_bytes(plan, kWrite);
  if (vector) {
    // At most: every cell a stream cell and a piece (8 + 32 bytes), twice over for the lists' growth.
    const std::uint64_t most = grid.width * grid.height * 80;
    plan.need(kWrite, kGathered, 1ull << 20, most);
    plan.need(kVector, kGathered, 1ull << 20, most + grid.width * grid.height * StreamNetwork::bytes_per_piece());
  }
}

namespace {

[[noreturn]] void refuse_gathered(std::uint64_t bytes, std::uint64_t assigned) {
  throw BudgetError("the stream network's segments need " + MemoryBudget::format_size(bytes) + ", more than the " +
                    MemoryBudget::format_size(assigned) + " the memory plan leaves them: give a larger --memory or a "
                    "higher --streams threshold, or drop --streams-vector");
}

// The gathered network's reservation, grown to its bytes now (BudgetError past `assigned`).
struct Gathered {
  MemoryBudget::Reservation held;
  std::uint64_t bytes = 0;

  void hold(std::uint64_t now, std::uint64_t assigned, MemoryBudget& budget) {
    if (now <= bytes) return;
    if (now > assigned) refuse_gathered(now, assigned);
    held = MemoryBudget::Reservation();
    held = budget.reserve(now, "the stream network gathered");
    bytes = now;
  }
};



// Phases 1 to 3: the tiles' keys, their solve, each tile ordered and written, its pieces appended to
// `network` (with `segments`) within the plan's share. The tiles' work and the links are given back
// on return.
void order_and_write(const TileInput& directions, const TileInput& accumulation, const StreamPhaseOptions& options,
                     WorkerPool& pool, const MemoryPlan& plan, MemoryBudget& budget, Progress& progress,
                     StreamTileSink& raster, bool segments, StreamNetwork& network, Gathered& gathered,
                     StreamPhaseResult& result) {
  const TileGrid& grid = directions.grid();
  const unsigned threads = pool.threads();
  const MemoryBudget::Reservation slots_held =
      budget.reserve(threads * stream_tile_bytes(grid.tile, segments), "stream tiles' work");
  std::vector<StreamSlot> slots(threads, StreamSlot(grid.tile));
  StreamLinks links(grid, budget);
  const StreamTiles tiles(directions, accumulation, options.threshold, links);

  // 1. Each tile's keys and chains, the orders entering it unknown.
  result.tiles_seconds = run_tile_phase(kTiles, progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        tiles.load(slots[k], tx, ty);
        tiles.set_keys(slots[k], tx, ty);
      });

  // 2. Every key's order.
  result.links_seconds = run_step_phase(kLinks, progress, [&] {
    links.solve(budget);
    result.keys = links.keys();
  });

  // 3. Each tile ordered with what enters it, written; its pieces gathered.
  const std::uint64_t assigned = segments ? plan.assigned(kWrite, kGathered) : 0;
  const std::vector<std::uint8_t> nodata_tile(std::size_t{grid.tile} * grid.tile, kStreamNodata);
  result.write_seconds = run_tile_phase(kWrite, progress, grid, directions, pool, threads,
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        tiles.load(slots[k], tx, ty);
        tiles.order(slots[k], tx, ty, segments);
      },
      [&](unsigned k, std::uint32_t tx, std::uint32_t ty) {
        const bool present = directions.tile_present(tx, ty);
        raster.write_tile(tx, ty, present ? slots[k].out.data() : nodata_tile.data());
        if (!present) return;
        result.stream_cells += slots[k].stream_cells;
        result.segments += slots[k].heads;
        result.max_order = std::max(result.max_order, slots[k].max_order);
        if (!segments) return;
        network.append(slots[k], [&](std::uint64_t bytes) { gathered.hold(bytes, assigned, budget); });
        gathered.hold(network.bytes(), assigned, budget);
      });
}

}  // namespace

StreamPhaseResult run_stream_phases(const TileInput& directions, const TileInput& accumulation,
                                    const StreamPhaseOptions& options, MemoryBudget& budget, Progress& progress,
                                    StreamTileSink& raster, StreamSegmentSink* segments) {
  const TileGrid& grid = directions.grid();
  require_direction_grid(directions, accumulation, "accumulation");
  WorkerPool pool(options.threads);
  MemoryPlan own_plan;
  MemoryPlan& plan = options.plan ? *options.plan : own_plan;
  const bool planned = std::any_of(plan.phases().begin(), plan.phases().end(),
                                   [](const MemoryPlan::Phase& p) { return p.name == kTiles; });
  if (!planned) {
    plan_stream_phases(grid, pool.threads(), segments != nullptr, plan, raster);
    assign_flow_plan(plan, "watershed", kLinksRemedy, budget);
  }
  StreamPhaseResult result;
  StreamNetwork network;
  Gathered gathered;
  order_and_write(directions, accumulation, options, pool, plan, budget, progress, raster, segments != nullptr, network,
                  gathered, result);

  // 4. The segments, in order of id.
  if (segments) {
    result.vector_seconds = run_step_phase(kVector, progress, [&] {
      gathered.hold(network.bytes() + network.pieces() * StreamNetwork::bytes_per_piece(),
                    plan.assigned(kVector, kGathered), budget);
      if (network.write(*segments) != result.segments)
        throw Error("internal: the stream network's segments differ from its heads");
    });
  }
  return result;
}

}  // namespace terrazo
