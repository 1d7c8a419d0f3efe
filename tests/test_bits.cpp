// tests/test_bits.cpp: kernels/common/bits.h against plain loops.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "kernels/common/bits.h"

namespace terrazo {
namespace {

std::uint32_t count_bits_one_by_one(std::uint64_t v) {
  std::uint32_t n = 0;
  for (int b = 0; b < 64; ++b) n += static_cast<std::uint32_t>((v >> b) & 1);
  return n;
}

TEST(Bits, Popcount64MatchesABitByBitCount) {
  EXPECT_EQ(popcount64(0), 0u);
  EXPECT_EQ(popcount64(~std::uint64_t{0}), 64u);
  for (int b = 0; b < 64; ++b) {
    const std::uint64_t one = std::uint64_t{1} << b;
    EXPECT_EQ(popcount64(one), 1u) << "bit " << b;
    EXPECT_EQ(popcount64(~one), 63u) << "bit " << b;
    EXPECT_EQ(popcount64(one - 1), static_cast<std::uint32_t>(b)) << "low " << b << " bits";
  }
  // Every byte value (the MST edge bits of one cell are a byte).
  for (std::uint32_t byte = 0; byte < 256; ++byte) EXPECT_EQ(popcount64(byte), count_bits_one_by_one(byte));
  std::mt19937_64 random(20261124);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t v = random() & random();  // sparser and denser words alike
    ASSERT_EQ(popcount64(v), count_bits_one_by_one(v)) << std::hex << v;
    ASSERT_EQ(popcount64(~v), 64 - count_bits_one_by_one(v)) << std::hex << v;
  }
}

}  // namespace
}  // namespace terrazo
