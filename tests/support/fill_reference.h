// tests/support/fill_reference.h: depression filling by the textbook Priority-Flood over the whole
// raster in memory ([Barnes2014], Algorithm 1), the oracle of the out-of-core fill.
#pragma once
#include <cmath>
#include <cstdint>
#include <queue>
#include <vector>

namespace terrazo::testing {

// Filled elevations of `dem` (NaN: nodata); outlets: the raster's edge cells (`edge`) and cells next
// to nodata (`nodata`), `eight` or 4 neighbours. Cells with no path to an outlet come back NaN.
inline std::vector<double> reference_fill(const std::vector<double>& dem, std::uint64_t w, std::uint64_t h, bool eight,
                                          bool edge, bool nodata) {
  const int dx[8] = {1, 0, -1, 0, 1, -1, -1, 1}, dy[8] = {0, 1, 0, -1, 1, 1, -1, -1};
  const int n = eight ? 8 : 4;
  auto valid = [&](std::int64_t x, std::int64_t y) {
    return x >= 0 && y >= 0 && x < static_cast<std::int64_t>(w) && y < static_cast<std::int64_t>(h) && !std::isnan(dem[y * w + x]);
  };
  std::vector<double> out(dem.size(), std::nan(""));
  std::vector<char> seen(dem.size(), 0);
  using Entry = std::pair<double, std::uint64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      if (!valid(x, y)) continue;
      bool outlet = edge && (x == 0 || y == 0 || x + 1 == w || y + 1 == h);
      for (int d = 0; d < n && nodata && !outlet; ++d) {
        const std::int64_t nx = x + dx[d], ny = y + dy[d];
        outlet = nx >= 0 && ny >= 0 && nx < static_cast<std::int64_t>(w) && ny < static_cast<std::int64_t>(h) && !valid(nx, ny);
      }
      if (!outlet) continue;
      seen[y * w + x] = 1;
      out[y * w + x] = dem[y * w + x];
      queue.push({dem[y * w + x], y * w + x});
    }
  while (!queue.empty()) {
    const auto [level, c] = queue.top();
    queue.pop();
    const std::int64_t x = c % w, y = c / w;
    for (int d = 0; d < n; ++d) {
      const std::int64_t nx = x + dx[d], ny = y + dy[d];
      if (!valid(nx, ny) || seen[ny * w + nx]) continue;
      seen[ny * w + nx] = 1;
      const double own = dem[ny * w + nx];
      out[ny * w + nx] = level > own ? (level == 0 ? 0.0 : level) : own;  // a raised zero is +0
      queue.push({std::max(own, level), static_cast<std::uint64_t>(ny * w + nx)});
    }
  }
  return out;
}

}  // namespace terrazo::testing
