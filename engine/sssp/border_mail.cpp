// engine/sssp/border_mail.cpp: BorderMail (engine/sssp/border_mail.h).
#include "engine/sssp/border_mail.h"

#include <cstring>
#include <memory>
#include <set>
#include <string>

#include "kernels/common/error.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/sssp/knight.h"

namespace terrazo {
namespace {

constexpr int kMailTag = 0x55a1;
constexpr std::size_t kPushHeader = 16;

using Label = std::pair<PathLength, std::uint64_t>;
Label label_of(const RingCell& c) { return {c.dist, static_cast<std::uint64_t>(c.source) << 32 | c.hops}; }

std::size_t padded(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

// Calls `visit(tile, neighbour, dx, dy)` for every tile of `rank` and each neighbouring tile a push
// reaches (8 around; the 4 sides with 4-connectivity) that another rank owns.
template <class Visit>
void for_each_foreign_neighbour(const TileOwnership& ownership, int rank, const TileGrid& grid,
                                Connectivity connectivity, Visit&& visit) {
  const std::int64_t tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  for (std::uint64_t tile = 0; tile < grid.tile_count(); ++tile) {
    if (ownership.owner(tile) != rank) continue;
    const std::int64_t tx = static_cast<std::int64_t>(tile % grid.tiles_x()), ty = static_cast<std::int64_t>(tile / grid.tiles_x());
    for (int d = 0; d < 8; ++d) {
      if (!step_used(d, connectivity)) continue;
      const std::int64_t nx = tx + kDirDx[d], ny = ty + kDirDy[d];
      if (nx < 0 || ny < 0 || nx >= tiles_x || ny >= tiles_y) continue;
      const std::uint64_t neighbour = static_cast<std::uint64_t>(ny * tiles_x + nx);
      if (ownership.owner(neighbour) != rank) visit(tile, neighbour, kDirDx[d], kDirDy[d]);
    }
  }
}

}  // namespace

BorderMail::BorderMail(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid,
                       Connectivity connectivity)
    : comm_(comm) {
  std::set<int> ranks;
  for_each_foreign_neighbour(ownership, comm.rank(), grid, connectivity,
                             [&](std::uint64_t, std::uint64_t neighbour, int, int) { ranks.insert(ownership.owner(neighbour)); });
  neighbours_.assign(ranks.begin(), ranks.end());
}

std::uint64_t BorderMail::bytes_bound(const TileOwnership& ownership, int rank, const TileGrid& grid, std::uint32_t halo,
                                      Connectivity connectivity) {
  std::uint64_t bytes = 0;
  const std::uint64_t side = static_cast<std::uint64_t>(grid.tile) * halo, corner = static_cast<std::uint64_t>(halo) * halo;
  for_each_foreign_neighbour(ownership, rank, grid, connectivity, [&](std::uint64_t, std::uint64_t, int dx, int dy) {
    bytes += (dx != 0 && dy != 0 ? corner : side) * (sizeof(RingCell) + 1) + 80;
  });
  return 3 * bytes;
}

void BorderMail::post(int rank, std::uint64_t tile, std::uint32_t first, const std::vector<RingCell>& cells,
                      const std::vector<char>& improves) {
  Box& box = outbox_[rank][{tile, first}];
  if (box.cells.empty()) {
    box.cells = cells;
    box.improves = improves;
    return;
  }
  if (box.cells.size() != cells.size())
    throw Error("internal error: two pushes to ring position " + std::to_string(first) + " of tile " +
                std::to_string(tile) + " differ in length");
  for (std::size_t k = 0; k < cells.size(); ++k) {
    if (cells[k].dist == kUnreached || !(label_of(cells[k]) < label_of(box.cells[k]))) continue;
    box.cells[k] = cells[k];
    box.improves[k] = improves[k];
  }
}

std::vector<std::uint8_t> BorderMail::pack(const std::map<std::pair<std::uint64_t, std::uint32_t>, Box>& box) const {
  std::size_t bytes = 0;
  for (const auto& [key, b] : box) bytes += kPushHeader + padded(b.cells.size() * (sizeof(RingCell) + 1));
  std::vector<std::uint8_t> message(bytes, 0);
  std::uint8_t* p = message.data();
  for (const auto& [key, b] : box) {
    const auto count = static_cast<std::uint32_t>(b.cells.size());
    std::memcpy(p, &key.first, 8);
    std::memcpy(p + 8, &key.second, 4);
    std::memcpy(p + 12, &count, 4);
    std::memcpy(p + kPushHeader, b.cells.data(), count * sizeof(RingCell));
    std::memcpy(p + kPushHeader + count * sizeof(RingCell), b.improves.data(), count);
    p += kPushHeader + padded(count * (sizeof(RingCell) + 1));
  }
  return message;
}

void BorderMail::unpack(const std::vector<std::uint8_t>& message, int from, const Apply& apply) const {
  std::vector<RingCell> cells;
  std::vector<char> improves;
  for (std::size_t at = 0; at < message.size();) {
    std::uint64_t tile;
    std::uint32_t first, count;
    if (at + kPushHeader > message.size()) throw Error("internal error: a torn border message from rank " + std::to_string(from));
    std::memcpy(&tile, &message[at], 8);
    std::memcpy(&first, &message[at + 8], 4);
    std::memcpy(&count, &message[at + 12], 4);
    const std::size_t body = padded(static_cast<std::size_t>(count) * (sizeof(RingCell) + 1));
    if (at + kPushHeader + body > message.size())
      throw Error("internal error: a torn border message from rank " + std::to_string(from));
    cells.resize(count);
    improves.resize(count);
    std::memcpy(cells.data(), &message[at + kPushHeader], count * sizeof(RingCell));
    std::memcpy(improves.data(), &message[at + kPushHeader + count * sizeof(RingCell)], count);
    apply(tile, first, cells, improves);
    at += kPushHeader + body;
  }
}

void BorderMail::round(const Apply& apply) {
  std::vector<std::unique_ptr<Communicator::Message>> sent;
  for (int rank : neighbours_) {
    auto box = outbox_.find(rank);
    std::vector<std::uint8_t> message;
    if (box != outbox_.end()) {
      message = pack(box->second);
      pushes_sent_ += box->second.size();
      outbox_.erase(box);
    }
    bytes_sent_ += message.size();
    sent.push_back(comm_.isend(rank, kMailTag, std::move(message)));
  }
  if (!outbox_.empty())
    throw Error("internal error: a border push to rank " + std::to_string(outbox_.begin()->first) +
                ", which owns no tile next to rank " + std::to_string(comm_.rank()) + "'s");
  for (int rank : neighbours_) {
    const std::vector<std::uint8_t> message = comm_.recv(rank, kMailTag);
    bytes_received_ += message.size();
    unpack(message, rank, apply);
  }
  for (auto& message : sent) message->wait();
}

}  // namespace terrazo
