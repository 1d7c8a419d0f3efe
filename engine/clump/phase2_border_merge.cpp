// engine/clump/phase2_border_merge.cpp: phase 2 of clump (engine/clump/phase2_border_merge.h).
#include "engine/clump/phase2_border_merge.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "kernels/common/union_find.h"

namespace terrazo {
namespace {

void join(std::uint64_t* parent, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t ra = union_find_root(parent, a), rb = union_find_root(parent, b);
  if (ra == rb) return;
  if (ra < rb) parent[rb] = ra;
  else parent[ra] = rb;
}

// The rings of one row of tiles (tiles_x x 4t border indices and keys), read once each.
struct RingRow {
  std::vector<std::uint32_t> ring;
  std::vector<double> keys;
  std::vector<char> present;
  std::uint32_t t = 0;
  void load(const BorderRecords& records, std::uint32_t ty, std::uint32_t tiles_x, std::uint32_t tiles_y) {
    for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
      const std::uint64_t at = static_cast<std::uint64_t>(tx) * 4 * t;
      present[tx] = ty < tiles_y && records.read_ring(static_cast<std::uint64_t>(ty) * tiles_x + tx, &ring[at], &keys[at]);
    }
  }
};

}  // namespace

std::uint64_t clump_border_merge_bytes(const TileGrid& grid) {
  return 2 * (static_cast<std::uint64_t>(grid.tiles_x()) * 48 * grid.tile + grid.tiles_x());
}

ClumpMergeTotals run_clump_border_merge(const TileGrid& grid, Connectivity connectivity, const BorderRecords& records,
                                        BorderTable& table, MemoryBudget& budget, Progress& progress) {
  const std::uint32_t t = grid.tile, tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  const std::uint64_t n = table.size();
  // parent and root are in the table's reservation (BorderTable::kBytesPerRegion).
  table.parent.resize(n);
  std::iota(table.parent.begin(), table.parent.end(), std::uint64_t{0});
  table.root.assign(n, std::numeric_limits<std::uint64_t>::max());
  std::uint64_t* parent = table.parent.data();
  // Two rows of rings: 2 x tiles_x x 48 t bytes (96 bytes per column of the raster).
  auto reservation = budget.reserve(clump_border_merge_bytes(grid), "clump seam rings (phase 2)");
  RingRow rows[2];
  for (RingRow& r : rows) {
    r.t = t;
    r.ring.resize(static_cast<std::uint64_t>(tiles_x) * 4 * t);
    r.keys.resize(static_cast<std::uint64_t>(tiles_x) * 4 * t);
    r.present.resize(tiles_x);
  }
  const bool eight = connectivity == Connectivity::Eight;
  // Joins ring position p of tile (a, ta) with ring position q of tile (b, tb).
  auto pair = [&](const RingRow& a, std::uint32_t ta, std::uint64_t base_a, std::uint32_t p, const RingRow& b,
                  std::uint32_t tb, std::uint64_t base_b, std::uint32_t q) {
    const std::uint64_t ia = static_cast<std::uint64_t>(ta) * 4 * t + p, ib = static_cast<std::uint64_t>(tb) * 4 * t + q;
    if (a.ring[ia] == kNoRegion || b.ring[ib] == kNoRegion || !(a.keys[ia] == b.keys[ib])) return;
    join(parent, base_a + a.ring[ia], base_b + b.ring[ib]);
  };
  progress.update("clump: merge", 0, tiles_y);
  rows[0].load(records, 0, tiles_x, tiles_y);
  for (std::uint32_t ty = 0; ty < tiles_y; ++ty) {
    const RingRow& row = rows[ty % 2];
    RingRow& below = rows[(ty + 1) % 2];
    below.load(records, ty + 1, tiles_x, tiles_y);
    for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
      if (!row.present[tx]) continue;
      const std::uint64_t tile = static_cast<std::uint64_t>(ty) * tiles_x + tx;
      const std::uint64_t base = table.tile_offset[tile];
      if (tx + 1 < tiles_x && row.present[tx + 1]) {  // T's right column (side 3) against R's left column (side 2)
        const std::uint64_t nb = table.tile_offset[tile + 1];
        for (std::uint32_t k = 0; k < t; ++k) {
          pair(row, tx, base, 3 * t + k, row, tx + 1, nb, 2 * t + k);
          if (eight && k > 0) pair(row, tx, base, 3 * t + k, row, tx + 1, nb, 2 * t + k - 1);
          if (eight && k + 1 < t) pair(row, tx, base, 3 * t + k, row, tx + 1, nb, 2 * t + k + 1);
        }
      }
      if (below.present[tx]) {  // T's bottom row (side 1) against D's top row (side 0)
        const std::uint64_t nb = table.tile_offset[tile + tiles_x];
        for (std::uint32_t k = 0; k < t; ++k) {
          pair(row, tx, base, t + k, below, tx, nb, k);
          if (eight && k > 0) pair(row, tx, base, t + k, below, tx, nb, k - 1);
          if (eight && k + 1 < t) pair(row, tx, base, t + k, below, tx, nb, k + 1);
        }
      }
      if (!eight) continue;
      if (tx + 1 < tiles_x && below.present[tx + 1])  // T's bottom-right cell against DR's top-left cell
        pair(row, tx, base, t + t - 1, below, tx + 1, table.tile_offset[tile + tiles_x + 1], 0);
      if (tx > 0 && below.present[tx - 1])  // T's bottom-left cell against DL's top-right cell
        pair(row, tx, base, t, below, tx - 1, table.tile_offset[tile + tiles_x - 1], t - 1);
    }
    progress.update("clump: merge", ty + 1, tiles_y);
  }
  // Every region points at its root; each root gets its first cell and its cells.
  ClumpMergeTotals totals;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t r = union_find_root(parent, i);
    parent[i] = r;
    table.root[r] = std::min(table.root[r], table.first[i]);
    if (r != i) table.cells[r] += table.cells[i];
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t r = parent[i];
    if (r == i) {
      ++totals.roots;
      totals.largest = std::max(totals.largest, table.cells[i]);
    }
    if (table.first[i] == table.root[r]) parent[i] = r | BorderTable::kOwner;
  }
  return totals;
}

}  // namespace terrazo
