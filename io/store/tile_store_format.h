// io/store/tile_store_format.h: the byte layout of the tile store, format version 1, shared by its
// reader (io/store/tile_store.cpp) and writer (io/store/tile_store_writer.cpp); internal to io/store/.
// The layout itself: io/store/tile_store.cpp and docs/tile_store_format.md.
#pragma once
#include <zlib.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "io/store/cell_values.h"
#include "io/store/tile_store.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the tile store format is little-endian; port the codec");

namespace terrazo {
namespace tzs_format {

constexpr std::array<unsigned char, 8> kMagic = {0x89, 'T', 'Z', 'S', '\r', '\n', 0x1a, '\n'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint64_t kFixedHeaderBytes = 148;          // header record without the CRS
constexpr std::uint64_t kMaxCrsBytes = 1ull << 20;        // WKT strings are a few KiB
constexpr std::uint64_t kIndexEntryBytes = 16;
constexpr std::uint64_t kIndexChunkBytes = 1ull << 20;  // the index is read in chunks of this size
constexpr std::uint32_t kMaxTile = 16384;                 // t*t cells fit 32-bit in-tile indices
constexpr std::uint32_t kFlagNodata = 1, kFlagGeotransform = 2, kFlagStats = 4;

inline std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

inline std::uint32_t crc32_of(const void* data, std::uint64_t bytes) {
  return static_cast<std::uint32_t>(::crc32_z(0L, static_cast<const Bytef*>(data), static_cast<z_size_t>(bytes)));
}

inline bool valid_cell_type(std::uint32_t code) { return code >= 1 && code <= 7; }

inline bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

struct IndexEntry {
  std::uint64_t offset = 0;  // 0: absent
  std::uint32_t crc = 0;
};

// Where everything lies, derived from the raster size, tile and CRS length.
struct Layout {
  std::uint64_t header_bytes = 0, index_offset = 0, data_offset = 0, tile_bytes = 0, tile_count = 0,
                file_size = 0;
  bool overflow = false;
};

inline Layout compute_layout(const TileGrid& grid, CellType type, std::uint64_t crs_bytes) {
  Layout layout;
  layout.header_bytes = kFixedHeaderBytes + crs_bytes;
  layout.tile_count = grid.tile_count();
  layout.tile_bytes = static_cast<std::uint64_t>(grid.tile) * grid.tile * cell_type_size(type);
  layout.index_offset = align_up(16 + layout.header_bytes + 4, 8);
  std::uint64_t index_bytes = 0, data_bytes = 0;
  layout.overflow = __builtin_mul_overflow(layout.tile_count, kIndexEntryBytes, &index_bytes) ||
                    __builtin_mul_overflow(layout.tile_count, layout.tile_bytes, &data_bytes);
  layout.data_offset = align_up(layout.index_offset + index_bytes + 4, 4096);
  layout.overflow = layout.overflow || __builtin_add_overflow(layout.data_offset, data_bytes, &layout.file_size) ||
                    layout.file_size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return layout;
}

// Little-endian field codec over a byte vector.
class Encoder {
 public:
  template <class T>
  void put(T value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.insert(out_.end(), bytes, bytes + sizeof(T));
  }
  void put_bytes(const std::string& s) { out_.insert(out_.end(), s.begin(), s.end()); }
  std::vector<unsigned char>& bytes() { return out_; }

 private:
  std::vector<unsigned char> out_;
};

class Decoder {
 public:
  Decoder(const unsigned char* data, std::uint64_t size) : data_(data), size_(size) {}
  template <class T>
  T get() {
    T value;
    if (pos_ + sizeof(T) > size_) throw std::out_of_range("header field past the record");
    std::memcpy(&value, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string get_bytes(std::uint64_t n) {
    if (pos_ + n > size_) throw std::out_of_range("header field past the record");
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }

 private:
  const unsigned char* data_;
  std::uint64_t size_, pos_ = 0;
};

inline std::vector<unsigned char> encode_header(const RasterInfo& info, const TileGrid& grid, const Layout& layout,
                                                std::uint64_t present_tiles) {
  Encoder e;
  for (unsigned char c : kMagic) e.put<unsigned char>(c);
  e.put<std::uint32_t>(kVersion);
  e.put<std::uint32_t>(static_cast<std::uint32_t>(layout.header_bytes));
  e.put<std::uint64_t>(info.width);
  e.put<std::uint64_t>(info.height);
  e.put<std::uint32_t>(grid.tile);
  e.put<std::uint32_t>(static_cast<std::uint32_t>(info.type));
  std::uint32_t flags = 0;
  if (info.has_nodata) flags |= kFlagNodata;
  if (info.has_geotransform) flags |= kFlagGeotransform;
  if (info.has_stats) flags |= kFlagStats;
  e.put<std::uint32_t>(flags);
  e.put<std::uint32_t>(0);
  e.put<double>(info.nodata);
  for (double g : info.geotransform) e.put<double>(g);
  e.put<double>(info.has_stats ? info.min : 0.0);
  e.put<double>(info.has_stats ? info.max : 0.0);
  e.put<std::uint64_t>(info.has_stats ? info.valid_cells : 0);
  e.put<std::uint64_t>(present_tiles);
  e.put<std::uint64_t>(layout.index_offset);
  e.put<std::uint64_t>(layout.data_offset);
  e.put<std::uint64_t>(layout.file_size);
  e.put<std::uint32_t>(static_cast<std::uint32_t>(info.crs_wkt.size()));
  e.put_bytes(info.crs_wkt);
  e.put<std::uint32_t>(crc32_of(e.bytes().data(), e.bytes().size()));
  return std::move(e.bytes());
}

inline std::vector<unsigned char> encode_index(const std::vector<IndexEntry>& index) {
  Encoder e;
  e.bytes().reserve(index.size() * kIndexEntryBytes + 4);
  for (const IndexEntry& entry : index) {
    e.put<std::uint64_t>(entry.offset);
    e.put<std::uint32_t>(entry.crc);
    e.put<std::uint32_t>(0);
  }
  e.put<std::uint32_t>(crc32_of(e.bytes().data(), e.bytes().size()));
  return std::move(e.bytes());
}

inline void check_tile_size(std::uint32_t tile) {
  if (!is_power_of_two(tile) || tile > kMaxTile)
    throw UsageError("invalid tile size " + std::to_string(tile) + ": must be a power of two from 1 to " +
                     std::to_string(kMaxTile) + " (e.g. --tile 256)");
}

// Copies the in-raster cells of a tile and sets its padding cells to `padding` (one cell of the type).
inline void copy_with_padding(const void* cells, std::uint32_t tile, std::uint64_t valid_cols, std::uint64_t valid_rows,
                       std::uint32_t cell_size, const unsigned char* padding, unsigned char* out) {
  const auto* in = static_cast<const unsigned char*>(cells);
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(tile) * cell_size;
  for (std::uint64_t r = 0; r < tile; ++r) {
    unsigned char* dst = out + r * row_bytes;
    std::uint64_t c = 0;
    if (r < valid_rows) {
      std::memcpy(dst, in + r * row_bytes, valid_cols * cell_size);
      c = valid_cols;
    }
    for (; c < tile; ++c) std::memcpy(dst + c * cell_size, padding, cell_size);
  }
}

// `value` as a cell of `type` holds it (the writers' conversion: round to nearest); infinite when
// the type cannot hold it.
inline double as_stored(double value, CellType type) {
  double lowest = 0, highest = 0;
  switch (type) {
    case CellType::Float64: return value;
    case CellType::Float32: {
      if (!(std::fabs(value) <= static_cast<double>(std::numeric_limits<float>::max())))
        return std::numeric_limits<double>::infinity();
      return static_cast<double>(static_cast<float>(value));
    }
    case CellType::UInt8: highest = 255; break;
    case CellType::Int16: lowest = -32768; highest = 32767; break;
    case CellType::UInt16: highest = 65535; break;
    case CellType::Int32: lowest = -2147483648.0; highest = 2147483647.0; break;
    case CellType::UInt32: highest = 4294967295.0; break;
  }
  const double rounded = std::nearbyint(value);
  return rounded >= lowest && rounded <= highest ? rounded : std::numeric_limits<double>::infinity();
}

inline std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace tzs_format
}  // namespace terrazo
