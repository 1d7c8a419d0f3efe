// engine/flow/stream_links.cpp: StreamLinks (engine/flow/stream_links.h).
#include "engine/flow/stream_links.h"

#include "engine/flow/flow_links.h"
#include "kernels/common/error.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {

std::uint64_t StreamLinks::most_slots(const TileGrid& grid) { return 2 * FlowLinks::most_perimeter_cells(grid); }

StreamLinks::StreamLinks(const TileGrid& grid, MemoryBudget& budget) : grid_(grid) {
  first_.resize(grid.tile_count() + 1);
  for (std::uint64_t t = 0; t < grid.tile_count(); ++t) {
    const TileWindow w = grid.window(t);
    first_[t + 1] = first_[t] + 2ull * perimeter_cells(w.w, w.h);
  }
  const std::uint64_t slots = first_.back();
  reservation_ = budget.reserve(slots * bytes_per_slot(), "stream links of the tiles' perimeters");
  down_.assign(slots, kNone);
  chain_.assign(slots, StrahlerChain());
  inflow_.assign(slots, StrahlerInflow());
  order_.assign(slots, 0);
  code_.assign(slots, kD8Nodata);
}

std::uint32_t StreamLinks::perimeter(std::uint32_t tx, std::uint32_t ty) const {
  const TileWindow w = grid_.window(tx, ty);
  return perimeter_cells(w.w, w.h);
}

std::uint64_t StreamLinks::slot_of(std::uint64_t tile, std::uint32_t x, std::uint32_t y) const {
  const TileWindow w = grid_.window(tile);
  return first_[tile] + perimeter_position(x, y, w.w, w.h);
}

std::uint64_t StreamLinks::slot_of_cell(std::uint64_t gx, std::uint64_t gy) const {
  const std::uint64_t tile = (gy / grid_.tile) * grid_.tiles_x() + gx / grid_.tile;
  return slot_of(tile, static_cast<std::uint32_t>(gx % grid_.tile), static_cast<std::uint32_t>(gy % grid_.tile));
}

// Kahn's algorithm without a queue (as FlowLinks' accumulation): from each key that no chain reaches,
// down its chain of keys as long as the next key has nothing left to wait for.
void StreamLinks::solve(MemoryBudget& budget) {
  const MemoryBudget::Reservation held = budget.reserve(order_.size() * solve_bytes_per_slot(), "stream links' in-degrees");
  std::vector<std::uint32_t> in_degree(order_.size(), 0);
  keys_ = 0;
  for (std::uint64_t s = 0; s < order_.size(); ++s) {
    if (order_[s] != kPending) continue;
    ++keys_;
    if (down_[s] != kNone && order_[down_[s]] != kPending) down_[s] = kNone;  // the cell entered is no stream
    if (down_[s] != kNone) ++in_degree[down_[s]];
  }
  for (std::uint64_t start = 0; start < order_.size(); ++start) {
    if (order_[start] != kPending || in_degree[start] != 0) continue;
    std::uint64_t s = start;
    for (;;) {
      order_[s] = inflow_[s].order();
      const std::uint64_t d = down_[s];
      if (d == kNone) break;
      inflow_[d].add(chain_[s].apply(order_[s]));
      if (--in_degree[d] != 0) break;
      s = d;
    }
  }
  for (std::uint64_t s = 0; s < order_.size(); ++s)
    if (order_[s] == kPending) throw Error("internal: the stream network's keys loop across tiles");
}

}  // namespace terrazo
