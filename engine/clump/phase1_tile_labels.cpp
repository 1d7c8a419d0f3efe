// engine/clump/phase1_tile_labels.cpp: phase 1 of clump (engine/clump/phase1_tile_labels.h).
#include "engine/clump/phase1_tile_labels.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <vector>

#include "kernels/common/timer.h"
#include "kernels/clump/label_tile.h"

namespace terrazo {

void clump_keys(double* values, std::uint64_t n, const ClumpPhaseOptions& options) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (options.by) {
    case ClumpBy::Value:
      break;
    case ClumpBy::Valid:
      for (std::uint64_t i = 0; i < n; ++i) values[i] = values[i] == values[i] ? 0.0 : nan;
      break;
    case ClumpBy::Range:
      for (std::uint64_t i = 0; i < n; ++i) {
        const double v = values[i];
        values[i] = v >= options.range_lo && v <= options.range_hi ? 0.0 : nan;  // NaN fails both
      }
      break;
  }
}

std::uint64_t clump_tile_labels_bytes(std::uint32_t t, unsigned threads, std::uint64_t batch) {
  return threads * kClumpThreadCellBytes * t * t + batch * kClumpSlotRingBytes * t;
}

std::vector<std::uint64_t> next_present_tiles(const TileInput& input, std::uint64_t* next, std::uint64_t end,
                                              std::uint64_t count, const ClumpPhaseOptions* mine) {
  const TileGrid& grid = input.grid();
  std::vector<std::uint64_t> tiles;
  while (*next < end && tiles.size() < count) {
    const std::uint64_t tile = (*next)++;
    if (mine && !mine->mine(tile)) continue;
    if (input.tile_present(static_cast<std::uint32_t>(tile % grid.tiles_x()), static_cast<std::uint32_t>(tile / grid.tiles_x())))
      tiles.push_back(tile);
  }
  return tiles;
}

namespace {

// The batch's records, one write per run of consecutive tiles (absent tiles have none).
void write_record_runs(const std::vector<std::uint64_t>& list, const std::uint8_t* record_bytes, BorderRecords& records) {
  for (std::size_t a = 0; a < list.size();) {
    std::size_t b = a + 1;
    while (b < list.size() && list[b] == list[b - 1] + 1) ++b;
    records.write_run(list[a], b - a, record_bytes + a * records.record_bytes());
    a = b;
  }
}

// Tile `tile`'s border regions appended to the table (in memory while it grows within its
// budget, else external), their first cells as raster cell ids; its offset set.
void append_tile_regions(const TileBorder& b, std::uint64_t tile, const TileGrid& grid, BorderTable& table) {
  const std::uint32_t t = grid.tile;
  const std::uint64_t x0 = static_cast<std::uint64_t>(tile % grid.tiles_x()) * t;
  const std::uint64_t y0 = static_cast<std::uint64_t>(tile / grid.tiles_x()) * t;
  if (!table.external() && !table.try_grow(b.region.size())) table.go_external();
  if (table.external()) {
    for (std::size_t j = 0; j < b.region.size(); ++j)
      table.append_external((y0 + b.first_cell[j] / t) * grid.width + x0 + b.first_cell[j] % t, b.starts_before[j],
                            b.cells[j]);
  } else {
    for (std::size_t j = 0; j < b.region.size(); ++j) {
      table.first.push_back((y0 + b.first_cell[j] / t) * grid.width + x0 + b.first_cell[j] % t);
      table.starts_before.push_back(b.starts_before[j]);
      table.cells.push_back(b.cells[j]);
    }
  }
  table.tile_offset[tile + 1] = table.tile_offset[tile] + b.region.size();
}

}  // namespace

ClumpTileTotals run_clump_tile_labels(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                      ClumpTileBatchSolver& solver, BorderRecords& records, BorderTable& table,
                                      MemoryBudget& budget, Progress& progress) {
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t tiles = grid.tile_count();
  const std::uint64_t batch = solver.batch_tiles();
  auto reservation = budget.reserve(clump_tile_labels_bytes(t, pool.threads(), batch), "clump tile borders (phase 1)");
  std::vector<TileBorder> borders(batch);
  std::vector<std::uint64_t> record_words(batch * records.record_bytes() / 8);  // the batch's records, 8-byte aligned
  auto* record_bytes = reinterpret_cast<std::uint8_t*>(record_words.data());
  std::vector<std::uint64_t> labelled(batch);
  std::deque<std::vector<std::uint64_t>> in_flight;  // the submitted batches' tiles, oldest first
  ClumpTileTotals totals;
  std::uint64_t next = 0, offsets_done = 0;  // tile_offset is filled up to tile offsets_done
  auto consume = [&](const ClumpTileSolved& solved) {
    const std::vector<std::uint64_t> list = std::move(in_flight.front());
    in_flight.pop_front();
    totals.device_seconds += solved.device_ms / 1000;
    Stopwatch watch;
    const std::uint64_t words = ClumpSummaryLayout{t}.words();
    pool.run(list.size(), [&](std::uint64_t s) {
      if (solved.summaries) unpack_tile_border(solved.summaries + s * words, t, &borders[s]);  // made on the GPU
      else summarize_tile_border(solved.labels + s * cells, solved.regions[s], t, &borders[s]);
      std::uint8_t* record = record_bytes + s * records.record_bytes();
      records.pack(borders[s], record);
      double* ring_keys = records.ring_keys(record);
      for (std::uint32_t p = 0; p < 4 * t; ++p) ring_keys[p] = solved.key(s * cells + ring_cell(p, t));
      labelled[s] = borders[s].labelled;
    });
    write_record_runs(list, record_bytes, records);
    totals.borders_seconds += watch.seconds();
    watch.restart();
    // Append the border regions in tile order (absent tiles have none).
    for (std::size_t s = 0; s < list.size(); ++s) {
      const std::uint64_t tile = list[s];
      for (; offsets_done < tile; ++offsets_done) table.tile_offset[offsets_done + 1] = table.tile_offset[offsets_done];
      const TileBorder& b = borders[s];
      append_tile_regions(b, tile, grid, table);
      offsets_done = tile + 1;
      totals.interior_regions += b.interior_regions;
      totals.interior_largest = std::max(totals.interior_largest, b.interior_largest);
      totals.cells_labelled += labelled[s];
    }
    totals.table_seconds += watch.seconds();
    progress.update("clump: tile labels", offsets_done, tiles, offsets_done * cells);
  };
  auto wait_and_consume = [&] {
    Stopwatch watch;
    const ClumpTileSolved& solved = solver.wait();
    totals.solve_seconds += watch.seconds();
    consume(solved);
  };
  if (options.external_merge) table.go_external();
  progress.update("clump: tile labels", 0, tiles);
  while (next < tiles) {
    std::vector<std::uint64_t> list = next_present_tiles(input, &next, tiles, batch, &options);
    if (list.empty()) break;
    while (solver.pending() == solver.slots()) wait_and_consume();
    ClumpTileBatch job;
    job.tiles = list.size();
    job.summaries_suffice = true;
    job.read = [&input, &options, &grid, cells, tiles_of = list](std::uint64_t i, double* keys) {
      const std::uint64_t tile = tiles_of[i];
      input.read_tile(static_cast<std::uint32_t>(tile % grid.tiles_x()), static_cast<std::uint32_t>(tile / grid.tiles_x()), keys);
      clump_keys(keys, cells, options);
    };
    in_flight.push_back(std::move(list));
    Stopwatch watch;
    solver.submit(job);
    totals.solve_seconds += watch.seconds();
  }
  while (solver.pending()) wait_and_consume();
  for (; offsets_done < tiles; ++offsets_done) table.tile_offset[offsets_done + 1] = table.tile_offset[offsets_done];
  if (table.external()) table.flush();
  progress.update("clump: tile labels", tiles, tiles, tiles * cells);
  return totals;
}

}  // namespace terrazo
