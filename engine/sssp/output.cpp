// engine/sssp/output.cpp: final labels -> per-tile results (engine/sssp/output.h).
#include "engine/sssp/output.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/huge_buffer.h"
#include "kernels/common/timer.h"
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

constexpr std::uint64_t kOutputCellsPerThread = 1 << 18;

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

// The tile's geometry in the output phase: side t, halo h, halo side s = t + 2 h.
struct OutputShape {
  std::uint32_t t = 0, h = 0, s = 0;
  std::uint64_t cells = 0, halo = 0;
  bool labelled = false, backlinks = false;
};

// The slots' buffers: the labels in the shared buffers (one of each kind for all slots), the
// backlinks' halo buffers per slot.
void attach_slot_buffers(std::vector<OutputSlot>& slot, const OutputShape& shape, std::uint32_t ring_cells,
                         HugeBuffer<PathLength>& slot_dist, HugeBuffer<std::uint32_t>& slot_source,
                         HugeBuffer<std::uint32_t>& slot_hops) {
  for (unsigned k = 0; k < slot.size(); ++k) {
    OutputSlot& o = slot[k];
    o.dist = slot_dist.data() + k * shape.cells;
    if (shape.labelled) {
      o.source = slot_source.data() + k * shape.cells;
      o.hops = slot_hops.data() + k * shape.cells;
    }
    if (shape.backlinks) {
      o.back.resize(shape.cells);
      o.tile_values.resize(shape.cells);
      o.halo_values.resize(shape.halo);
      o.halo_dist.resize(shape.halo);
      o.halo_source.resize(shape.halo);
      o.halo_hops.resize(shape.halo);
      o.ring.resize(ring_cells);
    }
  }
}

// Tile `tile`'s labels into slot i (one tile at a time: the sources are not thread-safe), with its
// ring and, for 16 neighbours, its halo's values (a knight's move weighs the cells it crosses).
void read_slot_labels(const TileInput& input, SsspLabelSource& store, const OutputShape& shape, std::uint64_t tile,
                      unsigned i, OutputSlot& o) {
  const TileGrid& grid = store.grid();
  o.tile = tile;
  SsspTileResult& result = o.result;
  result = sssp_tile_result(grid, static_cast<std::uint32_t>(o.tile % grid.tiles_x()),
                            static_cast<std::uint32_t>(o.tile / grid.tiles_x()), shape.t);
  result.slot = i;
  result.reached = store.interior_present(o.tile);
  store.read_interior(o.tile, o.dist, shape.labelled ? o.source : nullptr, shape.labelled ? o.hops : nullptr);
  if (shape.backlinks && result.reached) {
    store.read_ring(o.tile, 0, store.ring_cells(), o.ring.data());
    if (shape.h > 1) fill_halo_values(input, result.tx, result.ty, shape.h, o.halo_values.data(), o.neighbour_values);
  }
}

// A reached tile's backlinks: its values and labels, and its ring's, in the halo buffers, then
// backlinks_cpu; o.missing counts the reached cells without a predecessor.
void slot_backlinks(const TileInput& input, const SsspLabelSource& store, const SsspExchangeOptions& options,
                    const OutputShape& shape, OutputSlot& o) {
  const std::uint32_t t = shape.t, h = shape.h, s = shape.s;
  const SsspTileResult& result = o.result;
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

// A slot's statistics, backlinks and the sink's conversions (on a worker thread).
void prepare_slot(const TileInput& input, const SsspLabelSource& store, const SsspExchangeOptions& options,
                  const OutputShape& shape, SsspResultSink& sink, OutputSlot& o) {
  SsspTileResult& result = o.result;
  o.reached_cells = 0;
  o.max_dist = 0;
  o.missing = 0;
  for (std::uint32_t y = 0; y < result.height; ++y)
    for (std::uint32_t x = 0; x < result.width; ++x) {
      const PathLength d = o.dist[static_cast<std::size_t>(y) * shape.t + x];
      if (d == kUnreached) continue;
      ++o.reached_cells;
      o.max_dist = std::max(o.max_dist, d);
    }
  result.dist = o.dist;
  if (options.track_source) result.source = o.source;
  if (shape.backlinks) {
    std::fill(o.back.begin(), o.back.end(), kNoBacklink);
    if (result.reached) slot_backlinks(input, store, options, shape, o);
    result.backlink = o.back.data();
  }
  if (o.missing == 0) sink.prepare_tile(result);
}

// A prepared slot to the sink, its statistics counted.
void hand_to_sink(OutputSlot& o, SsspResultSink& sink, SsspOutputStats& stats) {
  if (o.missing != 0)
    throw Error("internal: " + std::to_string(o.missing) + " reached cells of tile (" + std::to_string(o.result.tx) + ", " +
                std::to_string(o.result.ty) + ") have no predecessor in the final labels");
  stats.reached_cells += o.reached_cells;
  stats.max_dist = std::max(stats.max_dist, o.max_dist);
  sink.write_tile(o.result);
}

// The tiles in raster order, a batch at a time. Two sets of slots when there are two: a reader thread
// fills the next batch's labels while the pool prepares this batch and this thread hands it to the
// sink (the label source is used by one thread at a time, the reader; tiles are released between
// batches).
void write_batches(const TileInput& input, SsspLabelSource& store, const SsspExchangeOptions& options,
                   const OutputShape& shape, SsspResultSink& sink, WorkerPool& pool, std::vector<OutputSlot>& slot,
                   const std::vector<std::uint64_t>& order, bool release_tiles, Progress& progress,
                   SsspOutputStats& stats) {
  const std::string phase = "sssp: write";
  const std::uint64_t tiles = order.size(), cells = shape.cells;
  progress.update(phase, 0, tiles);
  const unsigned slots = static_cast<unsigned>(slot.size());
  const unsigned sets = slots >= 2 ? 2 : 1, per_set = slots / sets;
  auto read_batch = [&](std::uint64_t first, unsigned set) {
    Stopwatch watch;
    const unsigned count = static_cast<unsigned>(std::min<std::uint64_t>(per_set, tiles - first));
    for (unsigned i = 0; i < count; ++i)
      read_slot_labels(input, store, shape, order[first + i], set * per_set + i, slot[set * per_set + i]);
    stats.read_seconds += watch.seconds();
  };
  if (tiles) read_batch(0, 0);
  for (std::uint64_t first = 0, batch = 0; first < tiles; first += per_set, ++batch) {
    const unsigned set = static_cast<unsigned>(batch % sets), base = set * per_set;
    const unsigned count = static_cast<unsigned>(std::min<std::uint64_t>(per_set, tiles - first));
    std::thread reader;
    std::exception_ptr read_error;
    if (sets == 2 && first + per_set < tiles)
      reader = std::thread([&, next = 1 - set] {
        try {
          read_batch(first + per_set, next);
        } catch (...) {
          read_error = std::current_exception();
        }
      });
    std::exception_ptr work_error;
    try {
      Stopwatch watch;
      pool.run(count, [&](std::uint64_t i) { prepare_slot(input, store, options, shape, sink, slot[base + i]); });
      stats.prepare_seconds += watch.seconds();
      watch.restart();
      for (unsigned i = 0; i < count; ++i) hand_to_sink(slot[base + i], sink, stats);  // in raster order
      stats.hand_off_seconds += watch.seconds();
    } catch (...) {
      work_error = std::current_exception();
    }
    if (reader.joinable()) reader.join();
    if (work_error) std::rethrow_exception(work_error);
    if (read_error) std::rethrow_exception(read_error);
    for (unsigned i = 0; i < count; ++i) {
      if (release_tiles) store.release(slot[base + i].tile);
      progress.update(phase, first + i + 1, tiles, (first + i + 1) * cells);
    }
    if (sets == 1 && first + per_set < tiles) read_batch(first + per_set, 0);
  }
}

}  // namespace

SsspOutputStats write_sssp_results(const TileInput& input, SsspLabelSource& store, const SsspExchangeOptions& options,
                                   bool backlinks, SsspResultSink& sink, MemoryBudget& budget, Progress& progress,
                                   bool release_tiles, const std::function<bool(std::uint64_t)>& mine) {
  if (backlinks && !options.track_hops) throw Error("internal: backlinks need hop labels");
  const TileGrid& grid = store.grid();
  std::vector<std::uint64_t> order;  // the tiles written, row-major
  for (std::uint64_t tile = 0; tile < grid.tile_count(); ++tile)
    if (!mine || mine(tile)) order.push_back(tile);
  OutputShape shape;
  shape.t = grid.tile;
  shape.h = store.halo();
  shape.s = shape.t + 2 * shape.h;
  shape.cells = static_cast<std::uint64_t>(shape.t) * shape.t;
  shape.halo = static_cast<std::uint64_t>(shape.s) * shape.s;
  shape.labelled = store.labelled();
  shape.backlinks = backlinks;
  const std::uint64_t cells = shape.cells;
  const std::uint64_t tile_bytes = sssp_output_tile_bytes(shape.t, shape.labelled, backlinks, shape.h);
  const MemoryBudget::Reservation reservation = budget.reserve(tile_bytes, "sssp output tile");
  // More tiles in flight where the budget holds them (the first is the one checked up front).
  const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t per_slot = tile_bytes + sink.slot_bytes();
  // Extra slots take what is left but the margin for untracked memory (MemoryBudget::cache_margin).
  const std::uint64_t left = budget.available() > budget.cache_margin() ? budget.available() - budget.cache_margin() : 0;
  const std::uint64_t affordable = 1 + left / std::max<std::uint64_t>(per_slot, 1);
  // Two sets of slots, each about 256 Ki cells a thread: a batch ends when its slowest tile is
  // prepared, and the pool shares the cores with the block encoders, so a thread's several tiles
  // even out the stragglers (docs/benchmarks.md "sssp's write phase per codec").
  const std::uint64_t tiles_per_thread = std::max<std::uint64_t>(1, kOutputCellsPerThread / cells);
  // No more slots than tiles to write (tiny tiles would otherwise ask for a million slots).
  const std::uint64_t wanted =
      std::min<std::uint64_t>(2ull * threads * tiles_per_thread, std::max<std::size_t>(order.size(), 1));
  const auto slots = static_cast<unsigned>(std::min<std::uint64_t>(wanted, affordable));
  const MemoryBudget::Reservation more_tiles =
      budget.reserve((slots - 1) * tile_bytes, "sssp output tiles in flight");
  sink.set_slots(slots);
  WorkerPool pool(std::min(threads, slots));

  std::vector<OutputSlot> slot(slots);
  // The slots' labels, one buffer of each kind for all slots (kernels/common/huge_buffer.h: a few tiles of
  // 256^2 distances share huge pages instead of faulting 4 KiB pages each).
  HugeBuffer<PathLength> slot_dist(slots * cells);
  HugeBuffer<std::uint32_t> slot_source(shape.labelled ? slots * cells : 0), slot_hops(shape.labelled ? slots * cells : 0);
  attach_slot_buffers(slot, shape, store.ring_cells(), slot_dist, slot_source, slot_hops);
  // The slots' distances are where a device source copies the labels to (page-locked for it until
  // this phase ends, before the buffer goes).
  struct ReadTarget {
    SsspLabelSource& store;
    ~ReadTarget() { store.set_read_target(nullptr, 0); }
  } read_target{store};
  store.set_read_target(slot_dist.data(), slots * cells);

  SsspOutputStats stats;
  const std::uint64_t store_read_before = store.bytes_read(), input_read_before = input.bytes_read();
  write_batches(input, store, options, shape, sink, pool, slot, order, release_tiles, progress, stats);
  stats.bytes_read = (store.bytes_read() - store_read_before) + (input.bytes_read() - input_read_before);
  return stats;
}

}  // namespace terrazo
