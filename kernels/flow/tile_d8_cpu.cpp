// kernels/flow/tile_d8_cpu.cpp: order_tile_d8, accumulate_tile_d8 and tile_d8_path_ends on the CPU
// (kernels/flow/tile_d8.h).
#include "kernels/flow/tile_d8.h"

#include <algorithm>
#include <string>

#include "kernels/common/error.h"
#include "kernels/flow/d8_codes.h"
#include "kernels/flow/d8_step.h"

namespace terrazo {
namespace {

bool in_tile(std::uint32_t next) { return next < kNotACell; }

std::string cell_name(const TileD8Input& in, std::uint32_t i) {
  return std::to_string(in.x0 + i % in.t) + "," + std::to_string(in.y0 + i / in.t) + " (column,row)";
}

// The code of cell i; UsageError for a value that is no D8 code.
std::uint8_t decode(const TileD8Input& in, std::uint32_t i) {
  const double v = in.codes[i];
  const std::uint8_t code = d8_byte(v);
  if (d8_is_code(code)) return code;
  throw UsageError("the direction raster holds " + format_value(v) + " at cell " + cell_name(in, i) +
                   ", which is no D8 code: expected 1, 2, 4, 8, 16, 32, 64, 128 (E, SE, S, SW, W, NW, N, NE), "
                   "0 (no flow) or 255 (nodata), as terrazo flowdir writes");
}

// Where the flow of valid cell (x, y) goes (tile_d8.h's contract).
std::uint32_t downstream(const TileD8Input& in, const TileD8& out, std::uint32_t x, std::uint32_t y) {
  const std::uint8_t code = out.code[std::size_t{y} * in.t + x];
  if (code == kD8NoFlow) return kFlowEnds;
  const D8Landing l = d8_land(code, x, y, in.width, in.height);
  if ((l.off_left && in.raster_left) || (l.off_right && in.raster_right) || (l.off_top && in.raster_top) ||
      (l.off_bottom && in.raster_bottom))
    return kFlowEnds;
  if (l.off()) return kFlowLeaves;
  const auto n = static_cast<std::uint32_t>(l.y * in.t + l.x);
  return out.code[n] == kD8Nodata ? kFlowEnds : n;
}

void decode_tile(const TileD8Input& in, TileD8& out) {
  const std::size_t cells = std::size_t{in.t} * in.t;
  out.t = in.t;
  out.width = in.width;
  out.height = in.height;
  out.code.assign(cells, kD8Nodata);
  out.next.assign(cells, kNotACell);
  out.in_degree.assign(cells, 0);
  for (std::uint32_t y = 0; y < in.height; ++y)
    for (std::uint32_t x = 0; x < in.width; ++x) out.code[std::size_t{y} * in.t + x] = decode(in, y * in.t + x);
  for (std::uint32_t y = 0; y < in.height; ++y)
    for (std::uint32_t x = 0; x < in.width; ++x) {
      const std::uint32_t i = y * in.t + x;
      if (out.code[i] == kD8Nodata) continue;
      out.next[i] = downstream(in, out, x, y);
      if (in_tile(out.next[i])) ++out.in_degree[out.next[i]];
    }
}

// Kahn's algorithm: the cells of in-degree 0 in row-major order, then each cell whose last upstream
// cell was ordered. The cells left have in-degree > 0: in a graph where each cell has one successor
// they are exactly the cells on loops.
void order_cells(const TileD8Input& in, TileD8& out) {
  out.order.clear();
  std::size_t valid = 0;
  for (std::uint32_t y = 0; y < in.height; ++y)
    for (std::uint32_t x = 0; x < in.width; ++x) {
      const std::uint32_t i = y * in.t + x;
      valid += out.code[i] != kD8Nodata;
      if (out.code[i] != kD8Nodata && out.in_degree[i] == 0) out.order.push_back(i);
    }
  for (std::size_t head = 0; head < out.order.size(); ++head) {
    const std::uint32_t n = out.next[out.order[head]];
    if (in_tile(n) && --out.in_degree[n] == 0) out.order.push_back(n);
  }
  if (out.order.size() == valid) return;
  for (std::uint32_t i = 0;; ++i)
    if (out.code[i] != kD8Nodata && out.in_degree[i] != 0) {
      std::uint64_t length = 1;
      for (std::uint32_t c = out.next[i]; c != i; c = out.next[c]) ++length;
      throw UsageError("the direction raster loops: the flow of cell " + cell_name(in, i) + " comes back to it after " +
                       std::to_string(length) + " cells; a direction raster must drain every cell to an outlet "
                       "(terrazo flowdir writes one)");
    }
}

}  // namespace

void order_tile_d8(const TileD8Input& in, TileD8& out) {
  decode_tile(in, out);
  order_cells(in, out);
}

bool accumulate_tile_d8(const TileD8& flow, std::int64_t* amount) {
  for (const std::uint32_t c : flow.order) {
    const std::uint32_t n = flow.next[c];
    if (in_tile(n) && __builtin_add_overflow(amount[n], amount[c], &amount[n])) return false;
  }
  return true;
}

void tile_d8_path_ends(const TileD8& flow, std::uint32_t* end) {
  std::fill(end, end + std::size_t{flow.t} * flow.t, kNotACell);
  for (auto it = flow.order.rbegin(); it != flow.order.rend(); ++it) {
    const std::uint32_t n = flow.next[*it];
    end[*it] = in_tile(n) ? end[n] : *it;
  }
}

std::uint64_t tile_d8_bytes(std::uint32_t t) { return std::uint64_t{t} * t * (1 + 4 + 4 + 1); }

}  // namespace terrazo
