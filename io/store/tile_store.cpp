// io/store/tile_store.cpp: the Z-order tile store, format version 1 (docs/tile_store_format.md).
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
#include "io/store/tile_store.h"

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

#include "kernels/common/bits.h"
#include "kernels/common/error.h"
#include "io/store/atomic_output.h"
#include "io/store/cell_values.h"
#include "io/store/posix_file.h"
#include "io/store/tile_store_format.h"

namespace terrazo {

using namespace tzs_format;

// ---- reader --------------------------------------------------------------------------------

struct TileStore::Impl {
  PosixFile file;
  RasterInfo info;
  TileGrid grid;
  Layout layout;
  // The index in memory (docs/tile_store_format.md "In memory"): which tiles are stored (a bit per
  // tile of the grid, row-major), the stored tiles before each 64-bit word of it, and the CRC of
  // each stored tile (in row-major order); offsets follow from the Z-order slot. 2 bits per tile
  // plus 4 bytes per stored tile, and when statistics are checked one more bit and 4 bytes (its
  // valid cells, for a distributed run's share: statistics_share) per stored tile.
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
  mutable std::vector<std::uint32_t> seen_valid;  // per stored tile (its rank): valid cells, once read
  // The check of every tile's statistics against the header's (min, max, valid cells).
  void check_all_tiles(const CellStats& tiles) const {
    if (tiles.min != stored_min || tiles.max != stored_max || tiles.valid != info.valid_cells)
      corrupt("its header's statistics (min " + number_text(info.min) + ", max " + number_text(info.max) + ", " +
              std::to_string(info.valid_cells) + " valid cells) are not its tiles' (min " + number_text(tiles.min) +
              ", max " + number_text(tiles.max) + ", " + std::to_string(tiles.valid) + ")");
  }

  bool is_present(std::uint64_t i) const { return (present_bits[i / 64] >> (i % 64)) & 1; }
  // Stored tiles before tile i (row-major): its position in `crcs`.
  std::uint64_t rank(std::uint64_t i) const {
    const std::uint64_t below = present_bits[i / 64] & ((std::uint64_t{1} << (i % 64)) - 1);
    return present_before[i / 64] + static_cast<std::uint64_t>(popcount64(below));
  }
  std::uint64_t offset(std::uint32_t tx, std::uint32_t ty) const {
    return layout.data_offset + grid.z_rank(tx, ty) * layout.tile_bytes;
  }

  [[noreturn]] void corrupt(const std::string& what) const {
    throw Error("'" + file.path() + "' is a damaged terrazo tile store (" + what +
                "); re-create it with `terrazo import`");
  }

  // The stages of TileStore::open, in order. The header's fields that RasterInfo does not hold:
  struct HeaderFields {
    std::uint64_t present_tiles = 0, index_offset = 0, data_offset = 0, recorded_size = 0;
    std::uint32_t tile = 0;
  };
  // The signature, version and header record, its length and CRC checked; returns [0, 20 + H).
  std::vector<unsigned char> read_header(std::uint64_t file_size) const;
  // The header record's fields (into info; the rest returned).
  HeaderFields decode_header(const std::vector<unsigned char>& header);
  // grid and layout from the header, checked against its offsets and the file's size.
  void check_layout(const HeaderFields& fields, std::uint64_t file_size);
  // The index read into its compact form, its bytes reserved first; checksum and entries checked.
  void read_index(std::uint64_t present_tiles, MemoryBudget* budget);
  // The CRS and the statistics checked; the statistics' stored extremes set.
  void check_statistics(std::uint64_t present_tiles);
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
  const std::vector<unsigned char> header = impl->read_header(file_size);
  const Impl::HeaderFields fields = impl->decode_header(header);
  impl->check_layout(fields, file_size);
  impl->read_index(fields.present_tiles, budget);
  impl->check_statistics(fields.present_tiles);
  impl->rule = NodataRule(impl->info);
  impl->bytes_read = header.size() + impl->layout.tile_count * kIndexEntryBytes + 4;
  return std::unique_ptr<TileStore>(new TileStore(std::move(impl)));
}

std::vector<unsigned char> TileStore::Impl::read_header(std::uint64_t file_size) const {
  const std::string& path = file.path();
  unsigned char prefix[16] = {};
  const std::uint64_t got = file.read_some(prefix, 16, 0);
  if (got < 8 || std::memcmp(prefix, kMagic.data(), 8) != 0)
    throw Error("'" + path + "' is not a terrazo tile store (no .tzs signature); create one with `terrazo import`");
  if (got < 16) corrupt("file ends inside the header");
  std::uint32_t version, header_bytes;
  std::memcpy(&version, prefix + 8, 4);
  std::memcpy(&header_bytes, prefix + 12, 4);
  if (version != kVersion)
    throw Error("'" + path + "' is a tile store of format version " + std::to_string(version) +
                "; this terrazo reads version " + std::to_string(kVersion) + ": re-import the raster");
  if (header_bytes < kFixedHeaderBytes || header_bytes > kFixedHeaderBytes + kMaxCrsBytes)
    corrupt("header length " + std::to_string(header_bytes) + " is impossible");
  if (16ull + header_bytes + 4 > file_size) corrupt("file ends inside the header: truncated");
  std::vector<unsigned char> header(16ull + header_bytes + 4);
  file.read_exact(header.data(), header.size(), 0);
  std::uint32_t stored_crc;
  std::memcpy(&stored_crc, header.data() + 16 + header_bytes, 4);
  if (crc32_of(header.data(), 16ull + header_bytes) != stored_crc) corrupt("header checksum mismatch");
  return header;
}

TileStore::Impl::HeaderFields TileStore::Impl::decode_header(const std::vector<unsigned char>& header) {
  const auto header_bytes = static_cast<std::uint32_t>(header.size() - 20);
  HeaderFields fields;
  try {
    Decoder d(header.data() + 16, header_bytes);
    info.width = d.get<std::uint64_t>();
    info.height = d.get<std::uint64_t>();
    fields.tile = d.get<std::uint32_t>();
    const std::uint32_t type = d.get<std::uint32_t>();
    if (!valid_cell_type(type)) corrupt("unknown cell type code " + std::to_string(type));
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
    fields.present_tiles = d.get<std::uint64_t>();
    fields.index_offset = d.get<std::uint64_t>();
    fields.data_offset = d.get<std::uint64_t>();
    fields.recorded_size = d.get<std::uint64_t>();
    const std::uint32_t crs_bytes = d.get<std::uint32_t>();
    if (kFixedHeaderBytes + crs_bytes != header_bytes) corrupt("CRS length disagrees with header length");
    info.crs_wkt = d.get_bytes(crs_bytes);
  } catch (const std::out_of_range&) {
    corrupt("header record too short");
  }
  return fields;
}

void TileStore::Impl::check_layout(const HeaderFields& fields, std::uint64_t file_size) {
  const std::uint32_t tile = fields.tile;
  if (info.width == 0 || info.height == 0) corrupt("raster size is zero");
  if (!tzs_format::is_power_of_two(tile) || tile > kMaxTile) corrupt("tile size " + std::to_string(tile) + " is invalid");
  if ((info.width + tile - 1) / tile > 0xFFFFFFFFull || (info.height + tile - 1) / tile > 0xFFFFFFFFull)
    corrupt("raster size too large for its tile size");
  grid = TileGrid{info.width, info.height, tile};
  layout = compute_layout(grid, info.type, info.crs_wkt.size());
  if (layout.overflow) corrupt("raster size overflows 64-bit offsets");
  if (layout.index_offset != fields.index_offset || layout.data_offset != fields.data_offset ||
      layout.file_size != fields.recorded_size)
    corrupt("header offsets disagree with the raster size");
  if (file_size != layout.file_size)
    throw Error("'" + file.path() + "' is " + (file_size < layout.file_size ? "truncated" : "damaged") +
                ": its header describes " + std::to_string(layout.file_size) + " bytes but the file has " +
                std::to_string(file_size) + "; re-create it with `terrazo import`");
  if (fields.present_tiles > layout.tile_count) corrupt("more present tiles than tiles");
}

// The index: row-major entries, then its CRC; read in chunks (the CRC chained over them) into the
// compact form, whose bytes are reserved first.
void TileStore::Impl::read_index(std::uint64_t present_tiles, MemoryBudget* budget) {
  const std::uint64_t words = (layout.tile_count + 63) / 64;
  const std::uint64_t seen_bytes = info.has_stats ? (present_tiles + 63) / 64 * 8 + present_tiles * 4 : 0;
  const std::uint64_t index_memory = words * 16 + present_tiles * 4 + seen_bytes;
  const std::uint64_t index_bytes = layout.tile_count * kIndexEntryBytes;
  const std::uint64_t chunk_bytes = std::min(kIndexChunkBytes, index_bytes);
  MemoryBudget::Reservation chunk_reservation;
  if (budget) {
    index_reservation = budget->reserve(index_memory, "tile index of '" + file.path() + "' (" +
                                                          std::to_string(layout.tile_count) + " tiles, " +
                                                          std::to_string(present_tiles) + " stored)");
    chunk_reservation = budget->reserve(chunk_bytes, "tile index read buffer");
  }
  present_bits.assign(words, 0);
  present_before.assign(words, 0);
  crcs.reserve(present_tiles);
  std::vector<unsigned char> chunk(chunk_bytes);
  uLong running_crc = crc32(0L, Z_NULL, 0);
  const std::uint32_t tiles_x = grid.tiles_x();
  std::string problem;
  for (std::uint64_t first = 0; first < layout.tile_count;) {
    const std::uint64_t count = std::min<std::uint64_t>(chunk_bytes / kIndexEntryBytes, layout.tile_count - first);
    file.read_exact(chunk.data(), count * kIndexEntryBytes, layout.index_offset + first * kIndexEntryBytes);
    running_crc = crc32(running_crc, chunk.data(), static_cast<uInt>(count * kIndexEntryBytes));
    // The first bad entry is reported once the checksum holds (a checksum mismatch comes first).
    for (std::uint64_t j = 0; j < count && problem.empty(); ++j) {
      const std::uint64_t i = first + j;
      Decoder d(chunk.data() + j * kIndexEntryBytes, kIndexEntryBytes);
      const auto entry_offset = d.get<std::uint64_t>();
      const auto crc = d.get<std::uint32_t>();
      if (i % 64 == 0) present_before[i / 64] = present;
      if (entry_offset == 0) continue;
      const auto tx = static_cast<std::uint32_t>(i % tiles_x), ty = static_cast<std::uint32_t>(i / tiles_x);
      if (entry_offset != offset(tx, ty)) {
        problem = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") is indexed outside its Z-order slot";
      } else if (++present > present_tiles) {
        problem = "present-tile count disagrees with the index";
      } else {
        present_bits[i / 64] |= std::uint64_t{1} << (i % 64);
        crcs.push_back(crc);
      }
    }
    first += count;
  }
  std::uint32_t index_crc;
  file.read_exact(&index_crc, 4, layout.index_offset + index_bytes);
  if (running_crc != index_crc) corrupt("tile index checksum mismatch");
  if (!problem.empty()) corrupt(problem);
  if (present != present_tiles) corrupt("present-tile count disagrees with the index");
}

void TileStore::Impl::check_statistics(std::uint64_t present_tiles) {
  // A CRS is text: NUL bytes in it would be dropped silently downstream (outputs without a CRS).
  if (info.crs_wkt.find('\0') != std::string::npos) corrupt("the CRS holds NUL bytes");
  if (!info.has_stats) return;
  // The statistics set the weight scale of mst and sssp: impossible ones are a damaged store. An
  // infinity is a value float cells hold (an import keeps it; the weights refuse it naming the
  // cell); a finite bound the type cannot hold (1e300 in Float32) is impossible.
  const bool float_cells = info.type == CellType::Float32 || info.type == CellType::Float64;
  auto stored_bound = [&](double v) { return float_cells && std::isinf(v) ? v : as_stored(v, info.type); };
  auto possible = [&](double v) { return (float_cells && std::isinf(v)) || std::isfinite(as_stored(v, info.type)); };
  const double lo = stored_bound(info.min), hi = stored_bound(info.max);
  if (!possible(info.min) || !possible(info.max) || lo > hi)
    corrupt("its statistics [" + number_text(info.min) + ", " + number_text(info.max) + "] are impossible for " +
            to_string(info.type) + " cells");
  if (info.valid_cells > info.width * info.height || (info.valid_cells == 0) != (present == 0))
    corrupt("its statistics count " + std::to_string(info.valid_cells) + " valid cells in " +
            std::to_string(present) + " stored tiles");
  stored_min = lo;
  stored_max = hi;
  seen.assign((present_tiles + 63) / 64, 0);
  seen_valid.assign(present_tiles, 0);
}

TileStore::TileStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TileStore::~TileStore() = default;

const RasterInfo& TileStore::info() const { return impl_->info; }
const TileGrid& TileStore::grid() const { return impl_->grid; }
std::uint64_t TileStore::present_tiles() const { return impl_->present; }
std::uint64_t TileStore::bytes_read() const { return impl_->bytes_read.load(); }

std::uint64_t TileStore::content_fingerprint() const {
  // FNV-1a over the description of the cells and, per tile in row-major order, its CRC or absence.
  const Impl& s = *impl_;
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 1099511628211ull;
    }
  };
  std::uint64_t nodata_bits = 0;
  std::memcpy(&nodata_bits, &s.info.nodata, 8);
  mix(s.grid.width);
  mix(s.grid.height);
  mix(s.grid.tile);
  mix(static_cast<std::uint64_t>(s.info.type));
  mix(s.info.has_nodata ? nodata_bits : 0);
  std::uint64_t next = 0;  // crcs holds the stored tiles' CRCs in row-major order
  for (std::uint64_t i = 0; i < s.grid.tile_count(); ++i)
    mix(s.is_present(i) ? (std::uint64_t{1} << 32) | s.crcs[next++] : 0);
  return h;
}

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
  s.seen_valid[rank] = static_cast<std::uint32_t>(tile.valid);
  if (++s.seen_count == s.present) s.check_all_tiles(s.seen_stats);
}

std::uint64_t TileStore::read_unseen_tiles(MemoryBudget* budget, const std::function<bool(std::uint64_t)>& mine) const {
  const Impl& s = *impl_;
  if (!s.info.has_stats) return 0;
  {
    std::lock_guard<std::mutex> lock(s.seen_mutex);
    if (s.seen_count == s.present) return 0;
  }
  const std::uint64_t bytes = static_cast<std::uint64_t>(s.grid.tile) * s.grid.tile * cell_type_size(s.info.type);
  MemoryBudget::Reservation reservation;
  if (budget) reservation = budget->reserve(bytes, "statistics check tile");
  std::vector<unsigned char> raw(bytes);
  std::uint64_t read = 0;
  for (std::uint32_t ty = 0; ty < s.grid.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < s.grid.tiles_x(); ++tx) {
      const std::uint64_t i = static_cast<std::uint64_t>(ty) * s.grid.tiles_x() + tx;
      if (!s.is_present(i) || (mine && !mine(i))) continue;
      {
        std::lock_guard<std::mutex> lock(s.seen_mutex);
        const std::uint64_t rank = s.rank(i);
        if ((s.seen[rank / 64] >> (rank % 64)) & 1) continue;
      }
      read_tile_raw(tx, ty, raw.data());  // checks the CRC and, with statistics, the bounds
      ++read;
    }
  return read;
}

CellStats TileStore::statistics_share(const std::function<bool(std::uint64_t)>& mine, MemoryBudget* budget) const {
  const Impl& s = *impl_;
  CellStats share;
  if (!s.info.has_stats) return share;
  read_unseen_tiles(budget, mine);
  std::lock_guard<std::mutex> lock(s.seen_mutex);
  for (std::uint64_t i = 0; i < s.grid.tile_count(); ++i)
    if (s.is_present(i) && mine(i)) share.valid += s.seen_valid[s.rank(i)];
  if (share.valid > 0) share.min = s.seen_stats.min, share.max = s.seen_stats.max;
  return share;
}

void TileStore::check_merged_statistics(const CellStats& tiles) const {
  if (impl_->info.has_stats) impl_->check_all_tiles(tiles);
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
  // Read the raw cells into the tail of `out` and widen them in place (io/store/cell_values.h).
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

}  // namespace terrazo
