// engine/sssp/distributed_output.cpp: SsspResultSender and SsspResultGatherer
// (engine/sssp/distributed_output.h).
#include "engine/sssp/distributed_output.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/common/error.h"
#include "kernels/sssp/backlink.h"

namespace terrazo {
namespace {
constexpr int kResultTag = 0x55a2;
// Header: tile (u64), reached (u32), flags (u32: 1 allocation ids follow, 2 backlinks follow).
constexpr std::size_t kHeader = 16;
constexpr std::uint32_t kIds = 1, kBacklinks = 2;
}  // namespace

std::uint64_t sssp_tile_message_bytes(std::uint32_t t, bool source, bool backlink) {
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  return kHeader + cells * (8 + (source ? 4 : 0) + (backlink ? 1 : 0));
}

SsspResultSender::SsspResultSender(Communicator& comm, const TileGrid& grid, bool source, bool backlink,
                                   MemoryBudget& budget)
    : comm_(comm),
      grid_(grid),
      source_(source),
      backlink_(backlink),
      reservation_(budget.reserve(sssp_tile_message_bytes(grid.tile, source, backlink), "sssp tile message to rank 0")) {}

void SsspResultSender::write_tile(const SsspTileResult& r) {
  const std::uint64_t cells = static_cast<std::uint64_t>(grid_.tile) * grid_.tile;
  const std::uint64_t tile = static_cast<std::uint64_t>(r.ty) * grid_.tiles_x() + r.tx;
  const std::uint32_t reached = r.reached ? 1 : 0, flags = (source_ ? kIds : 0) | (backlink_ ? kBacklinks : 0);
  std::vector<std::uint8_t> message(reached ? sssp_tile_message_bytes(grid_.tile, source_, backlink_) : kHeader);
  std::memcpy(&message[0], &tile, 8);
  std::memcpy(&message[8], &reached, 4);
  std::memcpy(&message[12], &flags, 4);
  if (reached) {
    std::uint8_t* p = &message[kHeader];
    std::memcpy(p, r.dist, cells * 8);
    p += cells * 8;
    if (source_) std::memcpy(p, r.source, cells * 4), p += cells * 4;
    if (backlink_) std::memcpy(p, r.backlink, cells);
  }
  bytes_sent_ += message.size();
  send_tile_message(comm_, kResultTag, std::move(message));
}

SsspResultGatherer::SsspResultGatherer(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid,
                                       SsspResultSink& sink, bool source, bool backlink, MemoryBudget& budget)
    : grid_(grid),
      sink_(sink),
      source_(source),
      backlink_(backlink),
      reservation_(budget.reserve(2 * sssp_tile_message_bytes(grid.tile, source, backlink),
                                  "sssp tile received from another rank")),
      slot_reservation_(budget.reserve(sink.slot_bytes(), "sssp output slot of the received tiles")),
      gather_(comm, ownership, grid.tile_count(), kResultTag,
              [this](std::uint64_t tile, int owner, std::vector<std::uint8_t> message) { take(tile, owner, message); }) {
  const std::size_t cells = static_cast<std::size_t>(grid.tile) * grid.tile;
  dist_.resize(cells);
  if (source_) ids_.resize(cells);
  if (backlink_) back_.resize(cells);
}

void SsspResultGatherer::set_slots(unsigned count) {
  slot_reservation_.release();  // the sink reserves it now
  sink_.set_slots(count + 1);
  slot_ = count;
}

void SsspResultGatherer::write_tile(const SsspTileResult& r) {
  gather_.mine(static_cast<std::uint64_t>(r.ty) * grid_.tiles_x() + r.tx);
  sink_.write_tile(r);
}

void SsspResultGatherer::take(std::uint64_t tile, int owner, const std::vector<std::uint8_t>& message) {
  const std::size_t cells = dist_.size();
  std::uint64_t sent_tile = 0;
  std::uint32_t reached = 0, flags = 0;
  if (message.size() >= kHeader) {
    std::memcpy(&sent_tile, &message[0], 8);
    std::memcpy(&reached, &message[8], 4);
    std::memcpy(&flags, &message[12], 4);
  }
  const std::uint32_t expected_flags = (source_ ? kIds : 0) | (backlink_ ? kBacklinks : 0);
  const std::size_t expected_bytes = reached ? sssp_tile_message_bytes(grid_.tile, source_, backlink_) : kHeader;
  if (message.size() != expected_bytes || sent_tile != tile || flags != expected_flags)
    throw Error("sssp: internal error: rank " + std::to_string(owner) + " sent another tile than tile " +
                std::to_string(tile) + "'s results");
  const std::uint8_t* p = &message[kHeader];
  if (reached) {
    std::memcpy(dist_.data(), p, cells * 8), p += cells * 8;
    if (source_) std::memcpy(ids_.data(), p, cells * 4), p += cells * 4;
    if (backlink_) std::memcpy(back_.data(), p, cells);
  } else {  // what the write phase gives for a tile no source reached
    std::fill(dist_.begin(), dist_.end(), kUnreached);
    std::fill(ids_.begin(), ids_.end(), 0u);
    std::fill(back_.begin(), back_.end(), kNoBacklink);
  }
  const TileWindow in = grid_.window(tile);
  SsspTileResult r;
  r.tx = static_cast<std::uint32_t>(tile % grid_.tiles_x());
  r.ty = static_cast<std::uint32_t>(tile / grid_.tiles_x());
  r.x0 = in.x0, r.y0 = in.y0, r.width = in.w, r.height = in.h;
  r.stride = grid_.tile;
  r.reached = reached != 0;
  r.dist = dist_.data();
  r.source = source_ ? ids_.data() : nullptr;
  r.backlink = backlink_ ? back_.data() : nullptr;
  r.slot = slot_;
  sink_.prepare_tile(r);
  sink_.write_tile(r);
}

}  // namespace terrazo
