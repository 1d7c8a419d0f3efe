// tests/support/flowdir_reference.h: D8 flow directions with flats resolved by [Barnes2014b], over
// the whole raster in memory with plain BFS queues: the oracle of the out-of-core flowdir
// (engine/flow/flowdir_phases.h has the contract).
#pragma once
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "kernels/flow/d8_codes.h"

namespace terrazo::testing {

struct ReferenceFlowdir {
  std::vector<std::uint8_t> codes;
  std::vector<char> flat;  // the flat cells
  std::uint64_t flat_cells = 0, flats = 0, undrained_cells = 0, outlet_cells = 0;
};

// `dem`: w x h, NaN nodata; outlets: the raster's edge (`edge`), cells with a nodata neighbour (`nodata`).
inline ReferenceFlowdir reference_flowdir(const std::vector<double>& dem, std::uint64_t w, std::uint64_t h, bool edge,
                                          bool nodata) {
  const std::int64_t W = static_cast<std::int64_t>(w), H = static_cast<std::int64_t>(h);
  auto inside = [&](std::int64_t x, std::int64_t y) { return x >= 0 && y >= 0 && x < W && y < H; };
  auto valid = [&](std::int64_t x, std::int64_t y) { return inside(x, y) && !std::isnan(dem[y * W + x]); };
  ReferenceFlowdir r;
  r.codes.assign(w * h, kD8Nodata);
  r.flat.assign(w * h, 0);
  // 1. Steepest descent (diagonal drops times 1/sqrt 2 in double, the first direction on ties), outlets, flats.
  for (std::int64_t y = 0; y < H; ++y)
    for (std::int64_t x = 0; x < W; ++x) {
      if (!valid(x, y)) continue;
      const double z = dem[y * W + x];
      double best = 0;
      int best_d = -1;
      for (int d = 0; d < 8; ++d) {
        const std::int64_t nx = x + kD8Steps[d].dx, ny = y + kD8Steps[d].dy;
        if (!valid(nx, ny) || !(dem[ny * W + nx] < z)) continue;
        const double slope = (z - dem[ny * W + nx]) * (d % 2 == 1 ? 0.70710678118654752440 : 1.0);
        if (best_d < 0 || slope > best) best = slope, best_d = d;
      }
      bool outlet = edge && (x == 0 || y == 0 || x == W - 1 || y == H - 1);
      for (int d = 0; d < 8 && nodata; ++d)
        outlet = outlet || (inside(x + kD8Steps[d].dx, y + kD8Steps[d].dy) && !valid(x + kD8Steps[d].dx, y + kD8Steps[d].dy));
      r.codes[y * W + x] = best_d >= 0 ? kD8Steps[best_d].code : kD8NoFlow;
      r.flat[y * W + x] = best_d < 0 && !outlet;
      r.flat_cells += r.flat[y * W + x];
      r.outlet_cells += best_d < 0 && outlet;
    }
  auto is_flat = [&](std::int64_t x, std::int64_t y) { return valid(x, y) && r.flat[y * W + x]; };
  // 2. The flats (components), and a BFS from seeds through each flat.
  std::vector<std::int64_t> label(w * h, -1);
  std::vector<std::int64_t> towards(w * h, 0), away(w * h, 0);
  auto bfs = [&](std::vector<std::int64_t>& dist, auto seed) {
    std::deque<std::int64_t> queue;
    for (std::int64_t i = 0; i < W * H; ++i)
      if (r.flat[i] && seed(i % W, i / W)) dist[i] = 1, queue.push_back(i);
    while (!queue.empty()) {
      const std::int64_t c = queue.front();
      queue.pop_front();
      for (const D8Step& s : kD8Steps) {
        const std::int64_t nx = c % W + s.dx, ny = c / W + s.dy;
        if (is_flat(nx, ny) && dist[ny * W + nx] == 0) dist[ny * W + nx] = dist[c] + 1, queue.push_back(ny * W + nx);
      }
    }
  };
  std::vector<std::int64_t> flat_max;
  for (std::int64_t i = 0; i < W * H; ++i) {
    if (!r.flat[i] || label[i] >= 0) continue;
    std::deque<std::int64_t> queue{i};
    label[i] = static_cast<std::int64_t>(r.flats++);
    while (!queue.empty()) {
      const std::int64_t c = queue.front();
      queue.pop_front();
      for (const D8Step& s : kD8Steps) {
        const std::int64_t nx = c % W + s.dx, ny = c / W + s.dy;
        if (is_flat(nx, ny) && label[ny * W + nx] < 0) label[ny * W + nx] = label[i], queue.push_back(ny * W + nx);
      }
    }
  }
  auto draining_equal = [&](std::int64_t x, std::int64_t y, int d) {
    const std::int64_t nx = x + kD8Steps[d].dx, ny = y + kD8Steps[d].dy;
    return valid(nx, ny) && !r.flat[ny * W + nx] && dem[ny * W + nx] == dem[y * W + x];
  };
  bfs(towards, [&](std::int64_t x, std::int64_t y) {
    for (int d = 0; d < 8; ++d)
      if (draining_equal(x, y, d)) return true;
    return false;
  });
  bfs(away, [&](std::int64_t x, std::int64_t y) {
    for (const D8Step& s : kD8Steps)
      if (valid(x + s.dx, y + s.dy) && dem[(y + s.dy) * W + x + s.dx] > dem[y * W + x]) return true;
    return false;
  });
  flat_max.assign(r.flats, 0);
  for (std::int64_t i = 0; i < W * H; ++i)
    if (r.flat[i]) flat_max[label[i]] = std::max(flat_max[label[i]], away[i]);
  // 3. Each flat cell steps to its neighbour of least mask 2 * towards + (max away - away), a draining
  // neighbour of its elevation counting 0; a flat that no such neighbour drains keeps 0.
  auto mask = [&](std::int64_t i) { return 2 * towards[i] + flat_max[label[i]] - away[i]; };
  for (std::int64_t i = 0; i < W * H; ++i) {
    if (!r.flat[i]) continue;
    if (towards[i] == 0) {
      ++r.undrained_cells;
      continue;
    }
    std::int64_t best = mask(i);
    for (int d = 0; d < 8; ++d) {
      const std::int64_t nx = i % W + kD8Steps[d].dx, ny = i / W + kD8Steps[d].dy;
      std::int64_t m;
      if (draining_equal(i % W, i / W, d)) m = 0;
      else if (is_flat(nx, ny)) m = mask(ny * W + nx);
      else continue;
      if (m < best) best = m, r.codes[i] = kD8Steps[d].code;
    }
  }
  return r;
}

}  // namespace terrazo::testing
