// engine/run/tile_ownership.cpp: TileOwnership (engine/run/tile_ownership.h).
#include "engine/run/tile_ownership.h"

#include <algorithm>

#include "kernels/common/error.h"

namespace terrazo {

TileOwnership::TileOwnership(const TileGrid& grid, int ranks, const std::function<std::uint64_t(std::uint64_t)>& weight)
    : grid_(grid) {
  if (ranks < 1) throw Error("internal error: a tile ownership of " + std::to_string(ranks) + " ranks");
  const std::vector<std::uint64_t> order = grid.z_order();
  std::vector<std::uint64_t> w(order.size(), 1);
  if (weight)
    for (std::size_t z = 0; z < order.size(); ++z) w[z] = weight(order[z]);
  std::uint64_t total = 0;
  for (std::uint64_t x : w) total += x;
  if (total == 0) std::fill(w.begin(), w.end(), 1), total = w.size();  // nothing weighed: by tiles
  const auto n = static_cast<std::uint64_t>(ranks);
  begin_.assign(n + 1, order.size());
  weight_.assign(n, 0);
  begin_[0] = 0;
  // Rank r starts at the first position whose weight before it reaches ceil(r * total / n).
  std::uint64_t before = 0;
  std::size_t z = 0;
  for (std::uint64_t r = 1; r < n; ++r) {
    while (z < order.size() && before * n < r * total) before += w[z++];
    begin_[r] = z;
  }
  for (std::uint64_t k = 0; k < n; ++k)
    for (std::uint64_t z = begin_[k]; z < begin_[k + 1]; ++z) weight_[k] += w[z];
}

int TileOwnership::owner(std::uint64_t tile) const {
  const auto tx = static_cast<std::uint32_t>(tile % grid_.tiles_x()), ty = static_cast<std::uint32_t>(tile / grid_.tiles_x());
  const std::uint64_t z = grid_.z_rank(tx, ty);
  return static_cast<int>(std::upper_bound(begin_.begin(), begin_.end(), z) - begin_.begin()) - 1;
}

}  // namespace terrazo
