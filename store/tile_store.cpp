// store/tile_store.cpp: the Z-order tile store, format version 1 (docs/tile_store_format.md).
//
// File layout (all integers little-endian, offsets and sizes 64-bit):
//   [0, 16)                    magic "\x89TZS\r\n\x1a\n", u32 version, u32 header_bytes (H)
//   [16, 16+H)                 header record (fields below), CRS WKT last
//   [16+H, 20+H)               CRC32 of bytes [0, 16+H)
//   [index_offset, +16 n)      tile index, row-major over the n tiles: u64 offset (0 = absent),
//                              u32 CRC32 of the tile's bytes, u32 reserved (0)
//   [+16 n, +16 n + 4)         CRC32 of the index entries
//   [data_offset, file_size)   n slots of t*t cells; tile (tx, ty) in slot z_rank(tx, ty); slots of
//                              absent tiles are never written (sparse holes)
// index_offset = align8(20 + H), data_offset = align4096(index_offset + 16 n + 4),
// file_size = data_offset + n * t*t*cell_size. Every derived quantity is recomputed and checked
// on open, so a damaged, truncated or foreign file is reported before any tile is read.
#include "store/tile_store.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>

#include "core/error.h"
#include "store/atomic_output.h"
#include "store/cell_values.h"
#include "store/posix_file.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the tile store format is little-endian; port the codec");

namespace terrazo {

// ---- Morton order ----------------------------------------------------------------------------

namespace {

std::uint64_t spread_bits(std::uint32_t v) {
  std::uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

std::uint32_t gather_bits(std::uint64_t x) {
  x &= 0x5555555555555555ull;
  x = (x | (x >> 1)) & 0x3333333333333333ull;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
  return static_cast<std::uint32_t>(x);
}

// Smallest power of two >= n (n >= 1).
std::uint64_t power_of_two_at_least(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Tiles of the grid inside the square [x0, x0+size) x [y0, y0+size).
std::uint64_t tiles_in_square(std::uint64_t x0, std::uint64_t y0, std::uint64_t size, std::uint64_t tiles_x,
                              std::uint64_t tiles_y) {
  if (x0 >= tiles_x || y0 >= tiles_y) return 0;
  return (std::min(x0 + size, tiles_x) - x0) * (std::min(y0 + size, tiles_y) - y0);
}

void append_z_order(std::uint64_t x0, std::uint64_t y0, std::uint64_t size, std::uint64_t tiles_x,
                    std::uint64_t tiles_y, std::vector<std::uint64_t>& out) {
  if (x0 >= tiles_x || y0 >= tiles_y) return;
  if (size == 1) {
    out.push_back(y0 * tiles_x + x0);
    return;
  }
  const std::uint64_t half = size / 2;
  // Quadrants in Morton order: x is the low bit, so (0,0), (1,0), (0,1), (1,1).
  append_z_order(x0, y0, half, tiles_x, tiles_y, out);
  append_z_order(x0 + half, y0, half, tiles_x, tiles_y, out);
  append_z_order(x0, y0 + half, half, tiles_x, tiles_y, out);
  append_z_order(x0 + half, y0 + half, half, tiles_x, tiles_y, out);
}

}  // namespace

std::uint64_t morton_encode(std::uint32_t tx, std::uint32_t ty) { return spread_bits(tx) | (spread_bits(ty) << 1); }

void morton_decode(std::uint64_t code, std::uint32_t* tx, std::uint32_t* ty) {
  *tx = gather_bits(code);
  *ty = gather_bits(code >> 1);
}

std::vector<std::uint64_t> TileGrid::z_order() const {
  std::vector<std::uint64_t> order;
  order.reserve(tile_count());
  append_z_order(0, 0, power_of_two_at_least(std::max<std::uint64_t>(tiles_x(), tiles_y())), tiles_x(), tiles_y(),
                 order);
  return order;
}

std::uint64_t TileGrid::z_rank(std::uint32_t tx, std::uint32_t ty) const {
  // Descend the quadtree of the enclosing power-of-two square; at each level add the tiles of the
  // grid in the quadrants that precede the one holding (tx, ty) in Morton order.
  const std::uint64_t nx = tiles_x(), ny = tiles_y();
  std::uint64_t size = power_of_two_at_least(std::max(nx, ny));
  std::uint64_t x0 = 0, y0 = 0, rank = 0;
  while (size > 1) {
    const std::uint64_t half = size / 2;
    const unsigned quadrant = (tx >= x0 + half ? 1u : 0u) | (ty >= y0 + half ? 2u : 0u);
    for (unsigned q = 0; q < quadrant; ++q)
      rank += tiles_in_square(x0 + (q & 1u) * half, y0 + (q >> 1) * half, half, nx, ny);
    x0 += (quadrant & 1u) * half;
    y0 += (quadrant >> 1) * half;
    size = half;
  }
  return rank;
}

// ---- format --------------------------------------------------------------------------------

namespace {

constexpr std::array<unsigned char, 8> kMagic = {0x89, 'T', 'Z', 'S', '\r', '\n', 0x1a, '\n'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint64_t kFixedHeaderBytes = 148;          // header record without the CRS
constexpr std::uint64_t kMaxCrsBytes = 1ull << 20;        // WKT strings are a few KiB
constexpr std::uint64_t kIndexEntryBytes = 16;
constexpr std::uint64_t kIndexChunkBytes = 1ull << 20;  // the index is read in chunks of this size
constexpr std::uint32_t kMaxTile = 16384;                 // t*t cells fit 32-bit in-tile indices
constexpr std::uint32_t kFlagNodata = 1, kFlagGeotransform = 2, kFlagStats = 4;

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

std::uint32_t crc32_of(const void* data, std::uint64_t bytes) {
  return static_cast<std::uint32_t>(::crc32_z(0L, static_cast<const Bytef*>(data), static_cast<z_size_t>(bytes)));
}

bool valid_cell_type(std::uint32_t code) { return code >= 1 && code <= 7; }

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

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

Layout compute_layout(const TileGrid& grid, CellType type, std::uint64_t crs_bytes) {
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

std::vector<unsigned char> encode_header(const RasterInfo& info, const TileGrid& grid, const Layout& layout,
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

std::vector<unsigned char> encode_index(const std::vector<IndexEntry>& index) {
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

void check_tile_size(std::uint32_t tile) {
  if (!is_power_of_two(tile) || tile > kMaxTile)
    throw UsageError("invalid tile size " + std::to_string(tile) + ": must be a power of two from 1 to " +
                     std::to_string(kMaxTile) + " (e.g. --tile 256)");
}

// Copies the in-raster cells of a tile and sets its padding cells to `padding` (one cell of the type).
void copy_with_padding(const void* cells, std::uint32_t tile, std::uint64_t valid_cols, std::uint64_t valid_rows,
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
double as_stored(double value, CellType type) {
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

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

// ---- reader --------------------------------------------------------------------------------

struct TileStore::Impl {
  PosixFile file;
  RasterInfo info;
  TileGrid grid;
  Layout layout;
  // The index in memory (docs/tile_store_format.md "In memory"): which tiles are stored (a bit per
  // tile of the grid, row-major), the stored tiles before each 64-bit word of it, and the CRC of
  // each stored tile (in row-major order); offsets follow from the Z-order slot. 2 bits per tile
  // plus 4 bytes per stored tile, and one more bit per stored tile when statistics are checked.
  std::vector<std::uint64_t> present_bits, present_before;
  std::vector<std::uint32_t> crcs;
  MemoryBudget::Reservation index_reservation;
  std::uint64_t present = 0;
  NodataRule rule{CellType::Float32, false, 0.0};
  mutable std::atomic<std::uint64_t> bytes_read{0};
  // The header's statistics, checked as tiles are read (has_stats only): stored_min/max are the
  // header's min/max as the cell type holds them (writers may record the statistics of the doubles
  // before conversion; rounding is monotonic, so the cells' extremes are these).
  double stored_min = 0.0, stored_max = 0.0;
  mutable std::mutex seen_mutex;  // guards what follows
  mutable std::vector<std::uint64_t> seen;  // a bit per stored tile (its rank): read at least once
  mutable std::uint64_t seen_count = 0;
  mutable CellStats seen_stats;

  bool is_present(std::uint64_t i) const { return (present_bits[i / 64] >> (i % 64)) & 1; }
  // Stored tiles before tile i (row-major): its position in `crcs`.
  std::uint64_t rank(std::uint64_t i) const {
    const std::uint64_t below = present_bits[i / 64] & ((std::uint64_t{1} << (i % 64)) - 1);
    return present_before[i / 64] + static_cast<std::uint64_t>(__builtin_popcountll(below));
  }
  std::uint64_t offset(std::uint32_t tx, std::uint32_t ty) const {
    return layout.data_offset + grid.z_rank(tx, ty) * layout.tile_bytes;
  }

  [[noreturn]] void corrupt(const std::string& what) const {
    throw Error("'" + file.path() + "' is a damaged terrazo tile store (" + what +
                "); re-create it with `terrazo import`");
  }
};

bool TileStore::looks_like_tile_store(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char head[8];
  const bool match = std::fread(head, 1, 8, f) == 8 && std::memcmp(head, kMagic.data(), 8) == 0;
  std::fclose(f);
  return match;
}

std::unique_ptr<TileStore> TileStore::open(const std::string& path, MemoryBudget* budget) {
  auto impl = std::make_unique<Impl>();
  impl->file = PosixFile(path, PosixFile::Mode::Read);
  const std::uint64_t file_size = impl->file.size();
  if (file_size == 0) throw Error("'" + path + "' is empty, not a terrazo tile store; create one with `terrazo import`");

  unsigned char prefix[16] = {};
  const std::uint64_t got = impl->file.read_some(prefix, 16, 0);
  if (got < 8 || std::memcmp(prefix, kMagic.data(), 8) != 0)
    throw Error("'" + path + "' is not a terrazo tile store (no .tzs signature); create one with `terrazo import`");
  if (got < 16) impl->corrupt("file ends inside the header");
  std::uint32_t version, header_bytes;
  std::memcpy(&version, prefix + 8, 4);
  std::memcpy(&header_bytes, prefix + 12, 4);
  if (version != kVersion)
    throw Error("'" + path + "' is a tile store of format version " + std::to_string(version) +
                "; this terrazo reads version " + std::to_string(kVersion) + ": re-import the raster");
  if (header_bytes < kFixedHeaderBytes || header_bytes > kFixedHeaderBytes + kMaxCrsBytes)
    impl->corrupt("header length " + std::to_string(header_bytes) + " is impossible");
  if (16ull + header_bytes + 4 > file_size) impl->corrupt("file ends inside the header: truncated");

  std::vector<unsigned char> header(16ull + header_bytes + 4);
  impl->file.read_exact(header.data(), header.size(), 0);
  std::uint32_t stored_crc;
  std::memcpy(&stored_crc, header.data() + 16 + header_bytes, 4);
  if (crc32_of(header.data(), 16ull + header_bytes) != stored_crc) impl->corrupt("header checksum mismatch");

  RasterInfo& info = impl->info;
  std::uint64_t present_tiles = 0, index_offset = 0, data_offset = 0, recorded_size = 0;
  std::uint32_t tile = 0;
  try {
    Decoder d(header.data() + 16, header_bytes);
    info.width = d.get<std::uint64_t>();
    info.height = d.get<std::uint64_t>();
    tile = d.get<std::uint32_t>();
    const std::uint32_t type = d.get<std::uint32_t>();
    if (!valid_cell_type(type)) impl->corrupt("unknown cell type code " + std::to_string(type));
    info.type = static_cast<CellType>(type);
    const std::uint32_t flags = d.get<std::uint32_t>();
    d.get<std::uint32_t>();
    info.has_nodata = flags & kFlagNodata;
    info.has_geotransform = flags & kFlagGeotransform;
    info.has_stats = flags & kFlagStats;
    info.nodata = d.get<double>();
    for (double& g : info.geotransform) g = d.get<double>();
    info.min = d.get<double>();
    info.max = d.get<double>();
    info.valid_cells = d.get<std::uint64_t>();
    present_tiles = d.get<std::uint64_t>();
    index_offset = d.get<std::uint64_t>();
    data_offset = d.get<std::uint64_t>();
    recorded_size = d.get<std::uint64_t>();
    const std::uint32_t crs_bytes = d.get<std::uint32_t>();
    if (kFixedHeaderBytes + crs_bytes != header_bytes) impl->corrupt("CRS length disagrees with header length");
    info.crs_wkt = d.get_bytes(crs_bytes);
  } catch (const std::out_of_range&) {
    impl->corrupt("header record too short");
  }
  if (info.width == 0 || info.height == 0) impl->corrupt("raster size is zero");
  if (!is_power_of_two(tile) || tile > kMaxTile) impl->corrupt("tile size " + std::to_string(tile) + " is invalid");
  if ((info.width + tile - 1) / tile > 0xFFFFFFFFull || (info.height + tile - 1) / tile > 0xFFFFFFFFull)
    impl->corrupt("raster size too large for its tile size");
  impl->grid = TileGrid{info.width, info.height, tile};
  impl->layout = compute_layout(impl->grid, info.type, info.crs_wkt.size());
  const Layout& layout = impl->layout;
  if (layout.overflow) impl->corrupt("raster size overflows 64-bit offsets");
  if (layout.index_offset != index_offset || layout.data_offset != data_offset || layout.file_size != recorded_size)
    impl->corrupt("header offsets disagree with the raster size");
  if (file_size != layout.file_size)
    throw Error("'" + path + "' is " + (file_size < layout.file_size ? "truncated" : "damaged") + ": its header describes " +
                std::to_string(layout.file_size) + " bytes but the file has " + std::to_string(file_size) +
                "; re-create it with `terrazo import`");
  if (present_tiles > layout.tile_count) impl->corrupt("more present tiles than tiles");

  // The index: row-major entries, then its CRC; read in chunks (the CRC chained over them) into the
  // compact form of Impl, whose bytes are reserved first.
  const std::uint64_t words = (layout.tile_count + 63) / 64;
  const std::uint64_t seen_bytes = info.has_stats ? (present_tiles + 63) / 64 * 8 : 0;
  const std::uint64_t index_memory = words * 16 + present_tiles * 4 + seen_bytes;
  const std::uint64_t index_bytes = layout.tile_count * kIndexEntryBytes;
  const std::uint64_t chunk_bytes = std::min(kIndexChunkBytes, index_bytes);
  MemoryBudget::Reservation chunk_reservation;
  if (budget) {
    impl->index_reservation = budget->reserve(
        index_memory, "tile index of '" + path + "' (" + std::to_string(layout.tile_count) + " tiles, " +
                          std::to_string(present_tiles) + " stored)");
    chunk_reservation = budget->reserve(chunk_bytes, "tile index read buffer");
  }
  impl->present_bits.assign(words, 0);
  impl->present_before.assign(words, 0);
  impl->crcs.reserve(present_tiles);
  std::vector<unsigned char> chunk(chunk_bytes);
  uLong running_crc = crc32(0L, Z_NULL, 0);
  const std::uint32_t tiles_x = impl->grid.tiles_x();
  std::string problem;
  for (std::uint64_t first = 0; first < layout.tile_count;) {
    const std::uint64_t count = std::min<std::uint64_t>(chunk_bytes / kIndexEntryBytes, layout.tile_count - first);
    impl->file.read_exact(chunk.data(), count * kIndexEntryBytes, layout.index_offset + first * kIndexEntryBytes);
    running_crc = crc32(running_crc, chunk.data(), static_cast<uInt>(count * kIndexEntryBytes));
    // The first bad entry is reported once the checksum holds (a checksum mismatch comes first).
    for (std::uint64_t j = 0; j < count && problem.empty(); ++j) {
      const std::uint64_t i = first + j;
      Decoder d(chunk.data() + j * kIndexEntryBytes, kIndexEntryBytes);
      const auto offset = d.get<std::uint64_t>();
      const auto crc = d.get<std::uint32_t>();
      if (i % 64 == 0) impl->present_before[i / 64] = impl->present;
      if (offset == 0) continue;
      const auto tx = static_cast<std::uint32_t>(i % tiles_x), ty = static_cast<std::uint32_t>(i / tiles_x);
      if (offset != impl->offset(tx, ty)) {
        problem = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") is indexed outside its Z-order slot";
      } else if (++impl->present > present_tiles) {
        problem = "present-tile count disagrees with the index";
      } else {
        impl->present_bits[i / 64] |= std::uint64_t{1} << (i % 64);
        impl->crcs.push_back(crc);
      }
    }
    first += count;
  }
  std::uint32_t index_crc;
  impl->file.read_exact(&index_crc, 4, layout.index_offset + index_bytes);
  if (running_crc != index_crc) impl->corrupt("tile index checksum mismatch");
  if (!problem.empty()) impl->corrupt(problem);
  if (impl->present != present_tiles) impl->corrupt("present-tile count disagrees with the index");
  // A CRS is text: NUL bytes in it would be dropped silently downstream (outputs without a CRS).
  if (info.crs_wkt.find('\0') != std::string::npos) impl->corrupt("the CRS holds NUL bytes");
  if (info.has_stats) {
    // The statistics set the weight scale of mst and sssp: impossible ones are a damaged store.
    const double lo = as_stored(info.min, info.type), hi = as_stored(info.max, info.type);
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
      impl->corrupt("its statistics [" + number_text(info.min) + ", " + number_text(info.max) + "] are impossible for " +
                    to_string(info.type) + " cells");
    if (info.valid_cells > info.width * info.height || (info.valid_cells == 0) != (impl->present == 0))
      impl->corrupt("its statistics count " + std::to_string(info.valid_cells) + " valid cells in " +
                    std::to_string(impl->present) + " stored tiles");
    impl->stored_min = lo;
    impl->stored_max = hi;
    impl->seen.assign((present_tiles + 63) / 64, 0);
  }
  impl->rule = NodataRule(info);
  impl->bytes_read = header.size() + index_bytes + 4;
  return std::unique_ptr<TileStore>(new TileStore(std::move(impl)));
}

TileStore::TileStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TileStore::~TileStore() = default;

const RasterInfo& TileStore::info() const { return impl_->info; }
const TileGrid& TileStore::grid() const { return impl_->grid; }
std::uint64_t TileStore::present_tiles() const { return impl_->present; }
std::uint64_t TileStore::bytes_read() const { return impl_->bytes_read.load(); }

bool TileStore::tile_present(std::uint32_t tx, std::uint32_t ty) const {
  if (tx >= impl_->grid.tiles_x() || ty >= impl_->grid.tiles_y()) return false;
  return impl_->is_present(static_cast<std::uint64_t>(ty) * impl_->grid.tiles_x() + tx);
}

void TileStore::read_tile_raw(std::uint32_t tx, std::uint32_t ty, void* out) const {
  const Impl& s = *impl_;
  if (tx >= s.grid.tiles_x() || ty >= s.grid.tiles_y())
    throw Error("tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") is outside the " +
                std::to_string(s.grid.tiles_x()) + " x " + std::to_string(s.grid.tiles_y()) + " tiles of '" +
                s.file.path() + "'");
  const std::uint64_t i = static_cast<std::uint64_t>(ty) * s.grid.tiles_x() + tx;
  if (!s.is_present(i)) {
    // Absent: every cell is nodata.
    const std::uint32_t size = cell_type_size(s.info.type);
    unsigned char fill[8];
    const double value = s.rule.padding_value();
    doubles_to_cells(&value, 1, s.rule, fill);
    auto* bytes = static_cast<unsigned char*>(out);
    const std::uint64_t cells = static_cast<std::uint64_t>(s.grid.tile) * s.grid.tile;
    for (std::uint64_t i = 0; i < cells; ++i) std::memcpy(bytes + i * size, fill, size);
    return;
  }
  s.file.read_exact(out, s.layout.tile_bytes, s.offset(tx, ty));
  s.bytes_read += s.layout.tile_bytes;
  if (crc32_of(out, s.layout.tile_bytes) != s.crcs[s.rank(i)])
    s.corrupt("tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") checksum mismatch");
  if (s.info.has_stats) check_statistics(tx, ty, out);
}

void TileStore::check_statistics(std::uint32_t tx, std::uint32_t ty, const void* raw) const {
  const Impl& s = *impl_;
  const std::uint32_t t = s.grid.tile;
  const std::uint64_t valid_cols = std::min<std::uint64_t>(t, s.info.width - static_cast<std::uint64_t>(tx) * t);
  const std::uint64_t valid_rows = std::min<std::uint64_t>(t, s.info.height - static_cast<std::uint64_t>(ty) * t);
  const CellStats tile = scan_cells(raw, valid_rows, valid_cols, t, s.rule);
  const std::string name = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ")";
  if (tile.valid == 0) s.corrupt(name + " is stored but holds no valid cell");
  if (tile.min < s.stored_min || tile.max > s.stored_max)
    s.corrupt(name + " holds " + number_text(tile.min < s.stored_min ? tile.min : tile.max) +
              ", outside the statistics in its header [" + number_text(s.info.min) + ", " + number_text(s.info.max) + "]");
  // Once every stored tile was read, the statistics must be the tiles' own: bounds wider than
  // the data (max = 1e300) would shrink every weight to zero.
  std::lock_guard<std::mutex> lock(s.seen_mutex);
  const std::uint64_t rank = s.rank(static_cast<std::uint64_t>(ty) * s.grid.tiles_x() + tx);
  std::uint64_t& word = s.seen[rank / 64];
  const std::uint64_t bit = std::uint64_t{1} << (rank % 64);
  if (word & bit) return;
  word |= bit;
  s.seen_stats.merge(tile);
  if (++s.seen_count != s.present) return;
  if (s.seen_stats.min != s.stored_min || s.seen_stats.max != s.stored_max || s.seen_stats.valid != s.info.valid_cells)
    s.corrupt("its header's statistics (min " + number_text(s.info.min) + ", max " + number_text(s.info.max) + ", " +
              std::to_string(s.info.valid_cells) + " valid cells) are not its tiles' (min " +
              number_text(s.seen_stats.min) + ", max " + number_text(s.seen_stats.max) + ", " +
              std::to_string(s.seen_stats.valid) + ")");
}

void TileStore::read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const {
  const Impl& s = *impl_;
  const std::uint32_t t = s.grid.tile;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  if (!tile_present(tx, ty)) {
    read_tile_raw(tx, ty, out);  // validates the coordinates
    std::fill(out, out + cells, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  // Read the raw cells into the tail of `out` and widen them in place (store/cell_values.h).
  auto* tail = reinterpret_cast<unsigned char*>(out) + cells * (8 - cell_type_size(s.info.type));
  read_tile_raw(tx, ty, tail);
  cells_to_doubles(tail, cells, s.rule, out);
  const std::uint64_t valid_cols = std::min<std::uint64_t>(t, s.info.width - static_cast<std::uint64_t>(tx) * t);
  const std::uint64_t valid_rows = std::min<std::uint64_t>(t, s.info.height - static_cast<std::uint64_t>(ty) * t);
  if (valid_cols == t && valid_rows == t) return;
  for (std::uint64_t r = 0; r < t; ++r)
    for (std::uint64_t c = (r < valid_rows ? valid_cols : 0); c < t; ++c)
      out[r * t + c] = std::numeric_limits<double>::quiet_NaN();
}

// ---- writer --------------------------------------------------------------------------------

struct TileStoreWriter::Impl {
  std::string path;
  std::optional<AtomicOutput> output;  // declared before `file`: the file closes before the partial is removed
  PosixFile file;
  RasterInfo info;
  TileGrid grid;
  Layout layout;
  NodataRule rule{CellType::Float32, false, 0.0};
  unsigned char padding[8] = {};
  std::mutex mutex;  // guards everything below
  std::vector<IndexEntry> index;
  std::vector<std::uint8_t> written;
  std::uint64_t present = 0;
  CellStats stats;
  bool rewritten = false, explicit_stats = false, finished = false;
  std::atomic<std::uint64_t> bytes_written{0};
};

TileStoreWriter::TileStoreWriter(const std::string& path, const RasterInfo& info, std::uint32_t tile)
    : impl_(std::make_unique<Impl>()) {
  Impl& w = *impl_;
  check_tile_size(tile);
  if (info.width == 0 || info.height == 0)
    throw UsageError("cannot write a tile store of " + std::to_string(info.width) + " x " +
                     std::to_string(info.height) + " cells: both sizes must be at least 1");
  if (!valid_cell_type(static_cast<std::uint32_t>(info.type))) throw UsageError("unknown cell type for a tile store");
  if (info.crs_wkt.size() > kMaxCrsBytes) throw Error("CRS description longer than 1 MiB; cannot store it");
  if (info.crs_wkt.find('\0') != std::string::npos) throw Error("CRS description holds NUL bytes; cannot store it");
  if ((info.width + tile - 1) / tile > 0xFFFFFFFFull || (info.height + tile - 1) / tile > 0xFFFFFFFFull)
    throw UsageError("raster of " + std::to_string(info.width) + " x " + std::to_string(info.height) +
                     " cells needs more than 2^32 tiles per row or column; use a larger --tile");
  w.path = path;
  w.info = info;
  w.info.has_stats = false;
  w.grid = TileGrid{info.width, info.height, tile};
  w.layout = compute_layout(w.grid, info.type, info.crs_wkt.size());
  if (w.layout.overflow) throw Error("raster too large: its tile store would exceed 2^63 bytes");
  w.rule = NodataRule(info);
  const double pad = w.rule.padding_value();
  doubles_to_cells(&pad, 1, w.rule, w.padding);
  w.index.resize(w.layout.tile_count);
  w.written.assign(w.layout.tile_count, 0);
  w.output.emplace(path);
  w.file = PosixFile(w.output->partial(), PosixFile::Mode::CreateReadWrite);
  // The full size up front: slots of absent tiles stay sparse holes.
  w.file.truncate(w.layout.file_size);
}

TileStoreWriter::~TileStoreWriter() {
  if (!impl_ || impl_->finished) return;
  try {
    impl_->file.close();
  } catch (const Error&) {
    // The partial file is removed below either way.
  }
  if (impl_->output) impl_->output->discard();
}

const TileGrid& TileStoreWriter::grid() const { return impl_->grid; }
std::uint64_t TileStoreWriter::bytes_written() const { return impl_->bytes_written.load(); }

std::uint64_t TileStoreWriter::present_tiles() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->present;
}

void TileStoreWriter::write_tile_raw(std::uint32_t tx, std::uint32_t ty, const void* cells) {
  Impl& w = *impl_;
  if (w.finished) throw Error("tile written to '" + w.path + "' after finish()");
  if (tx >= w.grid.tiles_x() || ty >= w.grid.tiles_y())
    throw Error("tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") is outside the " +
                std::to_string(w.grid.tiles_x()) + " x " + std::to_string(w.grid.tiles_y()) + " tiles of '" + w.path + "'");
  const std::uint32_t t = w.grid.tile;
  const std::uint32_t size = cell_type_size(w.info.type);
  const std::uint64_t valid_cols = std::min<std::uint64_t>(t, w.info.width - static_cast<std::uint64_t>(tx) * t);
  const std::uint64_t valid_rows = std::min<std::uint64_t>(t, w.info.height - static_cast<std::uint64_t>(ty) * t);
  const CellStats stats = scan_cells(cells, valid_rows, valid_cols, t, w.rule);
  const std::uint64_t i = static_cast<std::uint64_t>(ty) * w.grid.tiles_x() + tx;
  const std::uint64_t slot = w.layout.data_offset + w.grid.z_rank(tx, ty) * w.layout.tile_bytes;

  IndexEntry entry;
  if (stats.valid > 0) {
    const void* bytes = cells;
    std::vector<unsigned char> padded;
    if (valid_cols < t || valid_rows < t) {
      padded.resize(w.layout.tile_bytes);
      copy_with_padding(cells, t, valid_cols, valid_rows, size, w.padding, padded.data());
      bytes = padded.data();
    }
    w.file.write_all(bytes, w.layout.tile_bytes, slot);
    w.bytes_written += w.layout.tile_bytes;
    entry.offset = slot;
    entry.crc = crc32_of(bytes, w.layout.tile_bytes);
  }

  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.index[i].offset != 0) --w.present;
  if (entry.offset == 0 && w.index[i].offset != 0) w.file.punch_hole(slot, w.layout.tile_bytes);
  w.index[i] = entry;
  if (entry.offset != 0) ++w.present;
  if (w.written[i]) w.rewritten = true;
  w.written[i] = 1;
  w.stats.merge(stats);
}

void TileStoreWriter::write_tile(std::uint32_t tx, std::uint32_t ty, const double* cells) {
  Impl& w = *impl_;
  if (tx >= w.grid.tiles_x() || ty >= w.grid.tiles_y()) {
    write_tile_raw(tx, ty, nullptr);  // reports the bad coordinates
    return;
  }
  const std::uint32_t t = w.grid.tile;
  const std::uint32_t size = cell_type_size(w.info.type);
  const std::uint64_t valid_cols = std::min<std::uint64_t>(t, w.info.width - static_cast<std::uint64_t>(tx) * t);
  const std::uint64_t valid_rows = std::min<std::uint64_t>(t, w.info.height - static_cast<std::uint64_t>(ty) * t);
  std::vector<unsigned char> raw(w.layout.tile_bytes);
  for (std::uint64_t r = 0; r < t; ++r) {
    unsigned char* row = raw.data() + r * t * size;
    std::uint64_t c = 0;
    if (r < valid_rows) {
      doubles_to_cells(cells + r * t, valid_cols, w.rule, row);
      c = valid_cols;
    }
    for (; c < t; ++c) std::memcpy(row + c * size, w.padding, size);
  }
  write_tile_raw(tx, ty, raw.data());
}

void TileStoreWriter::set_stats(double min, double max, std::uint64_t valid_cells) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->explicit_stats = true;
  impl_->info.min = min;
  impl_->info.max = max;
  impl_->info.valid_cells = valid_cells;
}

void TileStoreWriter::finish() {
  Impl& w = *impl_;
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.finished) return;
  if (w.explicit_stats) {
    w.info.has_stats = true;
  } else if (!w.rewritten) {
    w.info.has_stats = true;
    w.info.valid_cells = w.stats.valid;
    w.info.min = w.stats.valid ? w.stats.min : 0.0;
    w.info.max = w.stats.valid ? w.stats.max : 0.0;
  }
  const std::vector<unsigned char> header = encode_header(w.info, w.grid, w.layout, w.present);
  const std::vector<unsigned char> index = encode_index(w.index);
  w.file.write_all(header.data(), header.size(), 0);
  w.file.write_all(index.data(), index.size(), w.layout.index_offset);
  w.bytes_written += header.size() + index.size();
  w.file.sync_data();
  w.file.close();
  w.output->publish();
  w.finished = true;
}

}  // namespace terrazo
