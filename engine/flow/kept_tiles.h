// engine/flow/kept_tiles.h: results of a flow command's first pass over the tiles kept for its write
// pass within a byte cap ([Barnes2016]'s "retain" strategy; a tile past the cap is computed again,
// the "evict" one). The cap is what the memory plan leaves in every phase the results live through.
//
// Contract. The tiles kept are the first ones in row-major order, as many as the cap holds at
// `tile_bytes` (the payload's arrays at their largest) plus entry_bytes() each: which they are
// depends on the grid and the cap alone, never on threads or timing. keep() and take() may run on
// several threads at once for different tiles. keep() stores a payload for a tile that is kept (and
// drops it for another); take() hands it back once and frees it (nullopt for a tile not kept).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace terrazo {

template <class Payload>
class KeptTiles {
 public:
  KeptTiles(std::uint64_t tiles, std::uint64_t tile_bytes, std::uint64_t cap_bytes)
      : slots_(std::min(tiles, cap_bytes / (tile_bytes + entry_bytes()))) {}

  // The bytes of one kept tile beside its payload's arrays: for the plan.
  static constexpr std::uint64_t entry_bytes() { return sizeof(std::optional<Payload>); }

  bool keeps(std::uint64_t tile) const { return tile < slots_.size(); }
  void keep(std::uint64_t tile, Payload payload) {
    if (keeps(tile)) slots_[tile] = std::move(payload);
  }
  std::optional<Payload> take(std::uint64_t tile) {
    return keeps(tile) ? std::exchange(slots_[tile], std::nullopt) : std::nullopt;
  }

  // The tiles holding a payload now (after the first pass: the tiles that will not be computed again).
  std::uint64_t kept_tiles() const {
    return static_cast<std::uint64_t>(std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return s.has_value(); }));
  }

 private:
  std::vector<std::optional<Payload>> slots_;
};

}  // namespace terrazo
