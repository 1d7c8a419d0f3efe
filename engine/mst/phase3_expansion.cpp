// engine/mst/phase3_expansion.cpp: phase 3 of the MST pipeline (engine/mst/phase3_expansion.h).
#include "engine/mst/phase3_expansion.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/bits.h"
#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"
#include "engine/mst/merge_step.h"
#include "engine/mst/summary_file.h"
#include "io/store/atomic_output.h"
#include "io/store/sequential_file.h"

namespace terrazo {

namespace {

// One tile in flight through the expansion: its forest bits, records, window.
struct ExpansionSlot {
  std::uint64_t z = 0;
  std::uint32_t tx = 0, ty = 0;
  TileWindow in;
  bool present = false;
  std::vector<std::uint8_t> bits, window;
  std::vector<SortRecord> records;
  std::uint64_t edges = 0;
};

// The tile's forest edges as binary records (a, b as u64 cell indices, weight u32): weights inside
// the tile from its values, across its border from the merge's records.
void write_edge_list(const TileInput& source, const ExpansionSlot& e, const TileGrid& grid, const WeightParams& params,
                     std::uint32_t shift, std::vector<double>& tile_values, SequentialWriter& out) {
  const std::uint32_t t = grid.tile;
  source.read_tile(e.tx, e.ty, tile_values.data());
  for (std::uint32_t ly = 0; ly < e.in.h; ++ly) {
    for (std::uint32_t lx = 0; lx < e.in.w; ++lx) {
      const std::uint8_t cell = e.bits[ly * t + lx];
      if (cell == 255 || cell == 0) continue;
      for (int dir = 0; dir < 4; ++dir) {
        if (!(cell & (1u << dir))) continue;
        const std::uint32_t l = ly * t + lx;
        const std::int64_t nlx = static_cast<std::int64_t>(lx) + kDirDx[dir], nly = ly + kDirDy[dir];
        Weight weight = 0;
        if (nlx >= 0 && nlx < t && nly < t) {
          bool overflow = false;
          weight = edge_weight(params, tile_values[l], tile_values[nly * t + nlx], is_diagonal(dir), &overflow);
        } else {
          const std::uint64_t wanted = static_cast<std::uint64_t>(tile_edge_id(l, dir)) << 1;
          for (const SortRecord& r : e.records)
            if ((r.key & ((std::uint64_t{1} << shift) - 1)) == wanted) weight = static_cast<Weight>(r.value);
        }
        const std::uint64_t a = (e.in.y0 + ly) * grid.width + e.in.x0 + lx;
        const std::uint64_t b = (e.in.y0 + ly + kDirDy[dir]) * grid.width + e.in.x0 + lx + kDirDx[dir];
        unsigned char record[20];
        std::memcpy(record, &a, 8);
        std::memcpy(record + 8, &b, 8);
        std::memcpy(record + 16, &weight, 4);
        out.write(record, sizeof record);
      }
    }
  }
}

// The sequential streams of the expansion: the tiles' forest bits (present tiles, in `order`)
// and the merge's records sorted by tile (Morton code) then edge.
struct ExpansionStream {
  const TileInput& source;
  const TileGrid& grid;
  const std::vector<std::uint64_t>& order;
  std::uint32_t shift;
  ExternalSorter& records;
  SequentialReader& bits_in;
  SortRecord pending;
  bool has_pending;

  // The z-th tile of `order` into `e`: its window, its records, its bits (255: an absent tile's).
  void read_slot(std::uint64_t z, ExpansionSlot& e) {
    const std::uint64_t tile_cells = static_cast<std::uint64_t>(grid.tile) * grid.tile;
    e.z = z;
    e.tx = static_cast<std::uint32_t>(order[e.z] % grid.tiles_x());
    e.ty = static_cast<std::uint32_t>(order[e.z] / grid.tiles_x());
    e.in = grid.window(e.tx, e.ty);
    const std::uint64_t morton = morton_encode(e.tx, e.ty);
    e.records.clear();
    while (has_pending && (pending.key >> shift) <= morton) {
      if ((pending.key >> shift) != morton) throw Error("internal error: an MST expansion record names an absent tile");
      e.records.push_back(pending);
      has_pending = records.next(&pending);
    }
    e.present = source.tile_present(e.tx, e.ty);
    if (e.present) {
      bits_in.read(e.bits.data(), tile_cells);
    } else {
      if (!e.records.empty()) throw Error("internal error: an MST expansion record names an absent tile");
      std::fill(e.bits.begin(), e.bits.end(), std::uint8_t{255});
    }
  }
};

// The merge's "in" records set their edge bits, then its "out" records clear theirs; the window is
// the tile's cells inside the raster, its edges counted.
void expand_slot(std::uint32_t t, std::uint32_t shift, ExpansionSlot& e) {
  for (int kind = 0; kind < 2; ++kind) {
    for (const SortRecord& r : e.records) {
      if ((r.key & 1) != static_cast<std::uint64_t>(kind)) continue;
      const auto id = static_cast<std::uint32_t>((r.key & ((std::uint64_t{1} << shift) - 1)) >> 1);
      const std::uint8_t bit = static_cast<std::uint8_t>(1u << tile_edge_direction(id));
      std::uint8_t& cell = e.bits[tile_edge_owner(id)];
      if (kind == 0) cell |= bit;
      else cell &= static_cast<std::uint8_t>(~bit);
    }
  }
  e.edges = 0;
  for (std::uint32_t ly = 0; ly < e.in.h; ++ly) {
    const std::uint8_t* row = &e.bits[static_cast<std::size_t>(ly) * t];
    std::memcpy(&e.window[static_cast<std::size_t>(ly) * e.in.w], row, e.in.w);
    for (std::uint32_t lx = 0; lx < e.in.w; ++lx)
      if (row[lx] != 255) e.edges += popcount64(row[lx]);
  }
}

}  // namespace

ExpansionTotals run_expansion(const TileInput& source, const std::vector<std::uint64_t>& order,
                              const MstPhaseOptions& options, ExternalSorter& records, MemoryBudget& budget,
                              Progress& progress, MstWindowSink* sink) {
  const TileGrid& grid = source.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const WeightParams& params = options.params;
  const std::uint32_t shift = expansion_record_shift(t);
  auto scratch_file = [&](const char* name) { return options.scratch_dir + "/" + name; };
  progress.update("mst: expansion", 0, order.size());
  ExpansionTotals totals;
  {
    auto tile_buffers = budget.reserve(tile_cells * (1 + (options.edge_list.empty() ? 0 : sizeof(double))) + tile_cells,
                                       "MST expansion tile");
    // More tiles in flight where the budget holds them: their bits and records are read in order,
    // their windows built on the worker threads, and handed to the sink in order.
    const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::uint64_t slot_bytes = 2 * tile_cells;
    const auto slots = static_cast<unsigned>(
        std::min<std::uint64_t>(2ull * threads, 1 + budget.available() / 2 / slot_bytes));
    auto more_tiles = budget.reserve((slots - 1) * slot_bytes, "MST expansion tiles in flight");
    WorkerPool pool(std::min(threads, slots));
    std::vector<ExpansionSlot> slot(slots);
    for (ExpansionSlot& e : slot) {
      e.bits.resize(tile_cells);
      e.window.resize(tile_cells);
    }
    std::vector<double> tile_values(options.edge_list.empty() ? 0 : tile_cells);
    SequentialReader bits_in(scratch_file("mst_forest.bits"), budget, kSummaryFileBufferBytes, "MST forest bits buffer");
    // Declared before the writer, so the writer closes before an unpublished partial is removed.
    std::unique_ptr<AtomicOutput> owned_edge_list;
    std::unique_ptr<SequentialWriter> edge_list;
    if (!options.edge_list.empty()) {
      AtomicOutput* output = options.edge_list_output;
      if (!output) {
        owned_edge_list = std::make_unique<AtomicOutput>(options.edge_list);
        output = owned_edge_list.get();
      }
      edge_list = std::make_unique<SequentialWriter>(output->partial(), budget, kSummaryFileBufferBytes,
                                                     "MST edge list buffer");
    }
    ExpansionStream stream{source, grid, order, shift, records, bits_in, {}, false};
    stream.has_pending = records.next(&stream.pending);
    for (std::uint64_t first = 0; first < order.size(); first += slots) {
      const auto count = static_cast<unsigned>(std::min<std::uint64_t>(slots, order.size() - first));
      // Bits and records, in order (both are sequential streams).
      for (unsigned i = 0; i < count; ++i) stream.read_slot(first + i, slot[i]);
      // The windows, a tile per thread.
      pool.run(count, [&](std::uint64_t i) { expand_slot(t, shift, slot[i]); });
      // The edge list (when asked) and the windows, in order.
      for (unsigned i = 0; i < count; ++i) {
        ExpansionSlot& e = slot[i];
        totals.edges += e.edges;
        if (edge_list && e.present) write_edge_list(source, e, grid, params, shift, tile_values, *edge_list);
        if (sink) sink->write_window(e.in.x0, e.in.y0, e.in.w, e.in.h, e.window.data());
        progress.update("mst: expansion", e.z + 1, order.size(), (e.z + 1) * tile_cells);
      }
    }
    totals.bytes_read += bits_in.bytes_read();
    if (edge_list) {
      edge_list->finish();
      totals.bytes_written += edge_list->bytes_written();
      if (owned_edge_list) owned_edge_list->publish();
    }
  }

  return totals;
}

}  // namespace terrazo
