// engine/flow/cross_tile_flats.cpp: CrossTileFlats (engine/flow/cross_tile_flats.h).
#include "engine/flow/cross_tile_flats.h"

#include <algorithm>
#include <string>

#include "kernels/common/error.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

const char kWhat[] = "the cells of the flats that cross tile borders (held in memory)";

}  // namespace

CrossTileFlats::CrossTileFlats(const TileGrid& grid) : grid_(grid), offsets_(grid.tile_count() + 1, 0) {}

// Capacity in doubling steps, each reserved before the vectors move (old and new blocks live at once
// for one vector at a time).
void CrossTileFlats::grow(std::uint64_t cells, MemoryBudget& budget) {
  if (cells <= capacity_) return;
  if (cells >= kNoFlatCell - 2)
    throw Error("flowdir: more than 4 G cells of flats cross tile borders; give a larger --tile");
  const std::uint64_t capacity = std::min<std::uint64_t>(kNoFlatCell - 2, std::max<std::uint64_t>({cells, 2 * capacity_, 4096}));
  MemoryBudget::Reservation more = budget.reserve(capacity * kGatherBytesPerCell, kWhat);
  local_.reserve(capacity);
  cells_.low.reserve(capacity);
  cells_.high.reserve(capacity);
  gathered_ = std::move(more);
  capacity_ = capacity;
}

void CrossTileFlats::add_tile(std::uint32_t tx, std::uint32_t ty, const D8Tile& tile, MemoryBudget& budget) {
  const std::uint64_t index = std::uint64_t{ty} * grid_.tiles_x() + tx;
  if (index != tiles_added_) throw Error("CrossTileFlats::add_tile: tiles out of row-major order (a defect)");
  grow(local_.size() + tile.crossing.size(), budget);
  local_.insert(local_.end(), tile.crossing.begin(), tile.crossing.end());
  cells_.low.insert(cells_.low.end(), tile.crossing_low.begin(), tile.crossing_low.end());
  cells_.high.insert(cells_.high.end(), tile.crossing_high.begin(), tile.crossing_high.end());
  offsets_[++tiles_added_] = local_.size();
}

// Cell `local` of `tile` among the gathered cells, or kNoFlatCell.
std::uint32_t CrossTileFlats::find(std::uint64_t tile, std::uint32_t local) const {
  const auto first = local_.begin() + static_cast<std::ptrdiff_t>(offsets_[tile]);
  const auto last = local_.begin() + static_cast<std::ptrdiff_t>(offsets_[tile + 1]);
  const auto it = std::lower_bound(first, last, local);
  return it != last && *it == local ? static_cast<std::uint32_t>(it - local_.begin()) : kNoFlatCell;
}

// Each cell's eight neighbours that are gathered cells (the flat cells next to it), on the pool. A
// tile's cells are sorted by local index, so for one direction the in-tile neighbours' indices rise
// with the cell's: one cursor per direction walks the tile's list once. A neighbour in another tile
// (the cell is on its tile's side) is looked up in that tile's list.
void CrossTileFlats::link(WorkerPool& pool) {
  cells_.neighbour.assign(local_.size() * 8, kNoFlatCell);
  pool.run(grid_.tile_count(), [&](std::uint64_t tile) { link_tile(tile); });
}

void CrossTileFlats::link_tile(std::uint64_t tile) {
  const std::int64_t t = grid_.tile;
  const std::int64_t x0 = static_cast<std::int64_t>(tile % grid_.tiles_x()) * t;
  const std::int64_t y0 = static_cast<std::int64_t>(tile / grid_.tiles_x()) * t;
  const std::int64_t width = static_cast<std::int64_t>(grid_.width), height = static_cast<std::int64_t>(grid_.height);
  const std::uint64_t begin = offsets_[tile], end = offsets_[tile + 1];
  std::uint64_t cursor[8];
  std::fill(cursor, cursor + 8, begin);
  for (std::uint64_t i = begin; i < end; ++i) {
    const std::int64_t lx = local_[i] % t, ly = local_[i] / t;
    for (int d = 0; d < 8; ++d) {
      const std::int64_t nx = lx + kD8Steps[d].dx, ny = ly + kD8Steps[d].dy;
      if (x0 + nx < 0 || y0 + ny < 0 || x0 + nx >= width || y0 + ny >= height) continue;
      if (nx >= 0 && ny >= 0 && nx < t && ny < t) {
        const std::uint32_t target = static_cast<std::uint32_t>(ny * t + nx);
        std::uint64_t& c = cursor[d];
        while (c < end && local_[c] < target) ++c;
        if (c < end && local_[c] == target) cells_.neighbour[i * 8 + d] = static_cast<std::uint32_t>(c);
      } else {
        const std::uint64_t gx = static_cast<std::uint64_t>(x0 + nx), gy = static_cast<std::uint64_t>(y0 + ny);
        const std::uint64_t ntile = (gy / t) * grid_.tiles_x() + gx / t;
        cells_.neighbour[i * 8 + d] = find(ntile, static_cast<std::uint32_t>((gy % t) * t + gx % t));
      }
    }
  }
}

void CrossTileFlats::resolve(WorkerPool& pool, MemoryBudget& budget, FlatStats& stats) {
  if (tiles_added_ != grid_.tile_count()) throw Error("CrossTileFlats::resolve: a tile was not added (a defect)");
  codes_reservation_ = budget.reserve(local_.size(), kWhat);
  {
    MemoryBudget::Reservation links = budget.reserve(local_.size() * (kResolveBytesPerCell - 1), kWhat);
    link(pool);
    FlatScratch scratch;
    resolve_flats(cells_, codes_, scratch, stats, &pool);
    cells_.clear();
    cells_.neighbour.shrink_to_fit();
    cells_.low.shrink_to_fit();
    cells_.high.shrink_to_fit();
  }
}

void CrossTileFlats::apply(std::uint32_t tx, std::uint32_t ty, std::uint8_t* codes) const {
  const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
  for (std::uint64_t i = offsets_[tile]; i < offsets_[tile + 1]; ++i) codes[local_[i]] = codes_[i];
}

}  // namespace terrazo
