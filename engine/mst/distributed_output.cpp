// engine/mst/distributed_output.cpp: MstWindowSender, MstWindowGatherer, gather_edge_lists
// (engine/mst/distributed_output.h).
#include "engine/mst/distributed_output.h"

#include <cstring>
#include <memory>

#include "io/store/posix_file.h"
#include "kernels/common/error.h"

namespace terrazo {
namespace {
constexpr int kWindowTag = 0x6d11, kEdgeListTag = 0x6d12;
}  // namespace

void MstWindowSender::write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                   const std::uint8_t* cells) {
  const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
  std::vector<std::uint8_t> message = window_message({0, x0, y0, w, h}, n);
  std::memcpy(&message[kWindowHeaderBytes], cells, n);
  bytes_sent_ += message.size();
  send_tile_message(comm_, kWindowTag, std::move(message));
  if (++windows_ == fault_at_) fault_point(comm_, "mst: expansion");
}

MstWindowGatherer::MstWindowGatherer(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid,
                                     MstWindowSink* sink, std::uint64_t own_tiles)
    : comm_(comm),
      grid_(grid),
      sink_(sink),
      order_(grid.z_order()),
      gather_(comm, ownership, grid.tile_count(), kWindowTag,
              [this](std::uint64_t tile, int owner, std::vector<std::uint8_t> message) { take(tile, owner, message); },
              &order_),
      fault_at_(own_tiles / 2) {}

void MstWindowGatherer::write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                     const std::uint8_t* cells) {
  gather_.mine_at(grid_.z_rank(static_cast<std::uint32_t>(x0 / grid_.tile), static_cast<std::uint32_t>(y0 / grid_.tile)));
  if (sink_) sink_->write_window(x0, y0, w, h, cells);
  if (++windows_ == fault_at_) fault_point(comm_, "mst: expansion");
}

void MstWindowGatherer::take(std::uint64_t tile, int owner, const std::vector<std::uint8_t>& message) {
  const WindowHeader window = read_window_header(message, "mst");
  const TileWindow expected = grid_.window(tile);
  if (window.x != expected.x0 || window.y != expected.y0 || window.w != expected.w || window.h != expected.h ||
      message.size() != kWindowHeaderBytes + static_cast<std::uint64_t>(window.w) * window.h)
    throw Error("mst: internal error: rank " + std::to_string(owner) + " sent another window than tile " +
                std::to_string(tile) + "'s");
  if (sink_) sink_->write_window(window.x, window.y, window.w, window.h, message.data() + kWindowHeaderBytes);
}

// ---- the edge list ---------------------------------------------------------------------------------

namespace {
// Rank 0: `from`'s part, chunk by chunk, appended to `out` at `*offset`.
void append_received_part(Communicator& comm, int from, PosixFile* out, EdgeListGather& totals, MemoryBudget& budget) {
  for (;;) {
    const std::vector<std::uint8_t> chunk = comm.recv(from, kEdgeListTag);
    if (chunk.empty()) return;
    auto held = budget.reserve(chunk.size(), "MST edge list chunk from another rank");
    if (out) out->write_all(chunk.data(), chunk.size(), totals.written);
    totals.written += chunk.size();
    totals.received += chunk.size();
  }
}
}  // namespace

EdgeListGather gather_edge_lists(Communicator& comm, const std::string& own_part, AtomicOutput* output,
                                MemoryBudget& budget) {
  PosixFile part(own_part, PosixFile::Mode::Read);
  const std::uint64_t size = part.size();
  auto buffer_held = budget.reserve(kEdgeListChunk, "MST edge list chunk");
  std::vector<std::uint8_t> buffer(kEdgeListChunk);
  std::unique_ptr<PosixFile> out;
  if (comm.root() && output) out = std::make_unique<PosixFile>(output->partial(), PosixFile::Mode::CreateReadWrite);
  EdgeListGather totals;
  for (std::uint64_t at = 0; at < size; at += kEdgeListChunk) {
    const std::uint64_t n = std::min<std::uint64_t>(kEdgeListChunk, size - at);
    part.read_exact(buffer.data(), n, at);
    if (comm.root()) {
      if (out) out->write_all(buffer.data(), n, totals.written);
      totals.written += n;
    } else {
      comm.send(0, kEdgeListTag, std::vector<std::uint8_t>(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n)));
      totals.sent += n;
    }
  }
  if (!comm.root()) {
    comm.send(0, kEdgeListTag, {});
    return totals;
  }
  for (int r = 1; r < comm.size(); ++r) append_received_part(comm, r, out.get(), totals, budget);
  if (out) {
    out->truncate(totals.written);
    out->close();
  }
  return totals;
}

}  // namespace terrazo
