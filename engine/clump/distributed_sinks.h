// engine/clump/distributed_sinks.h: the outputs of a distributed `terrazo clump` (docs/distributed.md
// "clump"): rank 0 writes every output file; the other ranks send it what their tiles give.
//
//  - ClumpWindowSender (ranks 1..N-1): each label window phase 3 gives (this rank's tiles, in
//    row-major tile order) goes to rank 0 as one message (24 bytes of header + 4 bytes a cell);
//    send() returns once it is sent, so a rank holds at most the windows phase 3 holds anyway.
//  - ClumpWindowGatherer (rank 0): between rank 0's own windows, the other ranks' windows of the
//    tiles before them, received from their owners in row-major tile order, so that `sink` (the
//    GeoTIFF writer, or the label file of --min-size) gets every window in the order one process
//    gives them, and writes the same bytes. It holds one received window at a time.
//  - ClumpStatsSender / ClumpStatsMerger (--stats): each rank's regions in label order (its
//    interior regions; rank 0 also the border regions' roots, combined over the ranks by
//    RegionStatsCollector::combine_border_stats) go to rank 0 in chunks of kStatsChunk regions,
//    where a merge by label gives them to the CSV in label order (labels are unique across ranks).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/clump/phases.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"

namespace terrazo {

class ClumpWindowSender : public ClumpWindowSink {
 public:
  explicit ClumpWindowSender(Communicator& comm) : comm_(comm) {}
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint32_t* labels) override;

 private:
  Communicator& comm_;
};

class ClumpWindowGatherer : public ClumpWindowSink {
 public:
  ClumpWindowGatherer(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid, ClumpWindowSink& sink)
      : comm_(comm), ownership_(ownership), grid_(grid), sink_(sink) {}
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint32_t* labels) override;
  // The other ranks' windows after rank 0's last one.
  void end_of_windows() override { pull_until(grid_.tile_count()); }
  std::uint64_t bytes_received() const { return bytes_received_; }

 private:
  void pull_until(std::uint64_t tile);
  Communicator& comm_;
  const TileOwnership& ownership_;
  TileGrid grid_;
  ClumpWindowSink& sink_;
  std::uint64_t next_ = 0;  // the next tile (row-major) the sink gets
  std::uint64_t bytes_received_ = 0;
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
