// engine/flow/pour_points.cpp: PourPoints (engine/flow/pour_points.h).
#include "engine/flow/pour_points.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "kernels/flow/d8_codes.h"

namespace terrazo {

PourPointOnNodata::PourPointOnNodata(std::uint64_t cell, std::uint64_t width)
    : UsageError("the pour point at cell " + std::to_string(cell % width) + "," + std::to_string(cell / width) +
                 " (column,row) is on a nodata cell of DIRECTIONS; move it onto valid data"),
      cell_(cell) {}

PourPoints::PourPoints(const TileGrid& grid, std::vector<std::uint64_t> cells) : grid_(grid), cells_(std::move(cells)) {
  std::sort(cells_.begin(), cells_.end());
  cells_.erase(std::unique(cells_.begin(), cells_.end()), cells_.end());
  if (!cells_.empty() && cells_.back() >= grid.width * grid.height)
    throw Error("a pour point lies outside the " + std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                " raster");
  if (cells_.size() >= 0xffffffffull) throw UsageError("more than 2^32 - 2 pour points");
  by_tile_.resize(cells_.size());
  for (std::size_t i = 0; i < by_tile_.size(); ++i) by_tile_[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(by_tile_.begin(), by_tile_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return tile_of(cells_[a]) < tile_of(cells_[b]); });
  basins_.assign(cells_.size(), 0);
}

std::uint64_t PourPoints::tile_of(std::uint64_t cell) const {
  return (cell / grid_.width / grid_.tile) * grid_.tiles_x() + cell % grid_.width / grid_.tile;
}

bool PourPoints::holds(std::uint64_t cell) const { return std::binary_search(cells_.begin(), cells_.end(), cell); }

template <class Visit>
void PourPoints::for_each_in_tile(std::uint32_t tx, std::uint32_t ty, Visit&& visit) const {
  const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
  auto at = std::lower_bound(by_tile_.begin(), by_tile_.end(), tile,
                             [&](std::uint32_t i, std::uint64_t t) { return tile_of(cells_[i]) < t; });
  const TileWindow w = grid_.window(tx, ty);
  for (; at != by_tile_.end() && tile_of(cells_[*at]) == tile; ++at) {
    const std::uint64_t cell = cells_[*at];
    visit(*at, static_cast<std::uint32_t>((cell / grid_.width - w.y0) * grid_.tile + cell % grid_.width - w.x0));
  }
}

void PourPoints::check_present(const TileInput& input) const {
  for (const std::uint64_t cell : cells_) {
    const std::uint64_t x = cell % grid_.width, y = cell / grid_.width;
    if (!input.tile_present(static_cast<std::uint32_t>(x / grid_.tile), static_cast<std::uint32_t>(y / grid_.tile)))
      throw PourPointOnNodata(cell, grid_.width);
  }
}

void PourPoints::make_outlets(std::uint32_t tx, std::uint32_t ty, double* codes) const {
  for_each_in_tile(tx, ty, [&](std::uint32_t i, std::uint32_t local) {
    const double code = codes[local];
    if (std::isnan(code) || code == kD8Nodata) throw PourPointOnNodata(cells_[i], grid_.width);
    if (code == kD8NoFlow || (code > 0 && code < 255 && code == std::floor(code) &&
                              d8_index(static_cast<std::uint8_t>(code)) >= 0))
      codes[local] = kD8NoFlow;
  });
}

void PourPoints::take_basins(std::uint32_t tx, std::uint32_t ty, const std::uint32_t* labels) {
  for_each_in_tile(tx, ty, [&](std::uint32_t i, std::uint32_t local) { basins_[i] = labels[local]; });
}

void PourPoints::release(std::vector<std::uint64_t>& cells, std::vector<std::uint32_t>& basins) {
  cells = std::move(cells_);
  basins = std::move(basins_);
  cells_.clear();
  basins_.clear();
  by_tile_.clear();
}

}  // namespace terrazo
