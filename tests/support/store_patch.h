// tests/support/store_patch.h: a tile store's header field rewritten with its checksum recomputed,
// as a damaged-but-consistent file would be (docs/tile_store_format.md): the stored statistics'
// tests in test_reliability.cpp and test_distributed.cpp.
#pragma once
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "tests/support/test_support.h"

namespace terrazo {
namespace testing {

// Header fields (io/store/tile_store.cpp): the statistics' min and max, doubles.
constexpr std::size_t kMinOffset = 104, kMaxOffset = 112;

inline std::string double_bytes(double value) { return std::string(reinterpret_cast<const char*>(&value), 8); }

// Rewrites the header field at `offset` of store `path` with `bytes` and recomputes the header checksum.
inline void patch_header(const std::string& path, std::size_t offset, const std::string& bytes) {
  std::string file = slurp(path);
  std::uint32_t header_bytes;
  std::memcpy(&header_bytes, file.data() + 12, 4);
  file.replace(offset, bytes.size(), bytes);
  const auto crc = static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(file.data()), static_cast<uInt>(16 + header_bytes)));
  std::memcpy(&file[16 + header_bytes], &crc, 4);
  spit(path, file);
}

}  // namespace testing
}  // namespace terrazo
