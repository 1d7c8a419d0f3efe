// engine/clump/distributed_sinks.cpp: the senders and gatherers of a distributed clump's outputs
// (engine/clump/distributed_sinks.h).
#include "engine/clump/distributed_sinks.h"

#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/common/error.h"

namespace terrazo {
namespace {
constexpr int kWindowTag = 0x7c01, kStatsTag = 0x7c02;
// Window messages (engine/run/tile_gather.h) of two kinds: labels of window x, y, w, h, or an encoded
// block of tile tx, ty (w = h = the block).
constexpr std::uint32_t kLabels = 0, kEncoded = 1;
static_assert(std::is_trivially_copyable<ClumpRegionStats>::value, "ClumpRegionStats crosses ranks as bytes");
}  // namespace

void ClumpWindowSender::write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                     const std::uint32_t* labels) {
  const std::uint64_t cells = static_cast<std::uint64_t>(w) * h;
  std::vector<std::uint8_t> message = window_message({kLabels, x0, y0, w, h}, 4 * cells);
  std::memcpy(&message[kWindowHeaderBytes], labels, 4 * cells);
  bytes_sent_ += message.size();
  send_tile_message(comm_, kWindowTag, std::move(message));
}

void ClumpWindowSender::write_tile(std::uint64_t tx, std::uint64_t ty, std::vector<std::uint8_t> labels) {
  const std::vector<std::uint8_t> encoded = encode_(labels);
  std::vector<std::uint8_t> message = window_message({kEncoded, tx, ty, block_, block_}, encoded.size());
  std::memcpy(&message[kWindowHeaderBytes], encoded.data(), encoded.size());
  bytes_sent_ += message.size();
  send_tile_message(comm_, kWindowTag, std::move(message));
}

ClumpWindowGatherer::ClumpWindowGatherer(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid,
                                         ClumpWindowSink& sink, ClumpEncodedBlockWriter encoded)
    : grid_(grid),
      sink_(sink),
      encoded_(std::move(encoded)),
      gather_(comm, ownership, grid.tile_count(), kWindowTag,
              [this](std::uint64_t tile, int owner, std::vector<std::uint8_t> message) { take(tile, owner, message); }) {}

void ClumpWindowGatherer::write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                       const std::uint32_t* labels) {
  gather_.mine((y0 / grid_.tile) * grid_.tiles_x() + x0 / grid_.tile);
  sink_.write_window(x0, y0, w, h, labels);
}

void ClumpWindowGatherer::write_tile(std::uint64_t tx, std::uint64_t ty, std::vector<std::uint8_t> labels) {
  gather_.mine(ty * grid_.tiles_x() + tx);
  sink_.write_tile(tx, ty, std::move(labels));
}

void ClumpWindowGatherer::take(std::uint64_t tile, int owner, const std::vector<std::uint8_t>& message) {
  const auto [kind, x, y, w, h] = read_window_header(message, "clump");
  const TileWindow expected = grid_.window(tile);
  const bool is_tile = kind == kEncoded && encoded_ && x * grid_.tile == expected.x0 && y * grid_.tile == expected.y0;
  const bool is_window = kind == kLabels && x == expected.x0 && y == expected.y0 && w == expected.w &&
                         h == expected.h && message.size() == kWindowHeaderBytes + 4ull * w * h;
  if (!is_tile && !is_window)
    throw Error("clump: internal error: rank " + std::to_string(owner) + " sent another window than tile " +
                std::to_string(tile) + "'s");
  if (is_tile) {
    encoded_(x, y, std::vector<std::uint8_t>(message.begin() + kWindowHeaderBytes, message.end()));
    return;
  }
  labels_.resize(static_cast<std::size_t>(w) * h);
  std::memcpy(labels_.data(), &message[kWindowHeaderBytes], 4 * labels_.size());
  sink_.write_window(x, y, w, h, labels_.data());
}

void ClumpStatsSender::region(const ClumpRegionStats& stats) {
  chunk_.push_back(stats);
  if (chunk_.size() == kStatsChunk) flush();
}

void ClumpStatsSender::flush() {
  std::vector<std::uint8_t> message(chunk_.size() * sizeof(ClumpRegionStats));
  if (!chunk_.empty()) std::memcpy(message.data(), chunk_.data(), message.size());
  comm_.send(0, kStatsTag, std::move(message));
  chunk_.clear();
}

void ClumpStatsSender::finish() {
  if (!chunk_.empty()) flush();
  flush();  // empty: the end
}

ClumpStatsMerger::ClumpStatsMerger(Communicator& comm, ClumpStatsSink& sink)
    : comm_(comm), sink_(sink), chunk_(comm.size()), at_(comm.size(), 0), done_(comm.size(), false) {
  done_[comm.rank()] = true;
}

bool ClumpStatsMerger::head(int rank) {
  if (at_[rank] < chunk_[rank].size()) return true;
  if (done_[rank]) return false;
  const std::vector<std::uint8_t> message = comm_.recv(rank, kStatsTag);
  if (message.size() % sizeof(ClumpRegionStats) != 0) throw Error("clump: internal error: a torn statistics message");
  chunk_[rank].resize(message.size() / sizeof(ClumpRegionStats));
  if (!message.empty()) std::memcpy(chunk_[rank].data(), message.data(), message.size());
  at_[rank] = 0;
  if (message.empty()) done_[rank] = true;
  return !message.empty();
}

void ClumpStatsMerger::emit_below(std::uint64_t label) {
  for (;;) {
    int best = -1;
    for (int r = 0; r < comm_.size(); ++r)
      if (head(r) && chunk_[r][at_[r]].label < label && (best < 0 || chunk_[r][at_[r]].label < chunk_[best][at_[best]].label))
        best = r;
    if (best < 0) return;
    sink_.region(chunk_[best][at_[best]++]);
  }
}

void ClumpStatsMerger::region(const ClumpRegionStats& stats) {
  emit_below(stats.label);
  sink_.region(stats);
}

void ClumpStatsMerger::finish() { emit_below(std::numeric_limits<std::uint64_t>::max()); }

}  // namespace terrazo
