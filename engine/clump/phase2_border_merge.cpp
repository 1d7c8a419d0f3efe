// engine/clump/phase2_border_merge.cpp: phase 2 of clump (engine/clump/phase2_border_merge.h).
#include "engine/clump/phase2_border_merge.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "core/union_find.h"

namespace terrazo {
namespace {

void join(std::uint64_t* parent, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t ra = union_find_root(parent, a), rb = union_find_root(parent, b);
  if (ra == rb) return;
  if (ra < rb) parent[rb] = ra;
  else parent[ra] = rb;
}

struct Ring {
  std::vector<std::uint32_t> ring;
  std::vector<double> keys;
  bool present = false;
};

}  // namespace

ClumpMergeTotals run_clump_border_merge(const TileGrid& grid, Connectivity connectivity, const BorderRecords& records,
                                        BorderTable& table, MemoryBudget& budget, Progress& progress) {
  const std::uint32_t t = grid.tile, tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  const std::uint64_t n = table.size();
  // parent and root are in the table's reservation (BorderTable::kBytesPerRegion).
  table.parent.resize(n);
  std::iota(table.parent.begin(), table.parent.end(), std::uint64_t{0});
  table.root.assign(n, std::numeric_limits<std::uint64_t>::max());
  std::uint64_t* parent = table.parent.data();
  auto reservation = budget.reserve(5 * 48ull * t, "clump seam rings (phase 2)");
  Ring self, right, down, down_right, down_left;
  for (Ring* r : {&self, &right, &down, &down_right, &down_left}) {
    r->ring.resize(4ull * t);
    r->keys.resize(4ull * t);
  }
  const bool eight = connectivity == Connectivity::Eight;
  auto load = [&](Ring& r, std::uint32_t tx, std::uint32_t ty) {
    r.present = tx < tiles_x && ty < tiles_y &&
                records.read_ring(static_cast<std::uint64_t>(ty) * tiles_x + tx, r.ring.data(), r.keys.data());
  };
  // Joins ring position p of T with ring position q of the neighbour N.
  auto pair = [&](std::uint64_t base_t, const Ring& a, std::uint32_t p, std::uint64_t base_n, const Ring& b,
                  std::uint32_t q) {
    const std::uint32_t ia = a.ring[p], ib = b.ring[q];
    if (ia == kNoRegion || ib == kNoRegion || !(a.keys[p] == b.keys[q])) return;
    join(parent, base_t + ia, base_n + ib);
  };
  progress.update("clump: merge", 0, tiles_y);
  for (std::uint32_t ty = 0; ty < tiles_y; ++ty) {
    for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
      const std::uint64_t tile = static_cast<std::uint64_t>(ty) * tiles_x + tx;
      load(self, tx, ty);
      if (!self.present) continue;
      const std::uint64_t base = table.tile_offset[tile];
      load(right, tx + 1, ty);
      if (right.present) {  // T's right column (side 3) against R's left column (side 2)
        const std::uint64_t nb = table.tile_offset[tile + 1];
        for (std::uint32_t k = 0; k < t; ++k) {
          pair(base, self, 3 * t + k, nb, right, 2 * t + k);
          if (eight && k > 0) pair(base, self, 3 * t + k, nb, right, 2 * t + k - 1);
          if (eight && k + 1 < t) pair(base, self, 3 * t + k, nb, right, 2 * t + k + 1);
        }
      }
      load(down, tx, ty + 1);
      if (down.present) {  // T's bottom row (side 1) against D's top row (side 0)
        const std::uint64_t nb = table.tile_offset[tile + tiles_x];
        for (std::uint32_t k = 0; k < t; ++k) {
          pair(base, self, t + k, nb, down, k);
          if (eight && k > 0) pair(base, self, t + k, nb, down, k - 1);
          if (eight && k + 1 < t) pair(base, self, t + k, nb, down, k + 1);
        }
      }
      if (!eight) continue;
      load(down_right, tx + 1, ty + 1);
      if (down_right.present)  // T's bottom-right cell against DR's top-left cell
        pair(base, self, t + t - 1, table.tile_offset[tile + tiles_x + 1], down_right, 0);
      if (tx > 0) {
        load(down_left, tx - 1, ty + 1);
        if (down_left.present)  // T's bottom-left cell against DL's top-right cell
          pair(base, self, t, table.tile_offset[tile + tiles_x - 1], down_left, t - 1);
      }
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
