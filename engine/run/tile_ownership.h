// engine/run/tile_ownership.h: which rank of a distributed run owns which tiles
// (docs/distributed.md "Ownership").
//
// Contract: the tiles of the grid in Z-order (TileGrid::z_order, the tile store's layout) are cut
// into `ranks` contiguous ranges, rank r owning Z positions [begin(r), end(r)); the cuts balance
// the tiles' weights: rank r's range starts at the first Z position whose weight before it is at
// least ceil(r * total / ranks) (every rank gets total / ranks, give or take one tile's weight; a
// rank may own nothing when there are fewer weighted tiles than ranks). A Z-order range is a union
// of aligned 2^k x 2^k blocks of tiles, so a rank's tiles are compact and few of its tile seams face
// another rank. The ownership is a function of the grid, the weights and the rank count alone:
// every rank computes the same one without a message.
// Weights: the engine's first cut weighs each present tile 1 and each absent tile (a tile store's
// all-nodata tiles) 0 (tile_weight_present); counting valid cells would need a pass over the input.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "io/store/tile_store.h"

namespace terrazo {

class TileOwnership {
 public:
  // `weight` of a row-major tile index; null: 1 for every tile.
  TileOwnership(const TileGrid& grid, int ranks, const std::function<std::uint64_t(std::uint64_t)>& weight = nullptr);
  int ranks() const { return static_cast<int>(begin_.size()) - 1; }
  // The owner of row-major tile index `tile`.
  int owner(std::uint64_t tile) const;
  bool owns(int rank, std::uint64_t tile) const { return owner(tile) == rank; }
  // Rank r's Z-order positions [begin, end), its tiles and their weight.
  std::uint64_t begin(int rank) const { return begin_[rank]; }
  std::uint64_t end(int rank) const { return begin_[rank + 1]; }
  std::uint64_t tiles(int rank) const { return end(rank) - begin(rank); }
  std::uint64_t weight(int rank) const { return weight_[rank]; }

 private:
  TileGrid grid_;
  std::vector<std::uint64_t> begin_;   // ranks + 1 cuts in Z positions
  std::vector<std::uint64_t> weight_;  // per rank
};

}  // namespace terrazo
