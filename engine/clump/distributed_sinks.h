// engine/clump/distributed_sinks.h: the outputs of a distributed `terrazo clump` (docs/distributed.md
// "clump"): rank 0 writes every output file; the other ranks send it what their tiles give.
//
//  - ClumpWindowSender (ranks 1..N-1): each label window phase 3 gives (this rank's tiles, in
//    row-major tile order) goes to rank 0 as one message (32 bytes of header + 4 bytes a cell);
//    when the output's blocks are the tiles (GeoTIFF block writer, --tile 256..1024), each present
//    tile is encoded here (ZSTD etc., the exact bytes rank 0's encoders would make) and sent
//    encoded, so every rank compresses its own blocks. send() returns once it is sent, so a rank
//    holds at most the windows phase 3 holds anyway.
//  - ClumpWindowGatherer (rank 0): between rank 0's own windows, the other ranks' windows of the
//    tiles before them, received from their owners in row-major tile order (TileGather,
//    engine/run/tile_gather.h, shared with sssp's outputs), so that `sink` (the
//    GeoTIFF writer, or the label file of --min-size) gets every window in the order one process
//    gives them, and writes the same bytes. It holds one received window at a time.
//  - ClumpStatsSender / ClumpStatsMerger (--stats): each rank's regions in label order (its
//    interior regions; rank 0 also the border regions' roots, combined over the ranks by
//    RegionStatsCollector::combine_border_stats) go to rank 0 in chunks of kStatsChunk regions,
//    where a merge by label gives them to the CSV in label order (labels are unique across ranks).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/clump/phases.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_gather.h"
#include "engine/run/tile_ownership.h"

namespace terrazo {

// A tile of labels (t*t UInt32 as bytes) encoded as rank 0's GeoTIFF block writer encodes its blocks.
using ClumpBlockEncoder = std::function<std::vector<std::uint8_t>(const std::vector<std::uint8_t>& labels)>;
// Rank 0's writer taking a block another rank encoded (bx, by: the tile's position).
using ClumpEncodedBlockWriter = std::function<void(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> encoded)>;

class ClumpWindowSender : public ClumpWindowSink {
 public:
  // `encode` (with `block`, the file's block size): the tiles that are the file's blocks are encoded
  // here and sent encoded; null: every window is sent as labels.
  ClumpWindowSender(Communicator& comm, std::uint32_t block = 0, ClumpBlockEncoder encode = nullptr)
      : comm_(comm), block_(block), encode_(std::move(encode)) {}
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint32_t* labels) override;
  bool takes_tiles(std::uint32_t t) const override { return encode_ && t == block_; }
  std::vector<std::uint8_t> take_tile() override { return std::vector<std::uint8_t>(4ull * block_ * block_); }
  void write_tile(std::uint64_t tx, std::uint64_t ty, std::vector<std::uint8_t> labels) override;
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  Communicator& comm_;
  std::uint64_t bytes_sent_ = 0;
  std::uint32_t block_;
  ClumpBlockEncoder encode_;
};

class ClumpWindowGatherer : public ClumpWindowSink {
 public:
  // `encoded`: where the other ranks' encoded blocks go (with a sink that takes tiles).
  ClumpWindowGatherer(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid, ClumpWindowSink& sink,
                      ClumpEncodedBlockWriter encoded = nullptr);
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint32_t* labels) override;
  bool takes_tiles(std::uint32_t t) const override { return encoded_ && sink_.takes_tiles(t); }
  std::vector<std::uint8_t> take_tile() override { return sink_.take_tile(); }
  void write_tile(std::uint64_t tx, std::uint64_t ty, std::vector<std::uint8_t> labels) override;
  // The other ranks' windows after rank 0's last one.
  void end_of_windows() override { gather_.finish(); }
  std::uint64_t bytes_received() const { return gather_.bytes_received(); }

 private:
  // Another rank's window (or encoded block) of `tile`, to the sink.
  void take(std::uint64_t tile, int owner, const std::vector<std::uint8_t>& message);
  TileGrid grid_;
  ClumpWindowSink& sink_;
  ClumpEncodedBlockWriter encoded_;
  std::vector<std::uint32_t> labels_;  // the received window
  TileGather gather_;  // engine/run/tile_gather.h
};

class ClumpStatsSender : public ClumpStatsSink {
 public:
  explicit ClumpStatsSender(Communicator& comm) : comm_(comm) {}
  void region(const ClumpRegionStats& stats) override;
  void finish();  // the last chunk, then an empty message (the end)

 private:
  void flush();
  Communicator& comm_;
  std::vector<ClumpRegionStats> chunk_;
};

class ClumpStatsMerger : public ClumpStatsSink {
 public:
  ClumpStatsMerger(Communicator& comm, ClumpStatsSink& sink);
  void region(const ClumpRegionStats& stats) override;  // rank 0's own, in label order
  void finish();                                         // the other ranks' regions after rank 0's last

 private:
  void emit_below(std::uint64_t label);
  bool head(int rank);  // false when the rank has no more regions
  Communicator& comm_;
  ClumpStatsSink& sink_;
  std::vector<std::vector<ClumpRegionStats>> chunk_;
  std::vector<std::size_t> at_;
  std::vector<bool> done_;
};

constexpr std::size_t kStatsChunk = 16384;

}  // namespace terrazo
