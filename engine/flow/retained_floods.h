// engine/flow/retained_floods.h: the tile floods of the fill's first pass, kept for its write pass
// within a byte cap, so that a kept tile is not flooded twice ([Barnes2016]'s "retain" strategy;
// the tiles past the cap are flooded again, the "evict" one).
//
// Contract. keep() stores a tile's flood levels and labels when they fit the cap, compacted: levels
// as float when every level of the tile is a float exactly (any Byte, Int16, UInt16 or Float32
// input), else as double; labels as uint16 when the tile has fewer than 65536, else uint32. restore()
// gives them back bit for bit into a TileFlood's `level` and `label` (its edges untouched) and frees
// the tile. Which tiles are kept: engine/flow/kept_tiles.h.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/flow/kept_tiles.h"
#include "kernels/flow/tile_flood.h"

namespace terrazo {

class RetainedFloods {
  struct Compact {  // one of each pair is used
    std::vector<float> level32;
    std::vector<double> level64;
    std::vector<std::uint16_t> label16;
    std::vector<std::uint32_t> label32;
  };

 public:
  RetainedFloods(std::uint32_t t, std::uint64_t cap_bytes);

  // Keeps tile `tile`'s flood if its compacted bytes fit what the cap has left; true when kept.
  bool keep(std::uint64_t tile, const TileFlood& flood);
  // Tile `tile`'s levels and labels into `flood` (sized t * t); false when it was not kept.
  bool restore(std::uint64_t tile, TileFlood& flood);

  std::uint64_t kept_tiles() const { return kept_.kept_tiles(); }
  // The bytes of one tile kept at its widest (double levels, uint32 labels): for the plan.
  static std::uint64_t widest_tile_bytes(std::uint32_t t) { return std::uint64_t{t} * t * 12 + KeptTiles<Compact>::entry_bytes(); }

 private:
  std::uint32_t t_;
  KeptTiles<Compact> kept_;
};

}  // namespace terrazo
