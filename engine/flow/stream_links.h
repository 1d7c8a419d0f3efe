// engine/flow/stream_links.h: the Strahler orders of a stream network across tiles, the global step of
// the stream phases (engine/flow/stream_phases.h), after the perimeter method of [Barnes2017, sec. 3].
//
// Each tile keeps key cells: its stream cells on its perimeter (the only cells a stream of another tile
// can enter), and its junctions of chains from them (stream cells where two or more stream paths from
// perimeter stream cells meet). Every other stream cell of the tile either has no perimeter stream cell
// upstream (its order is known inside the tile) or lies on a chain below one key: its order is that
// key's order through the chain's StrahlerChain (engine/flow/strahler.h). A key keeps the inflows of
// known order it gets inside its tile, the key its chain reaches (another key of its tile, or, for a
// perimeter cell whose flow leaves the tile, the cell entered: a key of that tile when it is a stream
// cell) and the chain's function. The keys form a forest (the directions do not loop: watershed's
// links refuse a loop first); solve() visits it upstream first and gives every key its order:
// order(k) = inflow(k) plus, for each key j whose chain reaches k, chain_j(order(j)).
// The slots of a tile: its perimeter cells (perimeter_position, code kept for every one), then as many
// junction slots, which is enough (a junction merges two chains of perimeter keys: fewer junctions
// than perimeter keys).
// Memory: bytes_per_slot() per slot (two per perimeter cell of every tile), solve_bytes_per_slot()
// more during solve().
#pragma once
#include <cstdint>
#include <vector>

#include "engine/flow/strahler.h"
#include "io/store/tile_store.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

class StreamLinks {
 public:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  static constexpr std::uint8_t kPending = 0xff;  // the order of a key before solve()

  StreamLinks(const TileGrid& grid, MemoryBudget& budget);

  // The slots of tile (tx, ty): its first, its perimeter cells (slots first .. first + perimeter - 1).
  std::uint64_t first_slot(std::uint32_t tx, std::uint32_t ty) const { return first_[tile(tx, ty)]; }
  std::uint32_t perimeter(std::uint32_t tx, std::uint32_t ty) const;
  // The slot of perimeter cell (x, y) (in-tile) of tile (tx, ty).
  std::uint64_t slot_of(std::uint64_t tile, std::uint32_t x, std::uint32_t y) const;
  // The slot of the raster's cell (gx, gy), which must lie on its tile's perimeter.
  std::uint64_t slot_of_cell(std::uint64_t gx, std::uint64_t gy) const;

  // What tile phases set, each on its own tile's slots (safe from several threads for different tiles).
  void set_code(std::uint64_t slot, std::uint8_t code) { code_[slot] = code; }
  void set_key(std::uint64_t slot, StrahlerInflow inflow) {
    order_[slot] = kPending;
    inflow_[slot] = inflow;
    down_[slot] = kNone;
    chain_[slot] = StrahlerChain();
  }
  void set_down(std::uint64_t slot, std::uint64_t down, StrahlerChain chain) {
    down_[slot] = down;
    chain_[slot] = chain;
  }

  // Every key's order; Error when keys are left waiting on each other (a loop). Holds in-degrees from `budget`.
  void solve(MemoryBudget& budget);

  // After solve(): the order of the cell of `slot` (0: not a stream cell), and the code of a perimeter slot.
  std::uint8_t order(std::uint64_t slot) const { return order_[slot]; }
  std::uint8_t code(std::uint64_t slot) const { return code_[slot]; }
  std::uint64_t keys() const { return keys_; }

  static std::uint64_t bytes_per_slot() { return 8 + 3 + 2 + 1 + 1; }
  static std::uint64_t solve_bytes_per_slot() { return 4; }
  static std::uint64_t most_slots(const TileGrid& grid);

 private:
  std::uint64_t tile(std::uint32_t tx, std::uint32_t ty) const { return std::uint64_t{ty} * grid_.tiles_x() + tx; }

  TileGrid grid_;
  std::vector<std::uint64_t> first_;  // by tile, and one past the last
  std::vector<std::uint64_t> down_;
  std::vector<StrahlerChain> chain_;
  std::vector<StrahlerInflow> inflow_;
  std::vector<std::uint8_t> order_, code_;
  MemoryBudget::Reservation reservation_;
  std::uint64_t keys_ = 0;
};

}  // namespace terrazo
