// engine/run/tile_gather.h: per-tile messages of a distributed run gathered at rank 0 in row-major
// tile order (docs/distributed.md "Output"): the piece `clump` and `sssp` share to write one file
// from every rank's tiles with rank 0's writer, byte-identical to one process's.
//
// Contract: every rank visits its own tiles in the writer's order: row-major tile order, or the
// `order` given (a list of row-major tile indices, e.g. TileGrid::z_order() for `mst`, whose writer
// takes the tiles in Z-order). Ranks 1..N-1 send one message per owned tile to rank 0
// (send_tile_message, tag `tag`, in that order). Rank 0 calls mine(tile) (or mine_at(position in
// `order`)) before handing each of its own tiles to its writer, and finish() after its last: the
// gather receives every other rank's tiles that come before (from their owners, one message at a
// time, MPI's non-overtaking order per sender) and gives each to `take` in that order, so the
// writer sees every tile in the order one process gives them. It holds one received message at a
// time (each sender blocks in send until rank 0 takes its message).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"

namespace terrazo {

class TileGather {
 public:
  // Another rank's message for row-major tile `tile`, from its owner `owner`.
  using Take = std::function<void(std::uint64_t tile, int owner, std::vector<std::uint8_t> message)>;
  // `order` (null: row-major) must outlive the gather.
  TileGather(Communicator& comm, const TileOwnership& ownership, std::uint64_t tile_count, int tag, Take take,
             const std::vector<std::uint64_t>* order = nullptr)
      : comm_(comm), ownership_(ownership), tile_count_(tile_count), tag_(tag), take_(std::move(take)), order_(order) {}
  // Rank 0's own tile `tile` comes next (row-major order only): the other ranks' tiles before it are taken first.
  void mine(std::uint64_t tile) { mine_at(tile); }
  // Rank 0's own tile at `position` of the order comes next.
  void mine_at(std::uint64_t position);
  // The other ranks' tiles before `position` of the order, taken in order.
  void pull_until(std::uint64_t position);
  // The other ranks' tiles after rank 0's last.
  void finish() { pull_until(tile_count_); }
  std::uint64_t bytes_received() const { return bytes_received_; }

 private:
  Communicator& comm_;
  const TileOwnership& ownership_;
  std::uint64_t tile_count_;
  int tag_;
  Take take_;
  const std::vector<std::uint64_t>* order_;
  std::uint64_t next_ = 0;  // the next position of the order to take
  std::uint64_t bytes_received_ = 0;
};

// A message carrying one window of a raster: a header of kWindowHeaderBytes (kind (u32, the command's
// meaning), 0 (u32), x, y (u64), w, h (u32)), then the payload.
struct WindowHeader {
  std::uint32_t kind = 0;
  std::uint64_t x = 0, y = 0;
  std::uint32_t w = 0, h = 0;
};
constexpr std::size_t kWindowHeaderBytes = 32;

// A window message of `header` and `payload` zero bytes (at kWindowHeaderBytes) for the caller to fill.
std::vector<std::uint8_t> window_message(const WindowHeader& header, std::size_t payload);
// `message`'s header; Error "<command>: internal error: a short window message" when it has none.
WindowHeader read_window_header(const std::vector<std::uint8_t>& message, const char* command);

// A rank's message for one of its tiles, to rank 0's TileGather (returns once it is sent).
inline void send_tile_message(Communicator& comm, int tag, std::vector<std::uint8_t> message) {
  comm.send(0, tag, std::move(message));
}

}  // namespace terrazo
