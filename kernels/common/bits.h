// kernels/common/bits.h: power-of-two and bit-count helpers on 64-bit unsigned integers.
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

// Set bits of v. __builtin_popcount* on the x86-64 baseline (no POPCNT) is a call into libgcc
// (__popcountdi2, seen in MST profiles); this is the portable SWAR count [Warren2012, sec. 5-1]:
// bits summed in pairs, nibbles, bytes, then one multiply, inline, branch-free, and
// compiled to the POPCNT instruction by GCC and Clang where the target has it.
constexpr std::uint32_t popcount64(std::uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<std::uint32_t>((v * 0x0101010101010101ull) >> 56);
}
static_assert(popcount64(0) == 0 && popcount64(~0ull) == 64 && popcount64(0x8000000000000001ull) == 2, "popcount64");

}  // namespace terrazo
