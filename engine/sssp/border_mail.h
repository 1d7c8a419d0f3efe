// engine/sssp/border_mail.h: the border updates one rank of a distributed sssp exchange sends the
// ranks owning its tiles' neighbours: one message per neighbour rank per round (docs/distributed.md
// "sssp").
//
// A push of the exchange (engine/sssp/exchange.h, step 3) to a tile another rank owns is posted
// here instead of applied: ring positions [first, first + count) of that tile (one side or corner
// block of its halo), each cell's label (a RingCell: dist, value, source, hops; unreached = no
// news) and whether it may improve the tile (the sender's check on its ring, never false where it
// does). Posts to the same (tile, first) within a round are merged cell by cell: the smaller label
// (dist, source << 32 | hops) wins with its flag, the exchange's own min. A round's outbox therefore
// holds at most the halo cells of the other ranks' tiles facing this rank's, whatever was solved.
//
// round(): every neighbour rank (owning a tile adjacent, 8-connected, to one of this rank's:
// computed once from the ownership, a symmetric relation) is sent one message, empty when nothing
// was posted for it (isend), then one message is received from each, and its pushes go to `apply`,
// neighbours in rank order, each message's pushes in (tile, first) order. Every message of the
// round is in by the time round() returns: nothing stays in flight between rounds.
// Message: per push, tile (u64), first (u32), count (u32), count RingCells (24 bytes each), count
// improve flags (1 byte each), padded to 8 bytes.
// Memory: bytes_bound() is what the outbox, its messages and the inbox can hold at once: three
// times the halo cells facing other ranks (25 bytes each) plus 80 bytes per posted side.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"
#include "engine/sssp/distance_store.h"
#include "io/store/tile_store.h"
#include "kernels/common/types.h"

namespace terrazo {

class BorderMail {
 public:
  // One received push: the tile (this rank's), its ring positions from `first`, the cells and flags.
  using Apply = std::function<void(std::uint64_t tile, std::uint32_t first, const std::vector<RingCell>& cells,
                                   const std::vector<char>& improves)>;

  // `connectivity`: which neighbour tiles a push reaches (4: the sides only).
  BorderMail(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid, Connectivity connectivity);

  // The bytes the mail holds at most (above), for the memory plan; `halo`: the ring's width (1, or
  // 2 with 16 neighbours).
  static std::uint64_t bytes_bound(const TileOwnership& ownership, int rank, const TileGrid& grid, std::uint32_t halo,
                                   Connectivity connectivity);

  void post(int rank, std::uint64_t tile, std::uint32_t first, const std::vector<RingCell>& cells,
            const std::vector<char>& improves);
  // One round's messages out and in (a collective among the neighbour ranks).
  void round(const Apply& apply);

  const std::vector<int>& neighbours() const { return neighbours_; }
  std::uint64_t bytes_sent() const { return bytes_sent_; }
  std::uint64_t bytes_received() const { return bytes_received_; }
  std::uint64_t pushes_sent() const { return pushes_sent_; }

 private:
  struct Box {
    std::vector<RingCell> cells;
    std::vector<char> improves;
  };
  std::vector<std::uint8_t> pack(const std::map<std::pair<std::uint64_t, std::uint32_t>, Box>& box) const;
  void unpack(const std::vector<std::uint8_t>& message, int from, const Apply& apply) const;

  Communicator& comm_;
  std::vector<int> neighbours_;  // ascending
  std::map<int, std::map<std::pair<std::uint64_t, std::uint32_t>, Box>> outbox_;  // by destination rank
  std::uint64_t bytes_sent_ = 0, bytes_received_ = 0, pushes_sent_ = 0;
};

}  // namespace terrazo
