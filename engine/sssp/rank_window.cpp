// engine/sssp/rank_window.cpp: a rank's window, halo strips and shared cells (engine/sssp/rank_window.h).
#include "engine/sssp/rank_window.h"

#include <algorithm>

namespace terrazo {

namespace {

constexpr int kDx[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
constexpr int kDy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};

// The cells of tile window `w` within `halo` of its neighbour in direction (dx, dy).
TileWindow facing(const TileWindow& w, int dx, int dy, std::uint32_t halo) {
  TileWindow r = w;
  const std::uint32_t cw = std::min(halo, w.w), ch = std::min(halo, w.h);
  if (dx != 0) r.w = cw;
  if (dx > 0) r.x0 = w.x0 + w.w - cw;
  if (dy != 0) r.h = ch;
  if (dy > 0) r.y0 = w.y0 + w.h - ch;
  return r;
}

// Calls visit(tile, neighbour, direction) for each of the 8 neighbours inside the grid.
template <class Visit>
void for_each_neighbour(const TileGrid& grid, std::uint64_t tile, Visit visit) {
  const std::int64_t tx = static_cast<std::int64_t>(tile % grid.tiles_x()), ty = static_cast<std::int64_t>(tile / grid.tiles_x());
  for (int d = 0; d < 8; ++d) {
    const std::int64_t nx = tx + kDx[d], ny = ty + kDy[d];
    if (nx < 0 || ny < 0 || nx >= grid.tiles_x() || ny >= grid.tiles_y()) continue;
    visit(static_cast<std::uint64_t>(ny) * grid.tiles_x() + static_cast<std::uint64_t>(nx), d);
  }
}

void append_cells(const TileGrid& grid, const TileWindow& r, std::vector<std::uint64_t>& cells) {
  for (std::uint64_t y = r.y0; y < r.y0 + r.h; ++y)
    for (std::uint64_t x = r.x0; x < r.x0 + r.w; ++x) cells.push_back(y * grid.width + x);
}

// The bounding box of the own tiles grown by `halo`, clipped to the raster.
void bound_window(const TileGrid& grid, std::uint32_t halo, RankWindow& window) {
  if (window.own_tiles.empty()) return;
  std::uint64_t x0 = grid.width, y0 = grid.height, x1 = 0, y1 = 0;
  for (const std::uint64_t tile : window.own_tiles) {
    const TileWindow w = grid.window(tile);
    x0 = std::min(x0, w.x0), y0 = std::min(y0, w.y0);
    x1 = std::max(x1, w.x0 + w.w), y1 = std::max(y1, w.y0 + w.h);
  }
  window.x0 = x0 > halo ? x0 - halo : 0;
  window.y0 = y0 > halo ? y0 - halo : 0;
  window.width = std::min<std::uint64_t>(grid.width, x1 + halo) - window.x0;
  window.height = std::min<std::uint64_t>(grid.height, y1 + halo) - window.y0;
}

}  // namespace

std::uint64_t RankWindow::shared_cells() const {
  std::uint64_t n = 0;
  for (const Neighbour& b : neighbours) n += b.cells.size();
  return n;
}

RankWindow rank_window(const TileGrid& grid, const TileOwnership* ownership, int rank, std::uint32_t halo,
                       const std::function<bool(std::uint64_t)>& present) {
  RankWindow window;
  auto owner = [&](std::uint64_t tile) { return ownership ? ownership->owner(tile) : 0; };
  std::map<int, std::vector<std::uint64_t>> shared;
  for (std::uint64_t tile = 0; tile < grid.tile_count(); ++tile) {
    if (!present(tile)) continue;
    const int o = owner(tile);
    if (o == rank) window.own_tiles.push_back(tile);
    for_each_neighbour(grid, tile, [&](std::uint64_t u, int d) {
      const int ou = owner(u);
      if (ou == o || !present(u) || (o != rank && ou != rank)) return;
      const TileWindow strip = facing(grid.window(tile), kDx[d], kDy[d], halo);
      append_cells(grid, strip, shared[o == rank ? ou : o]);
      if (ou == rank) window.halo_strips[tile].push_back(strip);  // another rank's cells beside this rank's tile u
    });
  }
  bound_window(grid, halo, window);
  for (auto& [other, cells] : shared) window.neighbours.push_back(RankWindow::Neighbour{other, std::move(cells)});
  return window;
}

}  // namespace terrazo
