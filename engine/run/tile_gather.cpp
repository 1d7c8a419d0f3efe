// engine/run/tile_gather.cpp: TileGather (engine/run/tile_gather.h).
#include "engine/run/tile_gather.h"

#include <string>

#include "kernels/common/error.h"

namespace terrazo {

void TileGather::mine(std::uint64_t tile) {
  pull_until(tile);
  next_ = tile + 1;
}

void TileGather::pull_until(std::uint64_t tile) {
  for (; next_ < tile; ++next_) {
    const int owner = ownership_.owner(next_);
    if (owner == comm_.rank())
      throw Error("internal error: rank " + std::to_string(owner) + "'s own tile " + std::to_string(next_) +
                  " did not come in row-major order");
    std::vector<std::uint8_t> message = comm_.recv(owner, tag_);
    bytes_received_ += message.size();
    take_(next_, owner, std::move(message));
  }
}

}  // namespace terrazo
