// kernels/common/tile_pager.cpp: the slot policy of a paged solver (kernels/common/tile_pager.h).
#include "kernels/common/tile_pager.h"

#include <string>

#include "kernels/common/error.h"

namespace terrazo {

TilePager::TilePager(std::uint64_t tiles, std::uint32_t slots)
    : slot_of_(tiles, kNoSlot), slot_tile_(slots, kNoTile), pinned_(slots, 0), referenced_(slots, 0), dirty_(slots, 0) {
  if (slots == 0) throw Error("internal: a tile pager needs one slot at least");
}

// The next slot by the clock: a free one, else one not used by this group whose reference bit is
// clear (bits are cleared as the hand passes). Terminates: the group has fewer tiles than slots.
std::uint32_t TilePager::victim(std::uint64_t stamp) {
  const std::uint32_t n = slots();
  for (std::uint64_t step = 0;; ++step) {
    const std::uint32_t s = hand_;
    hand_ = hand_ + 1 == n ? 0 : hand_ + 1;
    if (pinned_[s] == stamp) continue;
    if (slot_tile_[s] == kNoTile) return s;
    if (referenced_[s] && step < 2ull * n) {
      referenced_[s] = 0;
      continue;
    }
    return s;
  }
}

void TilePager::admit(const std::uint64_t* group, std::uint64_t count, Moves* moves) {
  if (count > slots())
    throw Error("internal: a group of " + std::to_string(count) + " tiles is larger than the pager's " +
                std::to_string(slots()) + " slots");
  moves->clear();
  const std::uint64_t stamp = ++stamp_;
  for (std::uint64_t i = 0; i < count; ++i) {  // the group's resident tiles first: they keep their slots
    const std::uint32_t s = slot_of_[group[i]];
    if (s == kNoSlot) continue;
    pinned_[s] = stamp;
    referenced_[s] = 1;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t tile = group[i];
    if (slot_of_[tile] != kNoSlot) continue;
    const std::uint32_t s = victim(stamp);
    if (const std::uint64_t old = slot_tile_[s]; old != kNoTile) {
      if (dirty_[s]) moves->out.push_back(Move{old, s});
      moves->map.push_back(Move{old, kNoSlot});
      slot_of_[old] = kNoSlot;
    }
    slot_tile_[s] = tile;
    slot_of_[tile] = s;
    pinned_[s] = stamp;
    referenced_[s] = 1;
    dirty_[s] = 0;
    moves->map.push_back(Move{tile, s});
    moves->in.push_back(Move{tile, s});
  }
}

void TilePager::mark_dirty(std::uint64_t tile) {
  const std::uint32_t s = slot_of_[tile];
  if (s == kNoSlot) throw Error("internal: tile " + std::to_string(tile) + " was solved outside the device slots");
  dirty_[s] = 1;
}

void TilePager::take_dirty(std::vector<Move>* out) {
  out->clear();
  for (std::uint32_t s = 0; s < slots(); ++s)
    if (dirty_[s]) {
      out->push_back(Move{slot_tile_[s], s});
      dirty_[s] = 0;
    }
}

}  // namespace terrazo
