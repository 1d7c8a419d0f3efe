// engine/flow/cross_tile_flats.h: the flats that cross tile borders, gathered from every tile and
// resolved at once, the global step of `terrazo flowdir` (docs/flow.md "Flats across tiles").
//
// Each tile's directions (kernels/flow/d8_tile.h) leave the cells of its flats that reach a flat
// cell of another tile, with their `low` and `high` bits. Every flat cell next to such a cell is one
// too (a flat cell on the other side of a tile's side belongs to a flat that leaves its own tile), so
// the gathered cells are whole flats; linked across the tiles' sides they are resolved by
// resolve_flats ([Barnes2014b]), which depends only on the flats' cells: the codes are the same for
// any tile size.
// Memory: the cells are held in memory: 6 bytes each while they are gathered (reserved as they come,
// in doubling steps), 54 more during resolve() (their neighbours and the flat scratch), then
// 1 byte each for their codes. A budget that cannot hold them is refused (BudgetError naming
// them); resolving the flats across tiles out of core (perimeter distances, [Barnes2014b] over tile
// borders) is not built yet.
#pragma once
#include <cstdint>
#include <vector>

#include "io/store/tile_store.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/worker_pool.h"
#include "kernels/flow/d8_tile.h"

namespace terrazo {

class CrossTileFlats {
 public:
  explicit CrossTileFlats(const TileGrid& grid);
  // Tile (tx, ty)'s crossing cells; every tile once, in row-major tile order (absent ones with none).
  void add_tile(std::uint32_t tx, std::uint32_t ty, const D8Tile& tile, MemoryBudget& budget);
  // Links the cells and resolves their flats; `stats` counts the flats.
  void resolve(WorkerPool& pool, MemoryBudget& budget, FlatStats& stats);
  // Writes the codes of tile (tx, ty)'s crossing cells into its t * t codes, after resolve().
  void apply(std::uint32_t tx, std::uint32_t ty, std::uint8_t* codes) const;
  std::uint64_t cells() const { return local_.size(); }
  // The tile offsets the gathering holds from the start: for the plan.
  static std::uint64_t offsets_bytes(const TileGrid& grid) { return (grid.tile_count() + 1) * 8; }
  static constexpr std::uint64_t kGatherBytesPerCell = 6;
  static constexpr std::uint64_t kResolveBytesPerCell = FlatCells::kBytesPerCell - 2 + FlatScratch::kBytesPerCell + 1;

 private:
  void grow(std::uint64_t cells, MemoryBudget& budget);
  void link(WorkerPool& pool);
  void link_tile(std::uint64_t tile);
  std::uint32_t find(std::uint64_t tile, std::uint32_t local) const;

  TileGrid grid_;
  std::vector<std::uint64_t> offsets_;  // by tile: its first cell; tile_count + 1
  std::uint64_t tiles_added_ = 0;
  std::vector<std::uint32_t> local_;    // the cells, by tile, row-major inside it
  FlatCells cells_;                     // their low and high bits, then their neighbours
  std::vector<std::uint8_t> codes_;
  std::uint64_t capacity_ = 0;
  MemoryBudget::Reservation gathered_, codes_reservation_;
};

}  // namespace terrazo
