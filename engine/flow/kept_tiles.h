// engine/flow/kept_tiles.h: results of a flow command's first pass over the tiles kept for its write
// pass within a byte cap ([Barnes2016]'s "retain" strategy; a tile past the cap is computed again,
// the "evict" one). The cap is what the memory plan leaves in every phase the results live through.
//
// Contract. The tiles kept are the first ones in row-major order, as many as the cap holds at
// `tile_bytes` (the payload's arrays at their largest) plus entry_bytes() each: which they are
// depends on the grid and the cap alone, never on threads or timing. keep() and take() may run on
// several threads at once for different tiles. keep() stores a payload for a tile that is kept (and
// drops it for another); take() hands it back once and frees it (nullopt for a tile not kept).
// The kept tiles only save work, so they give way to what a run must hold: or_drop_kept() runs a step
// that reserves bytes the plan could not foresee (data-sized parts reserved as they come) and, when
// it is refused, drops every kept tile, gives their bytes back and runs it once more. Where the drop
// comes depends on the data and the budget; how many tiles a batch had reused before it can depend
// on the thread count (reused_tiles(), a diagnostic). The outputs never depend on what was kept.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/run/memory_plan.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

template <class Payload>
class KeptTiles {
 public:
  // Reserves `cap_bytes` from `budget` ("what") until drop_all().
  KeptTiles(std::uint64_t tiles, std::uint64_t tile_bytes, std::uint64_t cap_bytes, MemoryBudget& budget, const char* what)
      : slots_(std::min(tiles, cap_bytes / (tile_bytes + entry_bytes()))), held_(budget.reserve(cap_bytes, what)) {}

  // The bytes of one kept tile beside its payload's arrays: for the plan.
  static constexpr std::uint64_t entry_bytes() { return sizeof(std::optional<Payload>); }

  // Declares part `what` in each of `phases` (the phases the kept tiles live through): none at
  // least, all `tiles` at `tile_bytes` at most. Declared after the phases' other parts, it takes
  // what they leave.
  static void plan(MemoryPlan& plan, const std::vector<std::string>& phases, const std::string& what, std::uint64_t tiles,
                   std::uint64_t tile_bytes) {
    for (const std::string& phase : phases) plan.need(phase, what, 0, tiles * (tile_bytes + entry_bytes()));
  }
  // What the assigned plan left part `what`: the least over `phases`.
  static std::uint64_t cap(const MemoryPlan& plan, const std::vector<std::string>& phases, const std::string& what) {
    std::uint64_t least = plan.assigned(phases.front(), what);
    for (const std::string& phase : phases) least = std::min(least, plan.assigned(phase, what));
    return least;
  }

  bool keeps(std::uint64_t tile) const { return tile < slots_.size(); }
  void keep(std::uint64_t tile, Payload payload) {
    if (keeps(tile)) slots_[tile] = std::move(payload);
  }
  std::optional<Payload> take(std::uint64_t tile) {
    std::optional<Payload> payload = keeps(tile) ? std::exchange(slots_[tile], std::nullopt) : std::nullopt;
    if (payload) ++reused_;
    return payload;
  }

  // No tile kept from now on; their bytes given back to the budget.
  void drop_all() {
    std::vector<std::optional<Payload>>().swap(slots_);
    held_.release();
  }

  // step(); when the budget refuses it (BudgetError) and tiles are kept, drop_all() and step() again.
  // Call between batches of tiles (no keep() or take() running).
  template <class Step>
  void or_drop_kept(Step&& step) {
    try {
      step();
    } catch (const BudgetError&) {
      if (slots_.empty()) throw;
      drop_all();
      step();
    }
  }

  // The tiles whose payload take() handed back: after the write, the tiles not computed twice.
  std::uint64_t reused_tiles() const { return reused_; }

 private:
  std::vector<std::optional<Payload>> slots_;
  MemoryBudget::Reservation held_;
  std::atomic<std::uint64_t> reused_{0};
};

}  // namespace terrazo
