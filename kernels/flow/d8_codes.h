// kernels/flow/d8_codes.h: the D8 flow-direction codes that `terrazo flowdir` writes and
// `terrazo flowacc` and `terrazo watershed` read (docs/flow.md).
//
// Contract. A direction raster is Byte. A cell's code names the one neighbour its flow goes to, as
// ESRI's Flow Direction does: 1 east, 2 south-east, 4 south, 8 south-west, 16 west, 32 north-west,
// 64 north, 128 north-east (rows grow southwards). kD8NoFlow (0) marks a cell whose flow leaves the
// raster there (an outlet: no valid neighbour lower or equal on a drained path); kD8Nodata (255) is
// the raster's nodata. Every other value is invalid input.
#pragma once
#include <array>
#include <cstdint>

namespace terrazo {

constexpr std::uint8_t kD8NoFlow = 0;
constexpr std::uint8_t kD8Nodata = 255;

struct D8Step {
  std::uint8_t code;
  int dx, dy;
};

// In code order (east first, clockwise); the index of a direction is log2 of its code.
constexpr std::array<D8Step, 8> kD8Steps = {{{1, 1, 0},
                                             {2, 1, 1},
                                             {4, 0, 1},
                                             {8, -1, 1},
                                             {16, -1, 0},
                                             {32, -1, -1},
                                             {64, 0, -1},
                                             {128, 1, -1}}};

// The index 0..7 of `code` in kD8Steps, or -1 when it is not one of the eight codes.
constexpr int d8_index(std::uint8_t code) {
  for (int i = 0; i < 8; ++i)
    if (kD8Steps[i].code == code) return i;
  return -1;
}

// d8_index of every byte, for per-cell loops (one load, no search).
constexpr std::array<std::int8_t, 256> kD8IndexOf = [] {
  std::array<std::int8_t, 256> table{};
  for (int code = 0; code < 256; ++code) table[code] = static_cast<std::int8_t>(d8_index(static_cast<std::uint8_t>(code)));
  return table;
}();

}  // namespace terrazo
