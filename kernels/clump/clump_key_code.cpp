// kernels/clump/clump_key_code.cpp: the GPU labeller's key codes (kernels/clump/clump_key_code.h).
#include "kernels/clump/clump_key_code.h"

#include <cstring>
#include <limits>
#include <string>

#include "kernels/common/enum_names.h"
#include "kernels/common/error.h"

namespace terrazo {
namespace {

[[noreturn]] void does_not_fit(ClumpKeyCode code, double key) {
  throw Error("internal error: clump key " + std::to_string(key) + " does not fit the " + to_string(code) + " key code");
}

// `n` keys into `out` as Key: NaN (no key) as `no_key`, the others as encode(key).
template <class Key, class Encode>
void encode_each(const double* keys, std::uint64_t n, Key no_key, void* out, Encode encode) {
  auto* o = static_cast<Key*>(out);
  for (std::uint64_t i = 0; i < n; ++i) o[i] = keys[i] != keys[i] ? no_key : encode(keys[i]);
}

}  // namespace

const char* to_string(ClumpKeyCode code) {
  static constexpr EnumName<ClumpKeyCode> kNames[] = {
      {ClumpKeyCode::Float64, "Float64"}, {ClumpKeyCode::UInt32, "UInt32"}, {ClumpKeyCode::UInt16, "UInt16"}};
  return name_of(kNames, code);
}

std::size_t clump_key_bytes(ClumpKeyCode code) {
  switch (code) {
    case ClumpKeyCode::Float64: return 8;
    case ClumpKeyCode::UInt32: return 4;
    case ClumpKeyCode::UInt16: return 2;
  }
  return 8;
}

void encode_clump_keys(ClumpKeyCode code, const double* keys, std::uint64_t n, void* out) {
  switch (code) {
    case ClumpKeyCode::Float64:
      std::memcpy(out, keys, n * sizeof(double));
      return;
    case ClumpKeyCode::UInt32:
      encode_each<std::uint32_t>(keys, n, kNoKey32, out, [&](double k) {
        const float f = static_cast<float>(k);
        if (static_cast<double>(f) != k) does_not_fit(code, k);
        std::uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        return bits == 0x80000000u ? 0u : bits;  // -0 == +0
      });
      return;
    case ClumpKeyCode::UInt16:
      encode_each<std::uint16_t>(keys, n, kNoKey16, out, [&](double k) {
        if (!(k >= 0 && k < kNoKey16) || k != static_cast<double>(static_cast<std::uint16_t>(k))) does_not_fit(code, k);
        return static_cast<std::uint16_t>(k);
      });
      return;
  }
}

double decode_clump_key(ClumpKeyCode code, const void* keys, std::uint64_t i) {
  switch (code) {
    case ClumpKeyCode::Float64:
      return static_cast<const double*>(keys)[i];
    case ClumpKeyCode::UInt32: {
      const std::uint32_t bits = static_cast<const std::uint32_t*>(keys)[i];
      if (bits == kNoKey32) return std::numeric_limits<double>::quiet_NaN();
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    case ClumpKeyCode::UInt16: {
      const std::uint16_t k = static_cast<const std::uint16_t*>(keys)[i];
      return k == kNoKey16 ? std::numeric_limits<double>::quiet_NaN() : k;
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace terrazo
