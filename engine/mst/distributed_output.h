// engine/mst/distributed_output.h: the outputs of a distributed `terrazo mst` (docs/distributed.md
// "mst"): rank 0 writes every output file; the other ranks send it what their tiles give.
//
// One process hands its writer the tiles' windows in tile Z-order (engine/mst/phases.h), and the
// edge raster's bytes depend on that order (its blocks are appended as they complete), so the
// ranks' windows are gathered in Z-order: TileGather (engine/run/tile_gather.h) with the grid's
// Z-order. As each rank owns one Z range, in rank order, rank 0 writes its own range, then rank 1's
// windows as they come, then rank 2's, and so on.
//  - MstWindowSender (ranks 1..N-1): each window phase 3 gives (this rank's tiles, in Z-order) goes
//    to rank 0 as one message (32 bytes of header + 1 byte a cell); send() returns once rank 0 has
//    it, so a rank holds one window more than phase 3 does.
//  - MstWindowGatherer (rank 0): before each of rank 0's own windows, and at finish(), the other
//    ranks' windows before it in Z-order, to `sink`; it holds one received window at a time.
//  - gather_edge_lists: the binary edge list is by owner tile in Z-order, so it is the ranks' parts
//    (each rank's phase 3 writes its own into its run directory) concatenated in rank order: rank 0
//    copies its part into the output and then each other rank's, sent in chunks of kEdgeListChunk
//    bytes (an empty message ends a rank's part).
// Fault injection (fault_point): "mst: expansion" when a rank has handed over half its windows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/mst/phases.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_gather.h"
#include "engine/run/tile_ownership.h"
#include "io/store/atomic_output.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

constexpr std::uint64_t kEdgeListChunk = 1ull << 20;

class MstWindowSender : public MstWindowSink {
 public:
  MstWindowSender(Communicator& comm, std::uint64_t own_tiles) : comm_(comm), fault_at_(own_tiles / 2) {}
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint8_t* cells) override;
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  Communicator& comm_;
  std::uint64_t fault_at_, windows_ = 0, bytes_sent_ = 0;
};

class MstWindowGatherer : public MstWindowSink {
 public:
  // `sink`: rank 0's writer (null: no edge raster; the windows are received all the same).
  MstWindowGatherer(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid, MstWindowSink* sink,
                    std::uint64_t own_tiles);
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint8_t* cells) override;
  // The other ranks' windows after rank 0's last one.
  void finish() { gather_.finish(); }
  std::uint64_t bytes_received() const { return gather_.bytes_received(); }

 private:
  void take(std::uint64_t tile, int owner, const std::vector<std::uint8_t>& message);
  Communicator& comm_;
  TileGrid grid_;
  MstWindowSink* sink_;
  std::vector<std::uint64_t> order_;  // the grid's Z-order (8 bytes a tile)
  TileGather gather_;
  std::uint64_t fault_at_, windows_ = 0;
};

// Rank 0: `own_part` then every other rank's part, in rank order, into `output`'s partial file
// (null: read and dropped). Other ranks: their `own_part` to rank 0. A collective.
struct EdgeListGather {
  std::uint64_t sent = 0, received = 0, written = 0;  // bytes
};
EdgeListGather gather_edge_lists(Communicator& comm, const std::string& own_part, AtomicOutput* output,
                                MemoryBudget& budget);

}  // namespace terrazo
