// core/bits.h: power-of-two helpers on 64-bit unsigned integers.
#pragma once
#include <cstdint>

namespace terrazo {

// The smallest k with 2^k >= v (0 for v <= 1): the number of 2x2 merge levels above a side of v tiles.
constexpr std::uint32_t ceil_log2(std::uint64_t v) {
  std::uint32_t k = 0;
  while (k < 64 && (std::uint64_t{1} << k) < v) ++k;
  return k;
}

constexpr bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace terrazo
