// engine/tile_inputs/in_memory_tile_input.h: a raster held in memory as tiles, seen as the pipelines' TileInput
// (engine/tile_inputs/tile_input.h): what `sssp`, `mst` and `clump` read instead of a tile store when the whole
// raster fits a share of the budget (engine/raster_inputs/pipeline_input.h), so a small input is read once and never
// written to and re-read from a store in the run directory.
//
// Contract: the same cells as the tile store an import would write (io/store/tile_store.h). Each
// tile is held in the raster's own cell type, encoded from doubles by doubles_to_cells and decoded
// by cells_to_doubles (io/store/cell_values.h), exactly as TileStoreWriter::write_tile and
// TileStore::read_tile do, so read_tile returns bit for bit what the store's read_tile returns:
// nodata, NaN and padding cells read as NaN. A tile with no valid cell is absent (tile_present
// false, reads as all NaN), as in a store. Statistics (min, max, valid cells) are those of the
// cells put, computed as run_import computes them (scan_doubles over the cells inside the raster).
// Memory: tiles_x * tiles_y * t^2 * cell size bytes for the cells (bytes_for), reserved from the
// budget by the constructor before anything is allocated, plus one byte per tile and one tile of
// doubles (put_tile's padded copy of an edge tile); pages of tiles never put stay untouched.
// Threads: put_tile from several threads at once for distinct tiles (the statistics are merged under
// a lock; min, max and count do not depend on the order); read_tile from any number once every
// tile is put.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/cell_values.h"
#include "io/store/raster_info.h"
#include "io/store/tile_store.h"

namespace terrazo {

class InMemoryTileInput final : public TileInput {
 public:
  // The cells' bytes for `info`'s raster in tiles of `tile` (what the constructor reserves).
  static std::uint64_t bytes_for(const RasterInfo& info, std::uint32_t tile);

  // Reserves bytes_for(info, tile) from `budget` as "input tiles in memory" (Error when it does not fit).
  InMemoryTileInput(const RasterInfo& info, std::uint32_t tile, MemoryBudget& budget);
  InMemoryTileInput(const InMemoryTileInput&) = delete;
  InMemoryTileInput& operator=(const InMemoryTileInput&) = delete;

  // Tile (tx, ty) from t*t doubles, row-major, NaN = nodata; cells outside the raster are ignored.
  // Throws Error as doubles_to_cells does (a value the type cannot hold).
  void put_tile(std::uint32_t tx, std::uint32_t ty, const double* cells);
  // put_tile without the round trip through doubles, for integer rasters (Error otherwise): `read`
  // writes the tile's cells inside the raster into their place, in the raster's type as the file
  // holds them, rows t cells apart (GeoTiffTileInput::read_tile_cells); the padding, the statistics
  // and the presence follow as put_tile's. For an integer type the round trip is the identity
  // (doubles_to_cells(cells_to_doubles(c)) == c: nodata -> NaN -> the same nodata value), so the
  // tile holds the bytes put_tile would store, and read_tile returns the same doubles.
  // Threads: as put_tile.
  void put_tile_cells(std::uint32_t tx, std::uint32_t ty, const std::function<void(void* cells)>& read);
  // The raster's description with the statistics of the cells put (has_stats true once any was put).
  const RasterInfo& info() const { return info_; }
  // What the loader read from the file to fill it (reported as this input's bytes read).
  void set_bytes_read(std::uint64_t bytes) { bytes_read_ = bytes; }

  const TileGrid& grid() const override { return grid_; }
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const override;
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const override;
  std::uint64_t bytes_read() const override { return bytes_read_; }

 private:
  RasterInfo info_;
  TileGrid grid_;
  NodataRule rule_;
  std::uint64_t tile_bytes_ = 0;
  MemoryBudget::Reservation reservation_;
  // Tile (tx, ty) at (ty * tiles_x + tx) * tile_bytes_: an anonymous mapping advised for huge
  // pages (a page fault per 2 MiB instead of per 4 KiB where the kernel allows it).
  struct Mapping {
    void* address = nullptr;
    std::uint64_t bytes = 0;
    ~Mapping();
  };
  Mapping mapping_;
  unsigned char* cells_ = nullptr;
  std::vector<unsigned char> present_;
  void merge_stats(const CellStats& tile);
  std::mutex stats_mutex_;
  CellStats stats_;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace terrazo
