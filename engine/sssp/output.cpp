// engine/sssp/output.cpp: final labels -> per-tile results (engine/sssp/output.h).
#include "engine/sssp/output.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/huge_buffer.h"
#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"
#include "engine/sssp/halo_values.h"
#include "kernels/sssp/backlink.h"

namespace terrazo {

std::uint64_t sssp_output_tile_bytes(std::uint32_t t, bool labelled, bool backlinks, std::uint32_t h) {
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t halo = static_cast<std::uint64_t>(t + 2 * h) * (t + 2 * h);
  const std::uint64_t ring_cells = ring_cell_count(t, h);  // DistanceStore::ring_cells()
  return cells * (8 + 8 + 1) + (labelled ? cells * 8 : 0) + (backlinks ? halo * 24 : 0) + ring_cells * sizeof(RingCell) +
         (backlinks && h > 1 ? cells * 8 : 0);  // a neighbour's values (fill_halo_values)
}

namespace {

// One tile in flight through the output phase: its labels as read, its backlinks, its result.
struct OutputSlot {
  PathLength* dist = nullptr;  // written in full by read_interior, in the slots' shared buffers
  std::uint32_t* source = nullptr;
  std::uint32_t* hops = nullptr;
  std::vector<std::uint8_t> back;
  std::vector<double> tile_values, halo_values, neighbour_values;
  std::vector<PathLength> halo_dist;
  std::vector<std::uint32_t> halo_source, halo_hops;
  std::vector<RingCell> ring;
  SsspTileResult result;
  std::uint64_t tile = 0, reached_cells = 0, missing = 0;
  PathLength max_dist = 0;
};

}  // namespace

SsspOutputStats write_sssp_results(const TileInput& input, SsspLabelSource& store, const SsspExchangeOptions& options,
                                   bool backlinks, SsspResultSink& sink, MemoryBudget& budget, Progress& progress,
                                   bool release_tiles) {
  if (backlinks && !options.track_hops) throw Error("internal: backlinks need hop labels");
  const TileGrid& grid = store.grid();
  const std::uint32_t t = grid.tile, h = store.halo(), s = t + 2 * h;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t halo = static_cast<std::uint64_t>(s) * s;
  const bool labelled = store.labelled();
  const std::uint64_t tile_bytes = sssp_output_tile_bytes(t, labelled, backlinks, h);
  const MemoryBudget::Reservation reservation = budget.reserve(tile_bytes, "sssp output tile");
  // More tiles in flight where the budget holds them (the first is the one checked up front).
  const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t per_slot = tile_bytes + sink.slot_bytes();
  // Extra slots take what is left but the margin for untracked memory (MemoryBudget::cache_margin).
  const std::uint64_t left = budget.available() > budget.cache_margin() ? budget.available() - budget.cache_margin() : 0;
  const std::uint64_t affordable = 1 + left / std::max<std::uint64_t>(per_slot, 1);
  const auto slots = static_cast<unsigned>(std::min<std::uint64_t>(2ull * threads, affordable));
  const MemoryBudget::Reservation more_tiles =
      budget.reserve((slots - 1) * tile_bytes, "sssp output tiles in flight");
  sink.set_slots(slots);
  WorkerPool pool(std::min(threads, slots));

  std::vector<OutputSlot> slot(slots);
  // The slots' labels, one buffer of each kind for all slots (kernels/common/huge_buffer.h: a few tiles of
  // 256^2 distances share huge pages instead of faulting 4 KiB pages each).
  HugeBuffer<PathLength> slot_dist(slots * cells);
  HugeBuffer<std::uint32_t> slot_source(labelled ? slots * cells : 0), slot_hops(labelled ? slots * cells : 0);
  for (unsigned k = 0; k < slots; ++k) {
    OutputSlot& o = slot[k];
    o.dist = slot_dist.data() + k * cells;
    if (labelled) {
      o.source = slot_source.data() + k * cells;
      o.hops = slot_hops.data() + k * cells;
    }
    if (backlinks) {
      o.back.resize(cells);
      o.tile_values.resize(cells);
      o.halo_values.resize(halo);
      o.halo_dist.resize(halo);
      o.halo_source.resize(halo);
      o.halo_hops.resize(halo);
      o.ring.resize(store.ring_cells());
    }
  }

  SsspOutputStats stats;
  const std::uint64_t store_read_before = store.bytes_read(), input_read_before = input.bytes_read();
  const std::string phase = "sssp: write";
  const std::uint64_t tiles = grid.tile_count();
  progress.update(phase, 0, tiles);
  for (std::uint64_t first = 0; first < tiles; first += slots) {
    const unsigned count = static_cast<unsigned>(std::min<std::uint64_t>(slots, tiles - first));
    // The labels, one tile at a time (the sources are not thread-safe).
    for (unsigned i = 0; i < count; ++i) {
      OutputSlot& o = slot[i];
      o.tile = first + i;
      const TileWindow in = grid.window(o.tile);
      SsspTileResult& result = o.result;
      result = SsspTileResult{};
      result.tx = static_cast<std::uint32_t>(o.tile % grid.tiles_x());
      result.ty = static_cast<std::uint32_t>(o.tile / grid.tiles_x());
      result.x0 = in.x0;
      result.y0 = in.y0;
      result.width = in.w;
      result.height = in.h;
      result.stride = t;
      result.slot = i;
      result.reached = store.interior_present(o.tile);
      store.read_interior(o.tile, o.dist, labelled ? o.source : nullptr, labelled ? o.hops : nullptr);
      if (backlinks && result.reached) {
        store.read_ring(o.tile, 0, store.ring_cells(), o.ring.data());
        // 16 neighbours: every halo cell's value (a knight's move weighs the cells it crosses), here
        // where the input is read by one thread at a time.
        if (h > 1) fill_halo_values(input, result.tx, result.ty, h, o.halo_values.data(), o.neighbour_values);
      }
    }
    // Statistics, backlinks and the sink's conversions, a tile per thread.
    pool.run(count, [&](std::uint64_t i) {
      OutputSlot& o = slot[i];
      SsspTileResult& result = o.result;
      o.reached_cells = 0;
      o.max_dist = 0;
      o.missing = 0;
      for (std::uint32_t y = 0; y < result.height; ++y)
        for (std::uint32_t x = 0; x < result.width; ++x) {
          const PathLength d = o.dist[static_cast<std::size_t>(y) * t + x];
          if (d == kUnreached) continue;
          ++o.reached_cells;
          o.max_dist = std::max(o.max_dist, d);
        }
      result.dist = o.dist;
      if (options.track_source) result.source = o.source;
      if (backlinks) {
        std::fill(o.back.begin(), o.back.end(), kNoBacklink);
        if (result.reached) {
          input.read_tile(result.tx, result.ty, o.tile_values.data());
          std::fill(o.halo_dist.begin(), o.halo_dist.end(), kUnreached);
          for (std::uint32_t y = 0; y < t; ++y) {
            const std::size_t row = static_cast<std::size_t>(y + h) * s + h, in = static_cast<std::size_t>(y) * t;
            std::memcpy(&o.halo_values[row], &o.tile_values[in], t * sizeof(double));
            std::memcpy(&o.halo_dist[row], &o.dist[in], t * sizeof(PathLength));
            std::memcpy(&o.halo_source[row], &o.source[in], t * 4);
            std::memcpy(&o.halo_hops[row], &o.hops[in], t * 4);
          }
          for (std::uint32_t r = 0; r < store.ring_cells(); ++r) {
            std::uint32_t hx, hy;
            ring_cell(t, r, &hx, &hy, h);
            const std::size_t c = static_cast<std::size_t>(hy) * s + hx;
            o.halo_dist[c] = o.ring[r].dist;
            if (h == 1)  // (two-cell halos hold every value already)
              o.halo_values[c] = o.ring[r].dist == kUnreached ? std::numeric_limits<double>::quiet_NaN() : o.ring[r].value;
            o.halo_source[c] = o.ring[r].source;
            o.halo_hops[c] = o.ring[r].hops;
          }
          bool overflow = false;
          WeightParams tile_params = options.params;
          tile_params.steps.row0 = static_cast<std::int64_t>(result.ty) * t - h;
          o.missing = backlinks_cpu(o.halo_values.data(), t, tile_params, options.connectivity, o.halo_dist.data(),
                                    o.halo_source.data(), o.halo_hops.data(), o.back.data(), &overflow);
        }
        result.backlink = o.back.data();
      }
      if (o.missing == 0) sink.prepare_tile(result);
    });
    // In raster order to the sink.
    for (unsigned i = 0; i < count; ++i) {
      OutputSlot& o = slot[i];
      if (o.missing != 0)
        throw Error("internal: " + std::to_string(o.missing) + " reached cells of tile (" + std::to_string(o.result.tx) +
                    ", " + std::to_string(o.result.ty) + ") have no predecessor in the final labels");
      stats.reached_cells += o.reached_cells;
      stats.max_dist = std::max(stats.max_dist, o.max_dist);
      sink.write_tile(o.result);
      if (release_tiles) store.release(o.tile);
      progress.update(phase, o.tile + 1, tiles, (o.tile + 1) * cells);
    }
  }
  stats.bytes_read = (store.bytes_read() - store_read_before) + (input.bytes_read() - input_read_before);
  return stats;
}

}  // namespace terrazo
