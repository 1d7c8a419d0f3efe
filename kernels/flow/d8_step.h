// kernels/flow/d8_step.h: the D8 codes of kernels/flow/d8_codes.h decoded by host/device functions:
// a raster value to its code byte, whether a byte is a code, and where a code's step goes. The one
// decoding that the tile kernels (kernels/flow/tile_d8.h) and the resident ones
// (kernels/flow/resident_flowacc.h, on the CPU and on the GPU) share.
#pragma once
#include <cstdint>

#include "kernels/common/edge_weight.h"  // TERRAZO_HD
#include "kernels/flow/d8_codes.h"

namespace terrazo {

// A byte that is no D8 code (neither 0, 255 nor a power of two): what d8_byte gives a value that no
// byte holds (negative, above 255, or not an integer).
constexpr std::uint8_t kD8NotACode = 3;

// The byte of raster value `v`: 255 (nodata) for NaN, v itself for an integer in [0, 255], else
// kD8NotACode. d8_is_code of the result says whether `v` is a code (nodata included).
TERRAZO_HD std::uint8_t d8_byte(double v) {
  if (v != v) return kD8Nodata;
  if (!(v >= 0 && v <= 255)) return kD8NotACode;
  const auto b = static_cast<std::uint8_t>(v);
  return static_cast<double>(b) == v ? b : kD8NotACode;
}

// 0 (no flow), 255 (nodata) or one of the eight direction codes.
TERRAZO_HD bool d8_is_code(std::uint8_t b) { return (b & (b - 1)) == 0 || b == kD8Nodata; }

// The index 0..7 of direction code `code` (a power of two: log2, as kD8Steps orders them; 7 for a
// byte that is no direction code: the caller checks first).
TERRAZO_HD int d8_direction(std::uint8_t code) {
  int i = 0;
  while (i < 7 && (1u << i) != code) ++i;
  return i;
}

// kD8Steps' dx and dy of direction `i` (0 east, clockwise; rows grow southwards).
TERRAZO_HD int d8_dx(int i) { return i == 0 || i == 1 || i == 7 ? 1 : i >= 3 && i <= 5 ? -1 : 0; }
TERRAZO_HD int d8_dy(int i) { return i >= 1 && i <= 3 ? 1 : i >= 5 ? -1 : 0; }

// Where the step of direction code `code` (not 0, not 255) from (x, y) lands in a w x h region:
// (*nx, *ny), and whether that lies off the region on each side.
struct D8Landing {
  std::int64_t x = 0, y = 0;
  bool off_left = false, off_right = false, off_top = false, off_bottom = false;
  TERRAZO_HD bool off() const { return off_left || off_right || off_top || off_bottom; }
};

TERRAZO_HD D8Landing d8_land(std::uint8_t code, std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h) {
  const int i = d8_direction(code);
  D8Landing l;
  l.x = x + d8_dx(i);
  l.y = y + d8_dy(i);
  l.off_left = l.x < 0;
  l.off_right = l.x >= w;
  l.off_top = l.y < 0;
  l.off_bottom = l.y >= h;
  return l;
}

}  // namespace terrazo
