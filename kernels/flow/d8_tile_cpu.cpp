// kernels/flow/d8_tile_cpu.cpp: d8_tile on the CPU (kernels/flow/d8_tile.h).
#include "kernels/flow/d8_tile.h"

#include <cmath>

#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

enum CellState : std::uint8_t { kInvalid = 0, kDrains = 1, kFlat = 2 };
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr std::uint32_t kCrossing = kNoFlatCell - 1, kInner = kNoFlatCell - 2;

class TileDirections {
 public:
  TileDirections(const D8TileInput& in, D8Tile& out) : in_(in), out_(out), t_(in.t), s_(std::int64_t{in.t} + 4) {}

  void run() {
    reset();
    classify();
    split_flats();
    resolve_inner_flats();
    collect_crossing();
  }

 private:
  std::int64_t at(std::int64_t wx, std::int64_t wy) const { return wy * s_ + wx; }
  double z(std::int64_t w) const { return in_.window[w]; }
  bool valid(std::int64_t w) const { return !std::isnan(in_.window[w]); }
  bool in_raster(std::int64_t wx, std::int64_t wy) const {
    const std::int64_t gx = in_.x0 + wx - 2, gy = in_.y0 + wy - 2;
    return gx >= 0 && gy >= 0 && gx < static_cast<std::int64_t>(in_.raster_width) &&
           gy < static_cast<std::int64_t>(in_.raster_height);
  }
  bool outlet(std::int64_t wx, std::int64_t wy) const {
    const std::int64_t gx = in_.x0 + wx - 2, gy = in_.y0 + wy - 2;
    if (in_.edge_outlets && (gx == 0 || gy == 0 || gx + 1 == static_cast<std::int64_t>(in_.raster_width) ||
                             gy + 1 == static_cast<std::int64_t>(in_.raster_height)))
      return true;
    if (!in_.nodata_outlets) return false;
    for (const D8Step& step : kD8Steps)
      if (in_raster(wx + step.dx, wy + step.dy) && !valid(at(wx + step.dx, wy + step.dy))) return true;
    return false;
  }
  bool inside_tile(std::int64_t wx, std::int64_t wy) const {
    return wx >= 2 && wy >= 2 && wx < 2 + std::int64_t{t_} && wy < 2 + std::int64_t{t_};
  }
  std::uint32_t local(std::int64_t wx, std::int64_t wy) const { return static_cast<std::uint32_t>((wy - 2) * t_ + (wx - 2)); }

  void reset() {
    const std::size_t cells = std::size_t{t_} * t_;
    out_.code.assign(cells, kD8Nodata);
    out_.state.assign(static_cast<std::size_t>(s_ * s_), kInvalid);
    out_.index.assign(cells, kNoFlatCell);
    out_.crossing.clear();
    out_.crossing_low.clear();
    out_.crossing_high.clear();
    out_.valid_cells = out_.flat_cells = out_.outlet_cells = 0;
    out_.flats = FlatStats{};
  }

  // The steepest descent, kD8NoFlow for an outlet with none, or a flat cell: the tile and the
  // halo's first ring.
  void classify() {
    std::int64_t offset[8];
    for (int d = 0; d < 8; ++d) offset[d] = at(kD8Steps[d].dx, kD8Steps[d].dy);
    for (std::int64_t wy = 1; wy < s_ - 1; ++wy)
      for (std::int64_t wx = 1; wx < s_ - 1; ++wx) {
        const std::int64_t w = at(wx, wy);
        if (!valid(w)) continue;
        const int best_d = steepest(w, offset);
        const bool drains = best_d >= 0 || outlet(wx, wy);
        out_.state[w] = drains ? kDrains : kFlat;
        if (!inside_tile(wx, wy)) continue;
        ++out_.valid_cells;
        out_.flat_cells += !drains;
        out_.outlet_cells += drains && best_d < 0;
        out_.code[local(wx, wy)] = best_d >= 0 ? kD8Steps[best_d].code : kD8NoFlow;
      }
  }

  // The direction of the greatest slope to a strictly lower valid neighbour of window cell `w`, the
  // first in kD8Steps order on ties; -1 when none is lower. Without branches on the data: a NaN
  // neighbour's drop is NaN and fails `drop > 0`.
  int steepest(std::int64_t w, const std::int64_t (&offset)[8]) const {
    const double here = z(w);
    double best = 0;
    int best_d = -1;
    for (int d = 0; d < 8; ++d) {
      const double drop = here - z(w + offset[d]), slope = (d & 1) ? drop * kInvSqrt2 : drop;
      const bool take = (drop > 0) & ((best_d < 0) | (slope > best));
      best = take ? slope : best;
      best_d = take ? d : best_d;
    }
    return best_d;
  }

  // Each flat of the tile marked kInner or, when one of its cells has a flat neighbour outside the
  // tile, kCrossing (in out_.index).
  void split_flats() {
    std::vector<std::uint32_t>& queue = out_.scratch.queue;
    for (std::uint32_t first = 0; first < std::uint32_t{t_} * t_; ++first) {
      const std::int64_t fx = first % t_ + 2, fy = first / t_ + 2;
      if (out_.state[at(fx, fy)] != kFlat || out_.index[first] != kNoFlatCell) continue;
      queue.assign(1, first);
      out_.index[first] = kInner;
      bool crossing = false;
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::int64_t cx = queue[head] % t_ + 2, cy = queue[head] / t_ + 2;
        for (const D8Step& step : kD8Steps) {
          const std::int64_t nx = cx + step.dx, ny = cy + step.dy;
          if (out_.state[at(nx, ny)] != kFlat) continue;
          if (!inside_tile(nx, ny)) {
            crossing = true;
          } else if (out_.index[local(nx, ny)] == kNoFlatCell) {
            out_.index[local(nx, ny)] = kInner;
            queue.push_back(local(nx, ny));
          }
        }
      }
      if (crossing)
        for (const std::uint32_t c : queue) out_.index[c] = kCrossing;
    }
  }

  // Which neighbours drain at the cell's elevation; whether one is higher.
  std::uint8_t low_bits(std::int64_t wx, std::int64_t wy) const {
    std::uint8_t bits = 0;
    for (int d = 0; d < 8; ++d) {
      const std::int64_t n = at(wx + kD8Steps[d].dx, wy + kD8Steps[d].dy);
      if (out_.state[n] == kDrains && z(n) == z(at(wx, wy))) bits |= static_cast<std::uint8_t>(1u << d);
    }
    return bits;
  }
  std::uint8_t high_bit(std::int64_t wx, std::int64_t wy) const {
    for (const D8Step& step : kD8Steps) {
      const std::int64_t n = at(wx + step.dx, wy + step.dy);
      if (valid(n) && z(n) > z(at(wx, wy))) return 1;
    }
    return 0;
  }

  void resolve_inner_flats() {
    FlatCells& cells = out_.cells;
    cells.clear();
    std::uint32_t count = 0;
    for (std::uint32_t c = 0; c < std::uint32_t{t_} * t_; ++c)
      if (out_.index[c] == kInner) out_.index[c] = count++;
    if (count == 0) return;
    cells.neighbour.resize(std::size_t{count} * 8, kNoFlatCell);
    for (std::uint32_t c = 0; c < std::uint32_t{t_} * t_; ++c) {
      const std::uint32_t i = out_.index[c];
      if (i >= kInner) continue;
      const std::int64_t wx = c % t_ + 2, wy = c / t_ + 2;
      for (int d = 0; d < 8; ++d) {
        const std::int64_t nx = wx + kD8Steps[d].dx, ny = wy + kD8Steps[d].dy;
        if (inside_tile(nx, ny) && out_.state[at(nx, ny)] == kFlat) cells.neighbour[std::size_t{i} * 8 + d] = out_.index[local(nx, ny)];
      }
      cells.low.push_back(low_bits(wx, wy));
      cells.high.push_back(high_bit(wx, wy));
    }
    resolve_flats(cells, out_.flat_codes, out_.scratch, out_.flats);
    for (std::uint32_t c = 0; c < std::uint32_t{t_} * t_; ++c)
      if (out_.index[c] < kInner) out_.code[c] = out_.flat_codes[out_.index[c]];
  }

  void collect_crossing() {
    for (std::uint32_t c = 0; c < std::uint32_t{t_} * t_; ++c) {
      if (out_.index[c] != kCrossing) continue;
      const std::int64_t wx = c % t_ + 2, wy = c / t_ + 2;
      out_.crossing.push_back(c);
      out_.crossing_low.push_back(low_bits(wx, wy));
      out_.crossing_high.push_back(high_bit(wx, wy));
    }
  }

  const D8TileInput& in_;
  D8Tile& out_;
  std::uint32_t t_;
  std::int64_t s_;
};

}  // namespace

void d8_tile(const D8TileInput& in, D8Tile& out) { TileDirections(in, out).run(); }

std::uint64_t d8_tile_bytes(std::uint32_t t) {
  const std::uint64_t cells = std::uint64_t{t} * t, window = (std::uint64_t{t} + 4) * (t + 4);
  // code, index, the crossing lists (4 + 2 a cell), the flat cells, their scratch, their codes; the states.
  return cells * (1 + 4 + 6 + FlatCells::kBytesPerCell + FlatScratch::kBytesPerCell + 1) + window;
}

}  // namespace terrazo
