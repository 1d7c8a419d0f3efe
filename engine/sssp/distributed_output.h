// engine/sssp/distributed_output.h: the outputs of a distributed `terrazo sssp` (docs/distributed.md
// "sssp"): rank 0 writes every output file; the other ranks send it their tiles' results.
//
//  - SsspResultSender (ranks 1..N-1): each tile the write phase (engine/sssp/output.h) gives it (its
//    own tiles, row-major) goes to rank 0 as one message: a 16-byte header (tile, reached, what
//    follows), then, for a reached tile, its t*t distances (8 bytes a cell), allocation ids (4,
//    --allocation) and backlinks (1, --backlink). A tile no source reached is the header alone.
//  - SsspResultGatherer (rank 0): wraps rank 0's sink (the GeoTIFF writers); before each of rank 0's
//    own tiles, the other ranks' tiles before it are received (engine/run/tile_gather.h, the piece
//    `clump` shares) and prepared and written through one slot of the sink of its own, so the sink
//    gets every tile in raster order, as in one process, and writes the same bytes.
// Memory: a received tile and its message (rank 0), a message (the others): 13 t^2 + 16 bytes each
// (sssp_tile_message_bytes), and rank 0's sink's extra slot, reserved from the budget, declared in
// the write phase's plan.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/run/communicator.h"
#include "engine/run/tile_gather.h"
#include "engine/run/tile_ownership.h"
#include "engine/sssp/output.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

// One tile's message (the senders) or a received tile (rank 0) at most, in bytes.
std::uint64_t sssp_tile_message_bytes(std::uint32_t t, bool source, bool backlink);

class SsspResultSender : public SsspResultSink {
 public:
  SsspResultSender(Communicator& comm, const TileGrid& grid, bool source, bool backlink, MemoryBudget& budget);
  void write_tile(const SsspTileResult& tile) override;
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  Communicator& comm_;
  TileGrid grid_;
  bool source_, backlink_;
  MemoryBudget::Reservation reservation_;
  std::uint64_t bytes_sent_ = 0;
};

class SsspResultGatherer : public SsspResultSink {
 public:
  SsspResultGatherer(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid, SsspResultSink& sink,
                     bool source, bool backlink, MemoryBudget& budget);
  std::uint64_t slot_bytes() const override { return sink_.slot_bytes(); }
  void set_slots(unsigned count) override;  // one more for the received tiles
  void prepare_tile(const SsspTileResult& tile) override { sink_.prepare_tile(tile); }
  void write_tile(const SsspTileResult& tile) override;
  // The other ranks' tiles after rank 0's last.
  void finish() { gather_.finish(); }
  std::uint64_t bytes_received() const { return gather_.bytes_received(); }

 private:
  void take(std::uint64_t tile, int owner, const std::vector<std::uint8_t>& message);
  TileGrid grid_;
  SsspResultSink& sink_;
  bool source_, backlink_;
  unsigned slot_ = 0;  // the sink's slot for received tiles
  MemoryBudget::Reservation reservation_;
  MemoryBudget::Reservation slot_reservation_;  // that slot's room, until the sink reserves it (set_slots)
  std::vector<PathLength> dist_;
  std::vector<std::uint32_t> ids_;
  std::vector<std::uint8_t> back_;
  TileGather gather_;
};

}  // namespace terrazo
