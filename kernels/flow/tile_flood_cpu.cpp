// kernels/flow/tile_flood_cpu.cpp: flood_tile on the CPU (kernels/flow/tile_flood.h).
#include "kernels/flow/tile_flood.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

constexpr int kDx[8] = {1, 0, -1, 0, 1, -1, -1, 1};
constexpr int kDy[8] = {0, 1, 0, -1, 1, 1, -1, -1};

// The order-preserving bits of a level (never NaN): x < y as doubles <=> level_key(x) < level_key(y)
// (and -0 before +0); level_of inverts it.
std::uint64_t level_key(double level) {
  std::uint64_t bits;
  std::memcpy(&bits, &level, sizeof bits);
  return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
}
double level_of(std::uint64_t key) {
  const std::uint64_t bits = (key >> 63) ? key & ~(std::uint64_t{1} << 63) : ~key;
  double level;
  std::memcpy(&level, &bits, sizeof level);
  return level;
}

// The least spill level per label pair: open addressing on the key (a << 32) | b, a >= 1 (labels
// start at kOceanLabel), so key 0 marks an empty slot. At most half full.
class SpillTable {
 public:
  explicit SpillTable(std::vector<SpillSlot>& slots) : slots_(slots) {
    if (slots_.size() < kFirstCapacity) slots_.resize(kFirstCapacity);
    std::fill(slots_.begin(), slots_.end(), SpillSlot{});
  }

  void note(std::uint32_t a, std::uint32_t b, double level) {
    if (a > b) std::swap(a, b);
    const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
    SpillSlot& slot = find(key);
    if (slot.key == 0) {
      slot = SpillSlot{key, level};
      if (++used_ * 2 > slots_.size()) grow();
    } else if (level < slot.level) {
      slot.level = level;
    }
  }

  // The pairs, a < b, sorted by (a, b).
  void collect(std::vector<SpillEdge>& edges) const {
    edges.clear();
    edges.reserve(used_);
    for (const SpillSlot& s : slots_)
      if (s.key != 0) edges.push_back(SpillEdge{static_cast<std::uint32_t>(s.key >> 32), static_cast<std::uint32_t>(s.key), s.level});
    std::sort(edges.begin(), edges.end(), [](const SpillEdge& p, const SpillEdge& q) { return p.a != q.a ? p.a < q.a : p.b < q.b; });
  }

 private:
  static constexpr std::size_t kFirstCapacity = 1024;  // a power of two

  SpillSlot& find(std::uint64_t key) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
    while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & mask;
    return slots_[i];
  }
  void grow() {
    std::vector<SpillSlot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const SpillSlot& s : old)
      if (s.key != 0) find(s.key) = s;
  }

  std::vector<SpillSlot>& slots_;
  std::size_t used_ = 0;
};

unsigned log2_of_tile(std::uint32_t t) {
  if (t == 0 || (t & (t - 1)) != 0 || t > 16384)
    throw Error("flood_tile: the tile side " + std::to_string(t) + " is not a power of two up to 16384");
  unsigned shift = 0;
  while ((1u << shift) < t) ++shift;
  return shift;
}

class Flood {
 public:
  Flood(const TileFloodInput& in, TileFlood& out)
      : in_(in), out_(out), n_(in.connectivity == Connectivity::Four ? 4 : 8),
        w_(static_cast<int>(in.width)), h_(static_cast<int>(in.height)), shift_(log2_of_tile(in.t)),
        spill_(out.spill_slots) {}

  void run() {
    reset();
    seed_perimeter();
    seed_inner_outlets();
    spread();
    if (in_.want_edges) spill_.collect(out_.edges);
  }

 private:
  bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < w_ && y < h_; }
  bool valid(int x, int y) const { return inside(x, y) && !std::isnan(in_.cells[index(x, y)]); }
  std::uint32_t index(int x, int y) const { return static_cast<std::uint32_t>(y) * in_.t + static_cast<std::uint32_t>(x); }

  bool on_raster_edge(int x, int y) const {
    return (in_.raster_top && y == 0) || (in_.raster_left && x == 0) || (in_.raster_bottom && y == h_ - 1) ||
           (in_.raster_right && x == w_ - 1);
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
    // The levels start as the elevations (NaN at nodata and padding) and the flood reads them
    // there: one array of doubles in the loop, not two (the tile's working set then fits L2).
    out_.level.assign(in_.cells, in_.cells + cells);
    out_.label.assign(cells, kNoLabel);
    out_.labels = kOceanLabel + 1;
    out_.edges.clear();
    out_.heap.clear();
    out_.heap.release_capacity_over(2 * cells);  // the buckets' spare room within the planned 2 entries a cell
    out_.pit.clear();
  }

  void push_heap(const FloodEntry& e) { out_.heap.push(level_key(e.level), e.cell); }
  FloodEntry pop_heap() {
    const RadixHeap<std::uint64_t>::Entry e = out_.heap.pop();
    return FloodEntry{level_of(e.key), e.value};
  }

  void seed(int x, int y, std::uint32_t label) {
    const std::uint32_t i = index(x, y);
    if (out_.label[i] != kNoLabel || std::isnan(in_.cells[i])) return;
    out_.label[i] = label;
    out_.level[i] = in_.cells[i];
    push_heap(FloodEntry{in_.cells[i], i});
  }
  void seed_perimeter_cell(int x, int y) {
    if (!valid(x, y) || out_.label[index(x, y)] != kNoLabel) return;
    seed(x, y, outlet(x, y) ? kOceanLabel : out_.labels++);
  }
  // Top row, bottom row, left column, right column: the order that numbers the labels.
  void seed_perimeter() {
    for (int x = 0; x < w_; ++x) seed_perimeter_cell(x, 0);
    for (int x = 0; x < w_; ++x) seed_perimeter_cell(x, h_ - 1);
    for (int y = 0; y < h_; ++y) seed_perimeter_cell(0, y);
    for (int y = 0; y < h_; ++y) seed_perimeter_cell(w_ - 1, y);
  }
  void seed_inner_outlets() {
    if (!in_.nodata_outlets) return;
    for (int y = 1; y + 1 < h_; ++y)
      for (int x = 1; x + 1 < w_; ++x)
        if (valid(x, y) && next_to_nodata(x, y)) seed(x, y, kOceanLabel);
  }

  // Priority-Flood+ [Barnes2014]: a neighbour at or below the popped level is in a pit, at that
  // level: it goes to a plain first-in-first-out queue, served before the heap (no heap operation
  // for the cells of a depression); a higher one to the heap at its own elevation.
  void spread() {
    std::size_t pit_head = 0;
    while (pit_head < out_.pit.size() || !out_.heap.empty()) {
      if (pit_head < out_.pit.size()) {
        const FloodEntry c = out_.pit[pit_head++];  // a copy: visit() appends to the pit
        visit(c);
        if (pit_head == out_.pit.size()) {
          out_.pit.clear();
          pit_head = 0;
        }
      } else {
        visit(pop_heap());
      }
    }
  }

  void visit(const FloodEntry& c) {
    const int x = static_cast<int>(c.cell & (in_.t - 1)), y = static_cast<int>(c.cell >> shift_);
    const std::uint32_t own = out_.label[c.cell];
    const bool interior = x > 0 && y > 0 && x + 1 < w_ && y + 1 < h_;
    for (int d = 0; d < n_; ++d) {
      const int nx = x + kDx[d], ny = y + kDy[d];
      if (!interior && !inside(nx, ny)) continue;
      const std::uint32_t j = index(nx, ny);
      const double z = out_.level[j];  // an unlabelled cell's level is still its elevation
      if (std::isnan(z)) continue;
      const std::uint32_t other = out_.label[j];
      if (other == kNoLabel) {
        out_.label[j] = own;
        const FloodEntry next{std::max(z, c.level), j};
        out_.level[j] = next.level;
        if (z <= c.level)
          out_.pit.push_back(next);
        else
          push_heap(next);
      } else if (other != own && in_.want_edges) {
        spill_.note(own, other, std::max(c.level, z));
      }
    }
  }

  const TileFloodInput& in_;
  TileFlood& out_;
  const int n_;
  const int w_, h_;
  const unsigned shift_;  // log2(t): a cell's row is its index >> shift_
  SpillTable spill_;
};

}  // namespace

void flood_tile(const TileFloodInput& in, TileFlood& out) { Flood(in, out).run(); }

std::uint64_t tile_flood_bytes(std::uint32_t t) {
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  // levels 8, labels 4, the heap and the pit queue (16 bytes an entry, every cell in one of them
  // once, vector doubling: x2); the spill table: 16 bytes a slot, at most 4 slots a pair (half full
  // after a doubling), the pairs at most 4 a label (the regions' adjacencies, diagonal crossings
  // included), the labels at most the 4t perimeter cells and the ocean.
  const std::uint64_t spill_slots = 4 * 4 * (4 * std::uint64_t{t} + 1);
  return cells * (8 + 4 + 32) + spill_slots * 16 + 4096;
}

}  // namespace terrazo
