// engine/sssp/exchange_labels.cpp: the streamed exchange's labels as the write phase reads them
// (SsspLabelSource, engine/sssp/exchange.h): from the tile cache where a tile is held, else from the
// distance store.
#include <algorithm>
#include <cstring>

#include "engine/sssp/exchange.h"
#include "engine/sssp/exchange_entry.h"
#include "kernels/common/error.h"

namespace terrazo {

bool SsspExchange::interior_present(std::uint64_t tile) const {
  return cache_.count(tile) != 0 || store_.interior_present(tile);
}

void SsspExchange::read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source, std::uint32_t* hops) {
  auto found = cache_.find(tile);
  if (found == cache_.end()) {
    store_.read_interior(tile, dist, source, hops);
    return;
  }
  const Entry& e = *found->second;
  const std::uint32_t t = t_, h = h_, s = t_ + 2 * h_;
  for (std::uint32_t y = 0; y < t; ++y) {
    const std::size_t row = (y + h) * static_cast<std::size_t>(s) + h, out = static_cast<std::size_t>(y) * t;
    std::memcpy(&dist[out], &e.dist[row], t * sizeof(PathLength));
    if (source) {
      if (labelled_) std::memcpy(&source[out], &e.source[row], t * 4);
      else std::fill(source + out, source + out + t, 0u);
    }
    if (hops) {
      if (labelled_) std::memcpy(&hops[out], &e.hops[row], t * 4);
      else std::fill(hops + out, hops + out + t, 0u);
    }
  }
}

void SsspExchange::read_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, RingCell* out) {
  auto found = cache_.find(tile);
  if (found == cache_.end()) {
    store_.read_ring(tile, first, count, out);
    return;
  }
  const Entry& e = *found->second;
  const std::uint32_t s = t_ + 2 * h_;
  for (std::uint32_t k = 0; k < count; ++k) {  // as write_back() stores the ring
    std::uint32_t hx, hy;
    ring_cell(t_, first + k, &hx, &hy, h_);
    const std::size_t i = static_cast<std::size_t>(hy) * s + hx;
    RingCell cell;
    cell.dist = e.dist[i];
    cell.value = e.values[i];
    if (labelled_) {
      cell.source = e.source[i];
      cell.hops = e.hops[i];
    }
    out[k] = cell;
  }
}

void SsspExchange::release(std::uint64_t tile) {
  auto found = cache_.find(tile);
  if (found != cache_.end()) {
    lru_.erase(found->second->lru);
    arena_->give_back(found->second->piece);  // the pages go back now; the reservation stays with the cache
    cache_.erase(found);
  }
  store_.release(tile);
}

}  // namespace terrazo
