// engine/index/lru_tile_cache.h: a least-recently-used cache of per-tile entries, `capacity` tiles.
//
// get(tile, load) returns the tile's entry, calling load(tile, entry) on a miss; the entry evicted
// to make room is handed to load (its vectors keep their storage, so a warm cache allocates
// nothing). An entry is valid until the next get(). Used by the index queries' tile caches
// (engine/index/gprime_exchange.h, engine/index/gprime_tiles.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>

namespace terrazo {

template <class Entry>
class LruTileCache {
 public:
  explicit LruTileCache(std::uint64_t capacity) : capacity_(std::max<std::uint64_t>(2, capacity)) {}

  template <class Load>
  Entry& get(std::uint64_t tile, Load&& load) {
    auto it = map_.find(tile);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.second);
      return it->second.first;
    }
    Entry entry;
    if (map_.size() >= capacity_) {
      const std::uint64_t victim = lru_.back();
      lru_.pop_back();
      auto v = map_.find(victim);
      entry = std::move(v->second.first);
      map_.erase(v);
    }
    load(tile, entry);
    ++loads_;
    lru_.push_front(tile);
    auto& slot = map_[tile];
    slot.first = std::move(entry);
    slot.second = lru_.begin();
    return slot.first;
  }
  std::uint64_t loads() const { return loads_; }
  std::uint64_t capacity() const { return capacity_; }

 private:
  std::uint64_t capacity_;
  std::unordered_map<std::uint64_t, std::pair<Entry, std::list<std::uint64_t>::iterator>> map_;
  std::list<std::uint64_t> lru_;  // tiles, most recent first
  std::uint64_t loads_ = 0;
};

}  // namespace terrazo
