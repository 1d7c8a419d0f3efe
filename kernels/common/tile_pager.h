// kernels/common/tile_pager.h: which tiles a paged solver keeps in its device slots (the paged
// resident SSSP solver: kernels/sssp/resident_sssp.h, options.device_slots), and what to copy when a
// group of tiles must be in.
//
// Contract. `slots` device slots hold at most one tile each. admit(group) makes every tile of the
// group resident: a tile already in keeps its slot; a missing one takes a free slot, else the slot of
// a victim chosen by the clock (second-chance) order among the slots not holding a tile of this
// group. Each admission and eviction is reported as a Move, in the order the device must apply them:
// first `out` (a dirty victim's distances copied back to the host), then `map` (every slot_of entry
// that changes: an evicted tile to kNoSlot, an admitted tile to its slot), then `in` (an admitted
// tile's values and distances copied to its slot). A tile solved since it came in is dirty
// (mark_dirty). The choice of slots changes only where cells live, never a distance.
// Host only (no CUDA): the CUDA solver applies the moves; the unit tests check the policy.
#pragma once
#include <cstdint>
#include <vector>

namespace terrazo {

constexpr std::uint32_t kNoSlot = 0xffffffffu;  // a tile in no slot

class TilePager {
 public:
  struct Move {
    std::uint64_t tile;
    std::uint32_t slot;  // kNoSlot in `map` for an eviction
  };
  struct Moves {
    std::vector<Move> out, map, in;
    void clear() {
      out.clear();
      map.clear();
      in.clear();
    }
  };

  // slots >= 1; group sizes passed to admit() must not exceed it.
  TilePager(std::uint64_t tiles, std::uint32_t slots);

  void admit(const std::uint64_t* group, std::uint64_t count, Moves* moves);
  void mark_dirty(std::uint64_t tile);
  // Every dirty resident tile as an `out` move (their flags cleared): the final copy back.
  void take_dirty(std::vector<Move>* out);
  std::uint32_t slot_of(std::uint64_t tile) const { return slot_of_[tile]; }
  std::uint32_t slots() const { return static_cast<std::uint32_t>(slot_tile_.size()); }

 private:
  std::uint32_t victim(std::uint64_t stamp);

  static constexpr std::uint64_t kNoTile = ~std::uint64_t{0};
  std::vector<std::uint32_t> slot_of_;    // per tile
  std::vector<std::uint64_t> slot_tile_;  // per slot: its tile, or kNoTile
  std::vector<std::uint64_t> pinned_;     // per slot: the stamp of the last group that used it
  std::vector<std::uint8_t> referenced_, dirty_;
  std::uint32_t hand_ = 0;
  std::uint64_t stamp_ = 0;
};

}  // namespace terrazo
