// io/store/index_file.h: the boundary-graph index file (.tzi): per tile of a raster, the values of the
// tile's boundary ring and its symmetric boundary-to-boundary distance matrix (docs/index.md "The
// index file"). The store layer knows only the container: who computes the matrices and how they
// are used is engine/index/.
//
// Layout (little-endian; docs/index.md has the table):
//   header    magic "\x89TZI\r\n\x1a\n", version, the raster's size, tile side, weight model,
//             connectivity, distance mode, scale, offset, leaf side, the raster fingerprint, tile
//             count, table and data offsets, the three step lengths, the store fingerprint
//             (version 2; version 1 files are refused: rebuild them); CRC32 of the header
//   data      the present tiles' records in Z-order (tile-ordered: an aligned 2^k x 2^k group of
//             tiles is contiguous): ring values (B doubles, NaN = nodata), then the upper triangle
//             with the diagonal of the B x B matrix, row by row, as 32-bit entries (0xFFFFFFFF = no
//             path) when every finite entry of the tile is below 2^32 - 1, else 64-bit entries
//             (kUnreached = no path); B = 4t - 4
//   table     per tile of the grid, row-major: record offset (0: absent, no valid ring cell), record
//             bytes, entry width (4 or 8), CRC32 of the record, CRC32 of the tile's cell values as
//             doubles (the fingerprint of the tile); CRC32 of the table
// Errors: a corrupt, truncated or foreign file is an Error naming the file (and the tile), never a
// wrong read.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/types.h"
#include "io/store/tile_store.h"

namespace terrazo {

struct IndexFileHeader {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::uint32_t leaf = 0;
  WeightModel model = WeightModel::Friction;
  Connectivity connectivity = Connectivity::Eight;
  double scale = 1.0, offset = 0.0;
  std::uint64_t fingerprint = 0;  // of the raster's cells (combined tile CRCs, with the size)
  // TileStore::content_fingerprint of the store the index was built from: a query on the same
  // store (or the same raster imported alike) matches it in O(tiles), without reading a cell.
  std::uint64_t store_fingerprint = 0;
  // Step lengths of the weights (--distance): 0 cells (1, 1, sqrt 2), 1 map (uniform east-west,
  // north-south and diagonal lengths from the geotransform). Files written before these fields
  // read as cells.
  std::uint8_t distance = 0;
  double step_ew = 1.0, step_ns = 1.0, step_diag = 1.41421356237309514547462185873883;
  TileGrid grid() const {
    TileGrid g;
    g.width = width;
    g.height = height;
    g.tile = tile;
    return g;
  }
};

struct IndexTileEntry {
  std::uint64_t offset = 0;  // 0: absent
  std::uint32_t bytes = 0;
  std::uint32_t width = 0;   // 4 or 8
  std::uint32_t crc = 0;
  std::uint32_t values_crc = 0;
};

// Bytes of a tile record with entry width w: ring values and the triangle.
std::uint64_t index_record_bytes(std::uint32_t t, std::uint32_t width);
// CRC32 of a tile's t*t cell values (doubles, NaN canonical), as the table stores it.
std::uint32_t index_values_crc(const double* values, std::uint64_t cells);
// The raster fingerprint from the size and the tiles' values CRCs in row-major tile order.
std::uint64_t index_fingerprint(std::uint64_t width, std::uint64_t height, const std::vector<std::uint32_t>& values_crcs);

// A tile's record as the file stores it (ring values, the upper triangle in 4 or 8 bytes per entry)
// and its CRC: encode_index_record makes it (no I/O, thread-safe), IndexFileWriter::write_record
// appends it. `out`'s buffer is reused.
struct IndexRecord {
  std::vector<unsigned char> bytes;
  std::uint32_t width = 0;  // 4 or 8
  std::uint32_t crc = 0;
};
void encode_index_record(std::uint32_t t, const double* ring_values, const PathLength* matrix, IndexRecord* out);

// Where the index build puts its records: the file (IndexFileWriter) or memory
// (engine/index/index_in_memory.h). Records come one at a time, from one thread.
class IndexRecordSink {
 public:
  virtual ~IndexRecordSink() = default;
  virtual void write_record(std::uint64_t tile_index, const IndexRecord& record, std::uint32_t values_crc) = 0;
  // Values CRC of a tile that is not written (absent), for the fingerprint.
  virtual void set_values_crc(std::uint64_t tile_index, std::uint32_t values_crc) = 0;
};

class IndexFileWriter : public IndexRecordSink {
 public:
  // Memory: the table (24 bytes per tile) and one record buffer, reserved from `budget`.
  IndexFileWriter(const std::string& path, const IndexFileHeader& header, MemoryBudget& budget);
  // What the constructor reserves for an index of `grid`.
  static std::uint64_t reserved_bytes(const TileGrid& grid);
  ~IndexFileWriter() override;
  IndexFileWriter(const IndexFileWriter&) = delete;
  IndexFileWriter& operator=(const IndexFileWriter&) = delete;
  // Tiles in the order the caller likes (Z-order makes the file tile-ordered); each appended.
  // ring_values: B doubles; matrix: B x B row-major, symmetric (only the upper triangle is stored).
  // A tile with no valid ring cell may be skipped: it reads as absent.
  void write_tile(std::uint64_t tile_index, const double* ring_values, const PathLength* matrix, std::uint32_t values_crc);
  // The same with the record encoded beforehand (encode_index_record, e.g. on several threads).
  void write_record(std::uint64_t tile_index, const IndexRecord& record, std::uint32_t values_crc) override;
  void set_values_crc(std::uint64_t tile_index, std::uint32_t values_crc) override;
  // Writes the table and the header (with the fingerprint), publishes the file.
  void finish();
  std::uint64_t bytes_written() const;
  std::uint64_t fingerprint() const;

  struct Impl;
 private:
  std::unique_ptr<Impl> impl_;
};

class IndexFile {
 public:
  // Validates magic, version, header and table CRCs, offsets against the file size. The table is
  // reserved from `budget` (24 bytes per tile).
  static std::unique_ptr<IndexFile> open(const std::string& path, MemoryBudget& budget);
  static bool looks_like_index(const std::string& path);  // magic check only
  // What open reserves for the table of an index of `tiles` tiles.
  static std::uint64_t table_bytes(std::uint64_t tiles);
  ~IndexFile();
  const IndexFileHeader& header() const;
  const IndexTileEntry& entry(std::uint64_t tile_index) const;
  std::uint64_t present_tiles() const;
  std::uint64_t file_bytes() const;
  std::uint64_t bytes_read() const;
  // The tile's ring values (B) and full B x B matrix; checks the record's CRC. An absent tile reads as
  // NaN values and kUnreached everywhere. Thread-safe.
  void read_tile(std::uint64_t tile_index, double* ring_values, PathLength* matrix) const;
  // The tile's record as stored (entry(tile_index).bytes bytes into `record`), its CRC checked; the
  // tile must be present. Thread-safe.
  void read_record(std::uint64_t tile_index, unsigned char* record) const;

  struct Impl;
 private:
  explicit IndexFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrazo
