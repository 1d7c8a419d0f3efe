// io/store/index_file.cpp: IndexFileWriter and IndexFile (io/store/index_file.h).
#include "io/store/index_file.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "kernels/common/error.h"
#include "io/store/atomic_output.h"
#include "io/store/posix_file.h"
#include "io/store/tile_store_format.h"

namespace terrazo {
namespace {

using tzs_format::crc32_of;
using tzs_format::Decoder;
using tzs_format::Encoder;

constexpr unsigned char kMagic[8] = {0x89, 'T', 'Z', 'I', '\r', '\n', 0x1a, '\n'};
// Version 2 records the store fingerprint of the raster the index was built from; version 1 files
// lack it and are refused with a message to rebuild them.
constexpr std::uint32_t kVersion = 2;
constexpr std::uint64_t kHeaderBytes = 256;  // fixed, zero padded; CRC32 in its last 4 bytes
constexpr std::uint64_t kTableEntryBytes = 24;
constexpr std::uint32_t kNoPath32 = 0xFFFFFFFFu;

std::uint32_t ring_of(std::uint32_t t) { return 4 * t - 4; }
std::uint64_t triangle(std::uint32_t b) { return static_cast<std::uint64_t>(b) * (b + 1) / 2; }

std::vector<unsigned char> encode_header(const IndexFileHeader& h, std::uint64_t tile_count, std::uint64_t present,
                                         std::uint64_t table_offset, std::uint64_t file_size) {
  Encoder e;
  for (unsigned char c : kMagic) e.put<unsigned char>(c);
  e.put<std::uint32_t>(kVersion);
  e.put<std::uint64_t>(h.width);
  e.put<std::uint64_t>(h.height);
  e.put<std::uint32_t>(h.tile);
  e.put<std::uint32_t>(h.leaf);
  e.put<std::uint8_t>(static_cast<std::uint8_t>(h.model));
  e.put<std::uint8_t>(static_cast<std::uint8_t>(h.connectivity));
  e.put<std::uint8_t>(h.distance);
  e.put<std::uint8_t>(0);
  e.put<double>(h.scale);
  e.put<double>(h.offset);
  e.put<std::uint64_t>(h.fingerprint);
  e.put<std::uint64_t>(tile_count);
  e.put<std::uint64_t>(present);
  e.put<std::uint64_t>(table_offset);
  e.put<std::uint64_t>(file_size);
  e.put<double>(h.step_ew);
  e.put<double>(h.step_ns);
  e.put<double>(h.step_diag);
  e.put<std::uint64_t>(h.store_fingerprint);
  e.bytes().resize(kHeaderBytes - 4, 0);
  e.put<std::uint32_t>(crc32_of(e.bytes().data(), e.bytes().size()));
  return std::move(e.bytes());
}

}  // namespace

std::uint64_t index_record_bytes(std::uint32_t t, std::uint32_t width) {
  return ring_of(t) * 8ull + triangle(ring_of(t)) * width;
}

std::uint32_t index_values_crc(const double* values, std::uint64_t cells) {
  // NaN canonical: every nodata cell hashes alike whatever its payload.
  std::uint32_t crc = 0;
  double chunk[512];
  for (std::uint64_t i = 0; i < cells; i += 512) {
    const std::uint64_t n = std::min<std::uint64_t>(512, cells - i);
    for (std::uint64_t j = 0; j < n; ++j) chunk[j] = std::isnan(values[i + j]) ? std::numeric_limits<double>::quiet_NaN() : values[i + j];
    crc = static_cast<std::uint32_t>(::crc32_z(crc, reinterpret_cast<const Bytef*>(chunk), static_cast<z_size_t>(n * 8)));
  }
  return crc;
}

std::uint64_t index_fingerprint(std::uint64_t width, std::uint64_t height, const std::vector<std::uint32_t>& crcs) {
  // FNV-1a over the size and the tiles' CRCs.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 1099511628211ull;
    }
  };
  mix(width);
  mix(height);
  for (std::uint32_t c : crcs) mix(c);
  return h;
}

// ---- writer ------------------------------------------------------------------------------------

struct IndexFileWriter::Impl {
  IndexFileHeader header;
  TileGrid grid;
  AtomicOutput output;
  std::unique_ptr<PosixFile> file;
  std::vector<IndexTileEntry> table;
  IndexRecord record;
  std::uint64_t next = kHeaderBytes;
  std::uint64_t present = 0, written = 0;
  MemoryBudget::Reservation reservation;
  bool finished = false;
  Impl(const std::string& path) : output(path) {}
};

std::uint64_t IndexFileWriter::reserved_bytes(const TileGrid& grid) {
  return grid.tile_count() * (sizeof(IndexTileEntry) + 4) + index_record_bytes(grid.tile, 8);
}

IndexFileWriter::IndexFileWriter(const std::string& path, const IndexFileHeader& header, MemoryBudget& budget)
    : impl_(std::make_unique<Impl>(path)) {
  Impl& s = *impl_;
  s.header = header;
  s.grid = header.grid();
  const std::uint64_t tiles = s.grid.tile_count();
  s.reservation = budget.reserve(reserved_bytes(s.grid), "index file table and record buffer");
  s.table.assign(tiles, IndexTileEntry{});
  s.record.bytes.reserve(index_record_bytes(header.tile, 8));
  s.file = std::make_unique<PosixFile>(s.output.partial(), PosixFile::Mode::CreateReadWrite);
}

IndexFileWriter::~IndexFileWriter() = default;

void IndexFileWriter::set_values_crc(std::uint64_t tile_index, std::uint32_t values_crc) {
  impl_->table.at(tile_index).values_crc = values_crc;
}

void encode_index_record(std::uint32_t t, const double* ring_values, const PathLength* matrix, IndexRecord* out) {
  const std::uint32_t b = ring_of(t);
  PathLength most = 0;
  for (std::uint32_t i = 0; i < b; ++i)
    for (std::uint32_t j = i; j < b; ++j) {
      const PathLength v = matrix[static_cast<std::uint64_t>(i) * b + j];
      if (v != kUnreached) most = std::max(most, v);
    }
  const std::uint32_t width = most < kNoPath32 ? 4 : 8;
  out->bytes.resize(index_record_bytes(t, width));
  unsigned char* p = out->bytes.data();
  std::memcpy(p, ring_values, b * 8ull);
  p += b * 8ull;
  for (std::uint32_t i = 0; i < b; ++i) {
    const PathLength* row = matrix + static_cast<std::uint64_t>(i) * b;
    if (width == 4) {
      for (std::uint32_t j = i; j < b; ++j, p += 4) {
        const std::uint32_t w = row[j] == kUnreached ? kNoPath32 : static_cast<std::uint32_t>(row[j]);
        std::memcpy(p, &w, 4);
      }
    } else {
      std::memcpy(p, row + i, (b - i) * 8ull);
      p += (b - i) * 8ull;
    }
  }
  out->width = width;
  out->crc = crc32_of(out->bytes.data(), out->bytes.size());
}

void IndexFileWriter::write_tile(std::uint64_t tile_index, const double* ring_values, const PathLength* matrix,
                                 std::uint32_t values_crc) {
  Impl& s = *impl_;
  encode_index_record(s.header.tile, ring_values, matrix, &s.record);
  write_record(tile_index, s.record, values_crc);
}

void IndexFileWriter::write_record(std::uint64_t tile_index, const IndexRecord& record, std::uint32_t values_crc) {
  Impl& s = *impl_;
  if (record.bytes.size() != index_record_bytes(s.header.tile, record.width))
    throw Error("index record of " + std::to_string(record.bytes.size()) + " bytes for a tile of " + std::to_string(s.header.tile));
  IndexTileEntry& e = s.table.at(tile_index);
  e.offset = s.next;
  e.bytes = static_cast<std::uint32_t>(record.bytes.size());
  e.width = record.width;
  e.crc = record.crc;
  e.values_crc = values_crc;
  s.file->write_all(record.bytes.data(), record.bytes.size(), s.next);
  s.next += record.bytes.size();
  s.written += record.bytes.size();
  ++s.present;
}

void IndexFileWriter::finish() {
  Impl& s = *impl_;
  Encoder table;
  std::vector<std::uint32_t> crcs;
  crcs.reserve(s.table.size());
  for (const IndexTileEntry& e : s.table) {
    table.put<std::uint64_t>(e.offset);
    table.put<std::uint32_t>(e.bytes);
    table.put<std::uint32_t>(e.width);
    table.put<std::uint32_t>(e.crc);
    table.put<std::uint32_t>(e.values_crc);
    crcs.push_back(e.values_crc);
  }
  table.put<std::uint32_t>(crc32_of(table.bytes().data(), table.bytes().size()));
  const std::uint64_t table_offset = s.next;
  s.file->write_all(table.bytes().data(), table.bytes().size(), table_offset);
  const std::uint64_t size = table_offset + table.bytes().size();
  s.header.fingerprint = index_fingerprint(s.header.width, s.header.height, crcs);
  const auto header = encode_header(s.header, s.table.size(), s.present, table_offset, size);
  s.file->write_all(header.data(), header.size(), 0);
  s.written += header.size() + table.bytes().size();
  s.file->sync_data();
  s.file->close();
  s.output.publish();
  s.finished = true;
}

std::uint64_t IndexFileWriter::bytes_written() const { return impl_->written; }
std::uint64_t IndexFileWriter::fingerprint() const { return impl_->header.fingerprint; }

// ---- reader ------------------------------------------------------------------------------------

struct IndexFile::Impl {
  std::string path;
  std::unique_ptr<PosixFile> file;
  IndexFileHeader header;
  std::vector<IndexTileEntry> table;
  std::uint64_t present = 0, size = 0;
  mutable std::atomic<std::uint64_t> read{0};
  MemoryBudget::Reservation reservation;
};

IndexFile::IndexFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IndexFile::~IndexFile() = default;

bool IndexFile::looks_like_index(const std::string& path) {
  try {
    PosixFile f(path, PosixFile::Mode::Read);
    unsigned char magic[8] = {};
    if (f.read_some(magic, 8, 0) != 8) return false;
    return std::memcmp(magic, kMagic, 8) == 0;
  } catch (const Error&) {
    return false;
  }
}

std::uint64_t IndexFile::table_bytes(std::uint64_t tiles) { return tiles * (kTableEntryBytes + sizeof(IndexTileEntry)); }

std::unique_ptr<IndexFile> IndexFile::open(const std::string& path, MemoryBudget& budget) {
  auto impl = std::make_unique<Impl>();
  Impl& s = *impl;
  s.path = path;
  s.file = std::make_unique<PosixFile>(path, PosixFile::Mode::Read);
  s.size = s.file->size();
  auto corrupt = [&](const std::string& why) { return Error("index '" + path + "' is not a valid terrazo index: " + why); };
  if (s.size < kHeaderBytes) throw corrupt("shorter than its header");
  unsigned char raw[kHeaderBytes];
  s.file->read_exact(raw, kHeaderBytes, 0);
  if (std::memcmp(raw, kMagic, 8) != 0) throw corrupt("wrong magic (not a .tzi file)");
  std::uint32_t stored_crc;
  std::memcpy(&stored_crc, raw + kHeaderBytes - 4, 4);
  if (crc32_of(raw, kHeaderBytes - 4) != stored_crc) throw corrupt("header checksum mismatch");
  Decoder d(raw + 8, kHeaderBytes - 8);
  const std::uint32_t version = d.get<std::uint32_t>();
  if (version < kVersion)
    throw Error("index '" + path + "' is of format version " + std::to_string(version) + ", older than this terrazo's " +
                std::to_string(kVersion) + " (which records the raster's fingerprint to check queries against): "
                "rebuild it with `terrazo index`");
  if (version != kVersion) throw corrupt("unsupported version " + std::to_string(version) + " (a newer terrazo's?)");
  IndexFileHeader& h = s.header;
  h.width = d.get<std::uint64_t>();
  h.height = d.get<std::uint64_t>();
  h.tile = d.get<std::uint32_t>();
  h.leaf = d.get<std::uint32_t>();
  const std::uint8_t model = d.get<std::uint8_t>(), connectivity = d.get<std::uint8_t>();
  h.distance = d.get<std::uint8_t>();
  d.get<std::uint8_t>();
  if (h.distance > 1) throw corrupt("bad distance mode");
  if (model > 2 || (connectivity != 4 && connectivity != 8)) throw corrupt("bad weight model or connectivity");
  h.model = static_cast<WeightModel>(model);
  h.connectivity = static_cast<Connectivity>(connectivity);
  h.scale = d.get<double>();
  h.offset = d.get<double>();
  h.fingerprint = d.get<std::uint64_t>();
  const std::uint64_t tiles = d.get<std::uint64_t>();
  s.present = d.get<std::uint64_t>();
  const std::uint64_t table_offset = d.get<std::uint64_t>();
  const std::uint64_t file_size = d.get<std::uint64_t>();
  h.step_ew = d.get<double>();
  h.step_ns = d.get<double>();
  h.step_diag = d.get<double>();
  h.store_fingerprint = d.get<std::uint64_t>();
  if (h.distance == 0 && h.step_ew == 0 && h.step_ns == 0 && h.step_diag == 0) {  // written before the fields
    h.step_ew = h.step_ns = 1.0;
    h.step_diag = 1.41421356237309514547462185873883;
  }
  if (h.tile < 16 || h.tile > 4096 || (h.tile & (h.tile - 1)) != 0 || h.width == 0 || h.height == 0)
    throw corrupt("bad raster size or tile");
  if (tiles != h.grid().tile_count() || s.present > tiles) throw corrupt("tile count does not match the raster size");
  if (file_size != s.size) throw corrupt("file size " + std::to_string(s.size) + " is not the " + std::to_string(file_size) + " its header says (truncated?)");
  if (table_offset < kHeaderBytes || table_offset + tiles * kTableEntryBytes + 4 != file_size) throw corrupt("bad table offset");
  s.reservation = budget.reserve(table_bytes(tiles), "index table of " + path);
  std::vector<unsigned char> table(tiles * kTableEntryBytes + 4);
  s.file->read_exact(table.data(), table.size(), table_offset);
  std::memcpy(&stored_crc, table.data() + tiles * kTableEntryBytes, 4);
  if (crc32_of(table.data(), tiles * kTableEntryBytes) != stored_crc) throw corrupt("table checksum mismatch");
  Decoder t(table.data(), table.size());
  s.table.resize(tiles);
  std::uint64_t present = 0;
  for (IndexTileEntry& e : s.table) {
    e.offset = t.get<std::uint64_t>();
    e.bytes = t.get<std::uint32_t>();
    e.width = t.get<std::uint32_t>();
    e.crc = t.get<std::uint32_t>();
    e.values_crc = t.get<std::uint32_t>();
    if (e.offset == 0) continue;
    ++present;
    if ((e.width != 4 && e.width != 8) || e.bytes != index_record_bytes(h.tile, e.width) || e.offset < kHeaderBytes ||
        e.offset + e.bytes > table_offset)
      throw corrupt("bad tile record");
  }
  if (present != s.present) throw corrupt("present tile count mismatch");
  return std::unique_ptr<IndexFile>(new IndexFile(std::move(impl)));
}

const IndexFileHeader& IndexFile::header() const { return impl_->header; }
const IndexTileEntry& IndexFile::entry(std::uint64_t tile_index) const { return impl_->table.at(tile_index); }
std::uint64_t IndexFile::present_tiles() const { return impl_->present; }
std::uint64_t IndexFile::file_bytes() const { return impl_->size; }
std::uint64_t IndexFile::bytes_read() const { return impl_->read.load(); }

void IndexFile::read_tile(std::uint64_t tile_index, double* ring_values, PathLength* matrix) const {
  const Impl& s = *impl_;
  const IndexTileEntry& e = s.table.at(tile_index);
  const std::uint32_t b = ring_of(s.header.tile);
  if (e.offset == 0) {
    std::fill(ring_values, ring_values + b, std::numeric_limits<double>::quiet_NaN());
    std::fill(matrix, matrix + static_cast<std::uint64_t>(b) * b, kUnreached);
    return;
  }
  std::vector<unsigned char> record(e.bytes);
  read_record(tile_index, record.data());
  const unsigned char* p = record.data();
  std::memcpy(ring_values, p, b * 8ull);
  p += b * 8ull;
  for (std::uint32_t i = 0; i < b; ++i)
    for (std::uint32_t j = i; j < b; ++j) {
      PathLength v;
      if (e.width == 4) {
        std::uint32_t w;
        std::memcpy(&w, p, 4);
        v = w == kNoPath32 ? kUnreached : w;
      } else {
        std::memcpy(&v, p, 8);
      }
      p += e.width;
      matrix[static_cast<std::uint64_t>(i) * b + j] = v;
      matrix[static_cast<std::uint64_t>(j) * b + i] = v;
    }
}

void IndexFile::read_record(std::uint64_t tile_index, unsigned char* record) const {
  const Impl& s = *impl_;
  const IndexTileEntry& e = s.table.at(tile_index);
  if (e.offset == 0) throw Error("index '" + s.path + "': tile " + std::to_string(tile_index) + " is absent");
  s.file->read_exact(record, e.bytes, e.offset);
  s.read += e.bytes;
  if (crc32_of(record, e.bytes) != e.crc)
    throw Error("index '" + s.path + "': tile " + std::to_string(tile_index) + " fails its checksum (corrupt file)");
}

}  // namespace terrazo
