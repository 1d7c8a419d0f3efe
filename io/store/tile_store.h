// io/store/tile_store.h: the Z-order tile store (.tzs), terrazo's on-disk raster (format: docs/tile_store_format.md).
//
// A W x H raster cut into t x t tiles (t a power of two), edge tiles padded; tiles laid out in
// Z-order (Morton order of tile coordinates) so aligned 2^k x 2^k groups are contiguous; within a
// tile cells are row-major in the raster's own cell type; tiles that are all nodata are not
// stored (the index marks them absent). Header and index are checksummed, every tile carries a
// CRC32 checked on read: a corrupt, truncated or foreign file is an Error, never a wrong read.
//
// Reads and writes use pread/pwrite into caller buffers (no mapping of tile data), so resident
// memory is exactly what callers reserve from the MemoryBudget.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "io/store/cell_values.h"
#include "io/store/raster_info.h"

namespace terrazo {

// Morton (Z-order) code of tile (tx, ty): bits of tx at even, ty at odd positions.
std::uint64_t morton_encode(std::uint32_t tx, std::uint32_t ty);
void morton_decode(std::uint64_t code, std::uint32_t* tx, std::uint32_t* ty);

// The cells of one tile that lie inside the raster: [x0, x0 + w) x [y0, y0 + h).
struct TileWindow {
  std::uint64_t x0 = 0, y0 = 0;
  std::uint32_t w = 0, h = 0;
};

struct TileGrid {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 256;
  TileWindow window(std::uint32_t tx, std::uint32_t ty) const {
    TileWindow r;
    r.x0 = static_cast<std::uint64_t>(tx) * tile;
    r.y0 = static_cast<std::uint64_t>(ty) * tile;
    r.w = static_cast<std::uint32_t>(std::min<std::uint64_t>(tile, width - r.x0));
    r.h = static_cast<std::uint32_t>(std::min<std::uint64_t>(tile, height - r.y0));
    return r;
  }
  // The same for row-major tile index ty * tiles_x + tx.
  TileWindow window(std::uint64_t tile_index) const {
    return window(static_cast<std::uint32_t>(tile_index % tiles_x()), static_cast<std::uint32_t>(tile_index / tiles_x()));
  }
  std::uint32_t tiles_x() const { return static_cast<std::uint32_t>((width + tile - 1) / tile); }
  std::uint32_t tiles_y() const { return static_cast<std::uint32_t>((height + tile - 1) / tile); }
  std::uint64_t tile_count() const { return static_cast<std::uint64_t>(tiles_x()) * tiles_y(); }
  // The row-major index of tile (tx, ty).
  std::uint64_t tile_index(std::uint32_t tx, std::uint32_t ty) const { return std::uint64_t{ty} * tiles_x() + tx; }
  // Tiles of the grid in Z-order (row-major tile indices ty * tiles_x + tx), the store's layout order.
  std::vector<std::uint64_t> z_order() const;
  // Position of tile (tx, ty) in z_order() (its slot in the store), in O(log tiles) without the list.
  std::uint64_t z_rank(std::uint32_t tx, std::uint32_t ty) const;
};

class TileStore {
 public:
  // Opens and validates (magic, version, header CRC, index CRC, index offsets, file size, a CRS
  // without NUL bytes, statistics the cell type can hold). Holds the tile index in memory, compact:
  // 2 bits per tile of the grid + 4 bytes per stored tile (+ 1 bit per stored tile when the header
  // has statistics), read through a 1 MiB chunk: 4.2 MiB for the 16.7 M tiles of a 65536^2 raster
  // in tiles of 16, none stored. With `budget`, those bytes are reserved from it ("tile index of
  // PATH") for the store's lifetime before they are allocated; a budget too small is an Error
  // naming the store and the size, before any tile is read.
  static std::unique_ptr<TileStore> open(const std::string& path, MemoryBudget* budget = nullptr);
  static bool looks_like_tile_store(const std::string& path);  // magic check only
  ~TileStore();

  const RasterInfo& info() const;
  const TileGrid& grid() const;
  std::uint32_t tile() const { return grid().tile; }
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const;
  std::uint64_t present_tiles() const;
  std::uint64_t bytes_read() const;
  // A fingerprint of the cells as stored: the size, tile, cell type and nodata value, and every
  // tile's CRC (or its absence), from the tile index held in memory: O(tiles), no tile read. Equal
  // stores (and the same raster imported alike) have equal fingerprints; another cell type or
  // nodata value gives another even where the values are the same.
  std::uint64_t content_fingerprint() const;

  // Tile (tx, ty) as doubles, t*t row-major; nodata, NaN and padding cells are NaN.
  // An absent tile reads as all NaN. Checks the tile's CRC, and when the header has statistics,
  // that the tile's values lie within them and, once every stored tile was read, that they are
  // the tiles' own (min, max, valid cells): a store whose checksums hold but whose statistics lie
  // is an Error naming the tile (docs/reliability.md "Stored statistics").
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const;
  // Reads the stored tiles that were not read yet, so that a run needing only part of the store
  // (sssp with --max-cost, regions no source reaches) still checks the header's statistics against
  // every tile before it publishes results computed at a scale set by them (docs/reliability.md
  // "Stored statistics"). One raw tile of scratch, reserved from `budget` when given. No-op without
  // statistics or once every stored tile was read; returns how many tiles it read.
  // With `mine`, only the stored tiles (row-major index) it selects.
  std::uint64_t read_unseen_tiles(MemoryBudget* budget = nullptr,
                                  const std::function<bool(std::uint64_t)>& mine = {}) const;
  // A distributed run's share of that check, whose ranks each read only some tiles: the tiles
  // `mine` selects are read unless they were (read_unseen_tiles), and the result holds their valid
  // cells and the extremes of every tile read. Merged over ranks whose `mine` cover every stored
  // tile (CellStats::merge), the shares are the tiles' own statistics, for
  // check_merged_statistics, which is an Error (the store damaged) unless they are the header's.
  // Both no-ops without statistics.
  CellStats statistics_share(const std::function<bool(std::uint64_t)>& mine, MemoryBudget* budget) const;
  void check_merged_statistics(const CellStats& tiles) const;
  // Raw cells in the store's type (t*t*cell size bytes); absent tiles are filled with nodata (or NaN).
  void read_tile_raw(std::uint32_t tx, std::uint32_t ty, void* out) const;

  struct Impl;
 private:
  explicit TileStore(std::unique_ptr<Impl> impl);
  void check_statistics(std::uint32_t tx, std::uint32_t ty, const void* raw) const;
  std::unique_ptr<Impl> impl_;
};

// Writes a store under a partial file of its own (io/store/atomic_output.h), renamed to `path` by
// finish(); destroyed unfinished, it removes the partial file. Tiles may be written in any order (each lands at its Z-order slot).
class TileStoreWriter {
 public:
  // With `budget`, the writer's tile index (index_bytes: 17 bytes per tile of the grid) is reserved
  // from it ("tile index of PATH") before it is allocated; a budget too small is an Error naming
  // the store and the size, before the partial file is made.
  TileStoreWriter(const std::string& path, const RasterInfo& info, std::uint32_t tile, MemoryBudget* budget = nullptr);
  ~TileStoreWriter();
  static std::uint64_t index_bytes(const TileGrid& grid);
  const TileGrid& grid() const;
  // `cells` is t*t values of info.type, row-major; a tile with no valid cell is not stored.
  // Cells outside the raster (padding of edge tiles) are ignored and stored as nodata (0 for an
  // integer type without one). Thread-safe: tiles may be written from several threads.
  // Transient memory: one tile in the store's type (t*t*cell size bytes) for edge tiles.
  void write_tile_raw(std::uint32_t tx, std::uint32_t ty, const void* cells);
  // Same from doubles (NaN = nodata, converted to the store's nodata value, integers rounded;
  // io/store/cell_values.h); for generators and results. Transient memory: one tile in the store's type.
  void write_tile(std::uint32_t tx, std::uint32_t ty, const double* cells);
  // Sets the statistics recorded in the header (importers compute them while streaming). Without
  // it the writer records the statistics of the tiles written, unless a tile was written twice.
  void set_stats(double min, double max, std::uint64_t valid_cells);
  void finish();
  std::uint64_t bytes_written() const;
  std::uint64_t present_tiles() const;  // tiles stored so far (with at least one valid cell)

  struct Impl;
 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrazo
