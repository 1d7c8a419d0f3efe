// tests/test_clump_key_code.cpp: the keys of clump's GPU tile labeller coded in 2 or 4 bytes
// (kernels/clump/clump_key_code.h) and the code each raster type gets (engine/clump/phases.h
// clump_gpu_key_code); the GPU's labels on coded keys are compared with the doubles' in
// tests/gpu/test_clump_gpu.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/common/error.h"
#include "engine/clump/phases.h"
#include "kernels/clump/clump_key_code.h"

namespace terrazo {
namespace {

// The GPU's key codes (kernels/clump/clump_key_code.h): every value of the raster types each code
// is chosen for comes back exactly, -0 as +0 (equal keys stay equal), NaN as NaN; a key a code
// cannot hold is an Error, never a wrong code.
TEST(ClumpKeyCodes, EveryValueOfTheirTypesRoundTripsAndOthersAreRefused) {
  auto round_trip = [](ClumpKeyCode code, const std::vector<double>& keys) {
    std::vector<unsigned char> coded(keys.size() * clump_key_bytes(code));
    encode_clump_keys(code, keys.data(), keys.size(), coded.data());
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const double back = decode_clump_key(code, coded.data(), i);
      if (!(back == keys[i] || (std::isnan(back) && std::isnan(keys[i])))) ++wrong;
      if (keys[i] == 0 && std::signbit(back)) ++wrong;  // -0 is coded as +0
    }
    return wrong;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> byte_values{nan, -0.0}, int16_values{nan, -0.0}, uint16_values{nan};
  for (int v = 0; v <= 255; ++v) byte_values.push_back(v);
  for (int v = -32768; v <= 32767; ++v) int16_values.push_back(v);
  for (int v = 0; v <= 65535; ++v) uint16_values.push_back(v);
  std::vector<double> float_values{nan, -0.0, 0.0, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                                   std::numeric_limits<float>::denorm_min(), static_cast<double>(1e-40f), 16777216.0};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> any(-3e5f, 3e5f);
  for (int i = 0; i < 10000; ++i) float_values.push_back(any(rng));
  EXPECT_EQ(clump_gpu_key_code(CellType::UInt8, ClumpBy::Value), ClumpKeyCode::UInt16);
  EXPECT_EQ(round_trip(ClumpKeyCode::UInt16, byte_values), 0u);
  for (CellType type : {CellType::Int16, CellType::UInt16, CellType::Float32})
    EXPECT_EQ(clump_gpu_key_code(type, ClumpBy::Value), ClumpKeyCode::UInt32) << to_string(type);
  EXPECT_EQ(round_trip(ClumpKeyCode::UInt32, int16_values), 0u);
  EXPECT_EQ(round_trip(ClumpKeyCode::UInt32, uint16_values), 0u);
  EXPECT_EQ(round_trip(ClumpKeyCode::UInt32, float_values), 0u);
  for (CellType type : {CellType::Int32, CellType::UInt32, CellType::Float64})
    EXPECT_EQ(clump_gpu_key_code(type, ClumpBy::Value), ClumpKeyCode::Float64) << to_string(type);
  EXPECT_EQ(round_trip(ClumpKeyCode::Float64, {nan, 0.1, -1e300, 4294967295.0}), 0u);
  for (CellType type : {CellType::Float64, CellType::Int32, CellType::UInt8})  // keys 0 and NaN
    for (ClumpBy by : {ClumpBy::Valid, ClumpBy::Range}) EXPECT_EQ(clump_gpu_key_code(type, by), ClumpKeyCode::UInt16);
  EXPECT_EQ(round_trip(ClumpKeyCode::UInt16, {0.0, nan, -0.0}), 0u);
  // Equal keys, equal codes: -0 and +0 alike.
  for (ClumpKeyCode code : {ClumpKeyCode::UInt16, ClumpKeyCode::UInt32}) {
    const double zeros[2] = {-0.0, 0.0};
    std::vector<unsigned char> coded(2 * clump_key_bytes(code));
    encode_clump_keys(code, zeros, 2, coded.data());
    EXPECT_TRUE(std::equal(coded.begin(), coded.begin() + clump_key_bytes(code), coded.begin() + clump_key_bytes(code)))
        << to_string(code);
  }
  for (double bad : {-1.0, 0.5, 65535.0, 1e6}) {
    std::uint16_t out;
    EXPECT_THROW(encode_clump_keys(ClumpKeyCode::UInt16, &bad, 1, &out), Error) << bad;
  }
  for (double bad : {0.1, 16777217.0, 1e40, 4294967295.0}) {
    std::uint32_t out;
    EXPECT_THROW(encode_clump_keys(ClumpKeyCode::UInt32, &bad, 1, &out), Error) << bad;
  }
}

}  // namespace
}  // namespace terrazo
