// engine/flow/stream_tiles.h: one tile of the stream phases (engine/flow/stream_phases.h): its stream
// cells, its key cells and chains for the stream links (engine/flow/stream_links.h), then, once the
// links are solved, its Strahler orders with what enters it from other tiles and its segments' pieces.
//
// Contract: load() reads tile (tx, ty)'s codes and accumulation and orders its flow (kernels/flow/
// tile_d8.h); set_keys() gives the links the tile's codes on its perimeter and its keys: each stream
// cell in the flow's order, with I the orders of its upstream stream cells known in the tile, D those
// of its upstream stream cells below a key: a perimeter cell or a cell with |D| >= 2 is a key (inflow
// I; each of D's chains ends there), a cell with |D| = 1 extends that chain (StrahlerChain::then(I)),
// else its order is I's. order() after the links' solve: every stream cell's order from all its
// upstream stream cells (those of other tiles: perimeter cells of theirs, order and code in the
// links), each stream perimeter cell checked against its key's solved order (Error when they differ).
// pieces(): the parts of segments in the tile: from each head, and each stream cell whose one upstream
// stream cell lies in another tile, down to the tile's edge, the next head, or the network's end.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/flow/stream_links.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/flow/tile_d8.h"

namespace terrazo {

// A segment's part inside one tile: its cells (offset and count in a list of raster ids), the cell
// after it (the next part's first cell, or the junction below it; ~0: the network ends).
struct StreamPiece {
  std::uint64_t first = 0, next = 0, offset = 0;
  std::uint32_t count = 0;
  std::uint8_t order = 0, head = 0;
};

struct StreamSlot {
  explicit StreamSlot(std::uint32_t t);
  std::vector<double> cells, acc;
  TileD8 flow;
  std::vector<std::uint8_t> stream, dep, order, ups, cross, out;
  std::vector<std::uint32_t> key;
  std::vector<StrahlerChain> chain;
  std::vector<StreamPiece> pieces;
  std::vector<std::uint64_t> piece_cells;
  std::uint64_t stream_cells = 0, heads = 0, max_order = 0;
};

class StreamTiles {
 public:
  StreamTiles(const TileInput& directions, const TileInput& accumulation, double threshold, StreamLinks& links)
      : directions_(directions), accumulation_(accumulation), threshold_(threshold), links_(links),
        grid_(directions.grid()) {}

  void load(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty) const;
  void set_keys(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty) const;
  // Orders, the sink's cells (`out`) and the counts; with `pieces`, the tile's pieces.
  void order(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty, bool pieces) const;

 private:
  template <class Visit>
  void for_each_upstream(const StreamSlot& slot, std::uint32_t n, std::uint32_t w, std::uint32_t h, Visit&& visit) const;
  std::uint8_t cross_inflow(std::uint32_t tx, std::uint32_t ty, std::uint32_t n, StrahlerInflow& inflow) const;
  void gather_pieces(StreamSlot& slot, std::uint32_t tx, std::uint32_t ty) const;
  std::uint64_t raster_id(std::uint32_t tx, std::uint32_t ty, std::uint32_t n) const;

  const TileInput& directions_;
  const TileInput& accumulation_;
  double threshold_;
  StreamLinks& links_;
  TileGrid grid_;
};

}  // namespace terrazo
