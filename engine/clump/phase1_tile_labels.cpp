// engine/clump/phase1_tile_labels.cpp: phase 1 of clump (engine/clump/phase1_tile_labels.h).
#include "engine/clump/phase1_tile_labels.h"

#include <algorithm>
#include <limits>
#include <vector>

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

std::uint64_t clump_tile_labels_bytes(std::uint32_t t, unsigned threads) {
  return threads * (kClumpSlotCellBytes * t * t + kClumpSlotRingBytes * t);
}

ClumpTileTotals run_clump_tile_labels(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                      BorderRecords& records, BorderTable& table, MemoryBudget& budget,
                                      Progress& progress) {
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t tiles = grid.tile_count();
  const unsigned batch = pool.threads();
  // Per slot: values 8 t^2, labels 4 t^2, union-find 4 t^2, summarize_tile_border's per-region
  // scratch up to 13 t^2; ring keys 32 t, the border summary up to 100 t.
  auto reservation = budget.reserve(clump_tile_labels_bytes(t, batch), "clump tile scratch (phase 1)");
  std::vector<std::vector<double>> values(batch, std::vector<double>(cells));
  std::vector<std::vector<std::uint32_t>> labels(batch, std::vector<std::uint32_t>(cells));
  std::vector<UnionFind> scratch(batch);
  std::vector<TileBorder> borders(batch);
  std::vector<std::vector<double>> ring_keys(batch, std::vector<double>(4ull * t));
  std::vector<std::uint64_t> tile_of(batch);
  std::vector<char> solved(batch);
  std::vector<std::uint64_t> labelled(batch);
  ClumpTileTotals totals;
  progress.update("clump: tile labels", 0, tiles);
  for (std::uint64_t begin = 0; begin < tiles; begin += batch) {
    const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(batch, tiles - begin));
    pool.run(n, [&](std::uint64_t s) {
      const std::uint64_t tile = begin + s;
      const auto tx = static_cast<std::uint32_t>(tile % grid.tiles_x());
      const auto ty = static_cast<std::uint32_t>(tile / grid.tiles_x());
      solved[s] = input.tile_present(tx, ty);
      if (!solved[s]) return;
      double* v = values[s].data();
      input.read_tile(tx, ty, v);
      clump_keys(v, cells, options);
      std::uint32_t* l = labels[s].data();
      const std::uint32_t regions = label_tile_cpu(v, t, options.connectivity, l, scratch[s]);
      summarize_tile_border(l, regions, t, &borders[s]);
      for (std::uint32_t p = 0; p < 4 * t; ++p) ring_keys[s][p] = v[ring_cell(p, t)];
      records.write(tile, borders[s], ring_keys[s].data());
      std::uint64_t count = 0;
      for (std::uint64_t i = 0; i < cells; ++i) count += l[i] != kNoRegion;
      labelled[s] = count;
    });
    // Append the border regions in tile order.
    for (unsigned s = 0; s < n; ++s) {
      const std::uint64_t tile = begin + s;
      table.tile_offset[tile + 1] = table.tile_offset[tile];
      if (!solved[s]) continue;
      const TileBorder& b = borders[s];
      const std::uint64_t x0 = static_cast<std::uint64_t>(tile % grid.tiles_x()) * t;
      const std::uint64_t y0 = static_cast<std::uint64_t>(tile / grid.tiles_x()) * t;
      table.grow(b.region.size());
      for (std::size_t j = 0; j < b.region.size(); ++j) {
        table.first.push_back((y0 + b.first_cell[j] / t) * grid.width + x0 + b.first_cell[j] % t);
        table.starts_before.push_back(b.starts_before[j]);
        table.cells.push_back(b.cells[j]);
      }
      table.tile_offset[tile + 1] += b.region.size();
      totals.interior_regions += b.interior_regions;
      totals.interior_largest = std::max(totals.interior_largest, b.interior_largest);
      totals.cells_labelled += labelled[s];
    }
    progress.update("clump: tile labels", begin + n, tiles, (begin + n) * cells);
  }
  return totals;
}

}  // namespace terrazo
