// engine/run/tile_gather.cpp: TileGather (engine/run/tile_gather.h).
#include "engine/run/tile_gather.h"

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

}  // namespace terrazo
