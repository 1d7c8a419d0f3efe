// engine/flow/stream_tiles.cpp: StreamTiles (engine/flow/stream_tiles.h).
#include "engine/flow/stream_tiles.h"

#include <algorithm>
#include <cmath>

#include "engine/flow/flow_links.h"
#include "engine/flow/stream_phases.h"
#include "engine/flow/tile_extent.h"
#include "kernels/common/error.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kEnds = ~std::uint64_t{0};

bool on_perimeter(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h) {
  return x == 0 || y == 0 || x + 1 == w || y + 1 == h;
}

}  // namespace

StreamSlot::StreamSlot(std::uint32_t t)
    : cells(std::size_t{t} * t), acc(std::size_t{t} * t), stream(std::size_t{t} * t), dep(std::size_t{t} * t),
      order(std::size_t{t} * t), ups(std::size_t{t} * t), cross(std::size_t{t} * t), out(std::size_t{t} * t),
      key(std::size_t{t} * t), chain(std::size_t{t} * t) {}

void StreamTiles::load(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty) const {
  directions_.read_tile(tx, ty, slot.cells.data());
  order_tile_d8(tile_d8_input(grid_, tx, ty, slot.cells.data()), slot.flow);
  if (accumulation_.tile_present(tx, ty)) accumulation_.read_tile(tx, ty, slot.acc.data());
  else std::fill(slot.acc.begin(), slot.acc.end(), std::nan(""));
  for (std::size_t i = 0; i < slot.stream.size(); ++i)
    slot.stream[i] = slot.flow.code[i] != kD8Nodata && !std::isnan(slot.acc[i]) && slot.acc[i] >= threshold_;
}

// visit(j) for each in-tile stream cell j whose flow enters stream cell n, in code order.
template <class Visit>
void StreamTiles::for_each_upstream(const StreamSlot& slot, std::uint32_t n, std::uint32_t w, std::uint32_t h,
                                    Visit&& visit) const {
  const std::int64_t x = n % grid_.tile, y = n / grid_.tile;
  for (const D8Step& step : kD8Steps) {
    const std::int64_t jx = x - step.dx, jy = y - step.dy;
    if (jx < 0 || jy < 0 || jx >= w || jy >= h) continue;
    const auto j = static_cast<std::uint32_t>(jy * grid_.tile + jx);
    if (slot.stream[j] && slot.flow.next[j] == n) visit(j);
  }
}

std::uint64_t StreamTiles::raster_id(std::uint32_t tx, std::uint32_t ty, std::uint32_t n) const {
  const TileWindow w = grid_.window(tx, ty);
  return (w.y0 + n / grid_.tile) * grid_.width + w.x0 + n % grid_.tile;
}

void StreamTiles::set_keys(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty) const {
  const TileWindow w = grid_.window(tx, ty);
  const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
  const std::uint64_t first = links_.first_slot(tx, ty);
  const std::uint32_t perimeter = links_.perimeter(tx, ty);
  for_each_perimeter_cell(w.w, w.h, [&](std::uint32_t x, std::uint32_t y) {
    links_.set_code(links_.slot_of(tile, x, y), slot.flow.code[std::size_t{y} * grid_.tile + x]);
  });
  std::uint32_t junctions = 0;
  for (const std::uint32_t n : slot.flow.order) {
    if (!slot.stream[n]) continue;
    StrahlerInflow known;
    std::uint32_t deps = 0, dep = 0;
    for_each_upstream(slot, n, w.w, w.h, [&](std::uint32_t j) {
      if (slot.dep[j]) ++deps, dep = j;
      else known.add(slot.order[j]);
    });
    const std::uint32_t x = n % grid_.tile, y = n / grid_.tile;
    const bool edge = on_perimeter(x, y, w.w, w.h);
    if (edge || deps >= 2) {
      if (!edge && junctions == perimeter) throw Error("internal: a tile has more stream junctions than perimeter cells");
      const std::uint32_t k = edge ? perimeter_position(x, y, w.w, w.h) : perimeter + junctions++;
      links_.set_key(first + k, known);
      for_each_upstream(slot, n, w.w, w.h, [&](std::uint32_t j) {
        if (slot.dep[j]) links_.set_down(first + slot.key[j], first + k, slot.chain[j]);
      });
      slot.dep[n] = 1, slot.key[n] = k, slot.chain[n] = StrahlerChain();
      if (slot.flow.next[n] == kFlowLeaves) {
        const D8Step& step = kD8Steps[d8_index(slot.flow.code[n])];
        links_.set_down(first + k, links_.slot_of_cell(w.x0 + x + step.dx, w.y0 + y + step.dy), StrahlerChain());
      }
    } else if (deps == 1) {
      slot.dep[n] = 1, slot.key[n] = slot.key[dep], slot.chain[n] = slot.chain[dep].then(known);
    } else {
      slot.dep[n] = 0, slot.order[n] = known.order();
    }
  }
}

// Adds to `inflow` the orders of the stream cells of other tiles whose flow enters perimeter cell n;
// their count.
std::uint8_t StreamTiles::cross_inflow(std::uint32_t tx, std::uint32_t ty, std::uint32_t n,
                                       StrahlerInflow& inflow) const {
  const TileWindow w = grid_.window(tx, ty);
  const std::int64_t gx = static_cast<std::int64_t>(w.x0 + n % grid_.tile);
  const std::int64_t gy = static_cast<std::int64_t>(w.y0 + n / grid_.tile);
  std::uint8_t count = 0;
  for (const D8Step& step : kD8Steps) {
    const std::int64_t nx = gx - step.dx, ny = gy - step.dy;
    if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(grid_.width) || ny >= static_cast<std::int64_t>(grid_.height))
      continue;
    const auto ux = static_cast<std::uint64_t>(nx), uy = static_cast<std::uint64_t>(ny);
    if (ux / grid_.tile == tx && uy / grid_.tile == ty) continue;
    const std::uint64_t s = links_.slot_of_cell(ux, uy);
    if (links_.code(s) != step.code || links_.order(s) == 0) continue;
    inflow.add(links_.order(s));
    ++count;
  }
  return count;
}

void StreamTiles::order(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty, bool pieces) const {
  const TileWindow w = grid_.window(tx, ty);
  const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
  slot.stream_cells = slot.heads = slot.max_order = 0;
  for (const std::uint32_t n : slot.flow.order) {
    if (!slot.stream[n]) continue;
    StrahlerInflow inflow;
    std::uint32_t ups = 0;
    for_each_upstream(slot, n, w.w, w.h, [&](std::uint32_t j) { inflow.add(slot.order[j]), ++ups; });
    const std::uint32_t x = n % grid_.tile, y = n / grid_.tile;
    std::uint8_t cross = 0;
    if (on_perimeter(x, y, w.w, w.h)) {
      cross = cross_inflow(tx, ty, n, inflow);
      ups += cross;
      if (inflow.order() != links_.order(links_.slot_of(tile, x, y)))
        throw Error("internal: a stream cell's order differs from its key's across tiles");
    }
    slot.order[n] = inflow.order();
    slot.ups[n] = static_cast<std::uint8_t>(std::min<std::uint32_t>(ups, 2));
    slot.cross[n] = cross;
    ++slot.stream_cells;
    slot.heads += ups != 1;
    slot.max_order = std::max<std::uint64_t>(slot.max_order, slot.order[n]);
  }
  for (std::size_t i = 0; i < slot.out.size(); ++i)
    slot.out[i] = slot.flow.code[i] == kD8Nodata ? kStreamNodata : slot.stream[i] ? slot.order[i] : 0;
  if (pieces) gather_pieces(slot, tx, ty);
}

// The tile's pieces in raster order of their first cells.
void StreamTiles::gather_pieces(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty) const {
  const TileWindow w = grid_.window(tx, ty);
  slot.pieces.clear();
  slot.piece_cells.clear();
  const auto head = [&](std::uint32_t n) { return slot.ups[n] != 1; };
  for (std::uint32_t y = 0; y < w.h; ++y)
    for (std::uint32_t x = 0; x < w.w; ++x) {
      std::uint32_t n = y * grid_.tile + x;
      if (!slot.stream[n] || !(head(n) || slot.cross[n])) continue;
      StreamPiece piece;
      piece.first = raster_id(tx, ty, n);
      piece.offset = slot.piece_cells.size();
      piece.order = slot.order[n];
      piece.head = head(n);
      piece.next = kEnds;
      for (;;) {
        slot.piece_cells.push_back(raster_id(tx, ty, n));
        ++piece.count;
        const std::uint32_t m = slot.flow.next[n];
        if (m == kFlowLeaves) {
          const D8Step& step = kD8Steps[d8_index(slot.flow.code[n])];
          const std::uint64_t gx = w.x0 + n % grid_.tile + step.dx, gy = w.y0 + n / grid_.tile + step.dy;
          if (links_.order(links_.slot_of_cell(gx, gy)) != 0) piece.next = gy * grid_.width + gx;
          break;
        }
        if (m == kFlowEnds || !slot.stream[m]) break;
        if (head(m)) {
          piece.next = raster_id(tx, ty, m);
          break;
        }
        n = m;
      }
      slot.pieces.push_back(piece);
    }
}

}  // namespace terrazo
