// engine/flow/kept_tiles.h: results of a flow command's first pass over the tiles kept for its write
// pass within a byte cap ([Barnes2016]'s "retain" strategy; a tile past the cap is computed again,
// the "evict" one). The cap is what the memory plan leaves in every phase the results live through.
//
// Contract. keep(tile, bytes, make) stores make()'s payload for `tile` when `bytes` (its arrays) and
// the entry's own bytes (entry_bytes) more fit the cap (make is not called otherwise); take(tile)
// hands it back once and frees its arrays. Only kept tiles take memory. take() may run on several
// threads at once for different tiles while no keep() runs (it moves the payload out, leaving the
// table as it is). Which tiles are kept
// depends only on the order of keep() calls and their bytes: the caller keeps in row-major tile order
// on one thread, so the same tiles are kept for any thread count.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>

namespace terrazo {

template <class Payload>
class KeptTiles {
 public:
  explicit KeptTiles(std::uint64_t cap_bytes) : cap_(cap_bytes) {}

  // A hash-map node with its payload and the table's share: for the cap.
  static constexpr std::uint64_t entry_bytes() { return sizeof(std::optional<Payload>) + 64; }

  template <class Make>
  bool keep(std::uint64_t tile, std::uint64_t bytes, Make&& make) {
    if (used_ + bytes + entry_bytes() > cap_) return false;
    tiles_.emplace(tile, std::optional<Payload>(make()));
    used_ += bytes + entry_bytes();
    ++kept_;
    return true;
  }
  bool has(std::uint64_t tile) const {
    const auto it = tiles_.find(tile);
    return it != tiles_.end() && it->second.has_value();
  }
  std::optional<Payload> take(std::uint64_t tile) {
    const auto it = tiles_.find(tile);
    if (it == tiles_.end() || !it->second) return std::nullopt;
    return std::exchange(it->second, std::nullopt);
  }

  std::uint64_t kept_tiles() const { return kept_; }

 private:
  std::uint64_t cap_, used_ = 0, kept_ = 0;
  std::unordered_map<std::uint64_t, std::optional<Payload>> tiles_;
};

}  // namespace terrazo
