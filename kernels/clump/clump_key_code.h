// kernels/clump/clump_key_code.h: the keys of clump's GPU tile labeller, coded in 2 or 4 bytes a
// cell instead of 8 where that is exact, so that a batch crosses PCIe and the host's pinned buffers
// in a quarter or half of the bytes (docs/clump.md "The GPU's keys").
//
// The labeller only compares keys with `==` (kernels/clump/label_tile.h), so any code that maps
// equal keys to equal codes, different keys to different codes and NaN (no region) to a code of
// its own gives the same labels bit for bit:
//   Float64  the double itself (no code; 8 bytes).
//   UInt32   the key as a float's bits, for keys that a float holds exactly (every value of a Byte,
//            Int16, UInt16 or Float32 raster), -0 as +0; NaN kNoKey32 (a NaN's bits, which no
//            float key has). 4 bytes.
//   UInt16   the key itself, for integer keys in [0, 65534] (a Byte raster's values; the 0 of
//            --by valid and --by range); NaN kNoKey16. 2 bytes.
// Plain formula: decode(encode(k)) == k for every key the code holds (NaN for NaN, +0 for -0).
#pragma once
#include <cstddef>
#include <cstdint>

namespace terrazo {

enum class ClumpKeyCode : std::uint8_t { Float64, UInt32, UInt16 };

constexpr std::uint32_t kNoKey32 = 0xFFFFFFFFu;
constexpr std::uint16_t kNoKey16 = 0xFFFFu;

const char* to_string(ClumpKeyCode code);
std::size_t clump_key_bytes(ClumpKeyCode code);

// Codes `n` keys (NaN: no region) into `out` (n x clump_key_bytes(code) bytes). Throws Error on a
// key the code cannot hold exactly (the caller chose a code the keys do not fit: a bug, never a
// silent wrong label).
void encode_clump_keys(ClumpKeyCode code, const double* keys, std::uint64_t n, void* out);

// Key i of coded keys, as the double it codes (NaN for no region).
double decode_clump_key(ClumpKeyCode code, const void* keys, std::uint64_t i);

}  // namespace terrazo
