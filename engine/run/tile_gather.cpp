// engine/run/tile_gather.cpp: TileGather and the window messages (engine/run/tile_gather.h).
#include "engine/run/tile_gather.h"

#include <cstring>
#include <string>

#include "kernels/common/error.h"

namespace terrazo {

void TileGather::mine_at(std::uint64_t position) {
  pull_until(position);
  next_ = position + 1;
}

void TileGather::pull_until(std::uint64_t position) {
  for (; next_ < position; ++next_) {
    const std::uint64_t tile = order_ ? (*order_)[next_] : next_;
    const int owner = ownership_.owner(tile);
    if (owner == comm_.rank())
      throw Error("internal error: rank " + std::to_string(owner) + "'s own tile " + std::to_string(tile) +
                  " did not come in the writer's order");
    std::vector<std::uint8_t> message = comm_.recv(owner, tag_);
    bytes_received_ += message.size();
    take_(tile, owner, std::move(message));
  }
}

std::vector<std::uint8_t> window_message(const WindowHeader& header, std::size_t payload) {
  std::vector<std::uint8_t> message(kWindowHeaderBytes + payload, 0);
  std::memcpy(&message[0], &header.kind, 4);
  std::memcpy(&message[8], &header.x, 8);
  std::memcpy(&message[16], &header.y, 8);
  std::memcpy(&message[24], &header.w, 4);
  std::memcpy(&message[28], &header.h, 4);
  return message;
}

WindowHeader read_window_header(const std::vector<std::uint8_t>& message, const char* command) {
  if (message.size() < kWindowHeaderBytes) throw Error(std::string(command) + ": internal error: a short window message");
  WindowHeader header;
  std::memcpy(&header.kind, &message[0], 4);
  std::memcpy(&header.x, &message[8], 8);
  std::memcpy(&header.y, &message[16], 8);
  std::memcpy(&header.w, &message[24], 4);
  std::memcpy(&header.h, &message[28], 4);
  return header;
}

}  // namespace terrazo
