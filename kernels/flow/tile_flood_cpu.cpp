// kernels/flow/tile_flood_cpu.cpp: flood_tile on the CPU (kernels/flow/tile_flood.h).
#include "kernels/flow/tile_flood.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <unordered_map>

namespace terrazo {
namespace {

struct Pending {
  double level;
  std::uint64_t order;  // push order: equal levels pop first in, first out
  std::uint32_t cell;
  bool operator>(const Pending& o) const { return level != o.level ? level > o.level : order > o.order; }
};

using FloodQueue = std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>>;

constexpr int kDx[8] = {1, 0, -1, 0, 1, -1, -1, 1};
constexpr int kDy[8] = {0, 1, 0, -1, 1, 1, -1, -1};

class Flood {
 public:
  Flood(const TileFloodInput& in, TileFlood& out) : in_(in), out_(out), n_(in.connectivity == Connectivity::Four ? 4 : 8) {}

  void run() {
    reset();
    seed_perimeter();
    seed_inner_outlets();
    spread();
    collect_edges();
  }

 private:
  bool inside(int x, int y) const {
    return x >= 0 && y >= 0 && x < static_cast<int>(in_.width) && y < static_cast<int>(in_.height);
  }
  bool valid(int x, int y) const { return inside(x, y) && !std::isnan(in_.cells[index(x, y)]); }
  std::uint32_t index(int x, int y) const { return static_cast<std::uint32_t>(y) * in_.t + static_cast<std::uint32_t>(x); }

  bool on_raster_edge(int x, int y) const {
    return (in_.raster_top && y == 0) || (in_.raster_left && x == 0) ||
           (in_.raster_bottom && y == static_cast<int>(in_.height) - 1) ||
           (in_.raster_right && x == static_cast<int>(in_.width) - 1);
  }
  bool next_to_nodata(int x, int y) const {
    for (int d = 0; d < n_; ++d) {
      const int nx = x + kDx[d], ny = y + kDy[d];
      if (inside(nx, ny) && std::isnan(in_.cells[index(nx, ny)])) return true;
    }
    return false;
  }
  bool outlet(int x, int y) const {
    return (in_.edge_outlets && on_raster_edge(x, y)) || (in_.nodata_outlets && next_to_nodata(x, y));
  }

  void reset() {
    const std::size_t cells = static_cast<std::size_t>(in_.t) * in_.t;
    out_.level.assign(cells, std::nan(""));
    out_.label.assign(cells, kNoLabel);
    out_.labels = kOceanLabel + 1;
    out_.edges.clear();
    spill_.clear();
  }

  void seed(int x, int y, std::uint32_t label) {
    const std::uint32_t i = index(x, y);
    if (out_.label[i] != kNoLabel || std::isnan(in_.cells[i])) return;
    out_.label[i] = label;
    out_.level[i] = in_.cells[i];
    queue_.push(Pending{in_.cells[i], order_++, i});
  }
  void seed_perimeter_cell(int x, int y) {
    if (!valid(x, y) || out_.label[index(x, y)] != kNoLabel) return;
    seed(x, y, outlet(x, y) ? kOceanLabel : out_.labels++);
  }
  // Top row, bottom row, left column, right column: the order that numbers the labels.
  void seed_perimeter() {
    const int w = static_cast<int>(in_.width), h = static_cast<int>(in_.height);
    for (int x = 0; x < w; ++x) seed_perimeter_cell(x, 0);
    for (int x = 0; x < w; ++x) seed_perimeter_cell(x, h - 1);
    for (int y = 0; y < h; ++y) seed_perimeter_cell(0, y);
    for (int y = 0; y < h; ++y) seed_perimeter_cell(w - 1, y);
  }
  void seed_inner_outlets() {
    if (!in_.nodata_outlets) return;
    for (int y = 1; y + 1 < static_cast<int>(in_.height); ++y)
      for (int x = 1; x + 1 < static_cast<int>(in_.width); ++x)
        if (valid(x, y) && next_to_nodata(x, y)) seed(x, y, kOceanLabel);
  }

  void note_spill(std::uint32_t a, std::uint32_t b, double level) {
    if (a > b) std::swap(a, b);
    const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
    auto [it, fresh] = spill_.emplace(key, level);
    if (!fresh && level < it->second) it->second = level;
  }

  // Priority-Flood+ [Barnes2014]: a neighbour at or below the popped level is in a pit, at that
  // level: it goes to a plain first-in-first-out queue, served before the heap (no heap operation
  // for the cells of a depression); a higher one to the heap at its own elevation.
  void spread() {
    while (!pit_.empty() || !queue_.empty()) {
      Pending c;
      if (!pit_.empty()) {
        c = pit_.front();
        pit_.pop_front();
      } else {
        c = queue_.top();
        queue_.pop();
      }
      visit(c);
    }
  }

  void visit(const Pending& c) {
    const int x = static_cast<int>(c.cell % in_.t), y = static_cast<int>(c.cell / in_.t);
    const std::uint32_t own = out_.label[c.cell];
    for (int d = 0; d < n_; ++d) {
      const int nx = x + kDx[d], ny = y + kDy[d];
      if (!valid(nx, ny)) continue;
      const std::uint32_t j = index(nx, ny);
      if (out_.label[j] == kNoLabel) {
        out_.label[j] = own;
        if (in_.cells[j] <= c.level) {
          out_.level[j] = c.level;
          pit_.push_back(Pending{c.level, order_++, j});
        } else {
          out_.level[j] = in_.cells[j];
          queue_.push(Pending{out_.level[j], order_++, j});
        }
      } else if (out_.label[j] != own) {
        note_spill(own, out_.label[j], std::max(c.level, out_.level[j]));
      }
    }
  }

  void collect_edges() {
    out_.edges.reserve(spill_.size());
    for (const auto& [key, level] : spill_)
      out_.edges.push_back(SpillEdge{static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), level});
    std::sort(out_.edges.begin(), out_.edges.end(),
              [](const SpillEdge& p, const SpillEdge& q) { return p.a != q.a ? p.a < q.a : p.b < q.b; });
  }

  const TileFloodInput& in_;
  TileFlood& out_;
  const int n_;
  FloodQueue queue_;
  std::deque<Pending> pit_;
  std::uint64_t order_ = 0;
  std::unordered_map<std::uint64_t, double> spill_;
};

}  // namespace

void flood_tile(const TileFloodInput& in, TileFlood& out) { Flood(in, out).run(); }

std::uint64_t tile_flood_bytes(std::uint32_t t) {
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  // levels 8, labels 4, the queue (24 bytes an entry, every cell at most once, vector doubling: x2).
  return cells * (8 + 4 + 48) + 4096;
}

}  // namespace terrazo
