// engine/raster_inputs/geotiff_tile_input.h: a tiled GeoTIFF read straight as the pipelines' TileInput
// (engine/tile_inputs/tile_input.h), without importing it into a tile store first: `terrazo clump` uses it when
// INPUT is a GeoTIFF whose blocks tile its t x t tiles (square blocks, t a multiple of the block
// edge), so every block is decoded once per phase that reads it.
//
// sssp and mst need the raster's statistics (the weight scale) and skip tiles without a valid cell:
// scan() reads every tile once, computes min, max and valid cells as run_import does (scan_doubles
// over the cells inside the raster) and marks the tiles with no valid cell absent, as a store does;
// without it (clump) every tile is present and info() has no statistics.
//
// GDAL datasets are not thread-safe: each thread that reads gets its own RasterReader (opened on
// its first read, kept until the input is destroyed); tile reads of different threads never share
// a block. Every tile is present (the store's absent tiles are an import-time index); padding and
// nodata read as NaN. Memory: GDAL's block cache is the caller's (GdalCacheLimit); the readers hold
// nothing else (RasterReader::resident_bytes is 0 for GDAL rasters).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "kernels/common/progress.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/gdal/gdal_raster.h"

namespace terrazo {

class GeoTiffTileInput : public TileInput {
 public:
  // Null when `path` is not a GeoTIFF whose blocks tile t x t tiles (the caller imports it then).
  static std::unique_ptr<GeoTiffTileInput> open_if_tiled(const std::string& path, std::uint32_t t);
  // The same with `reader`, band 1 of `path` already open (its info is the input's, CRS included):
  // taken as the first thread's reader when the file qualifies, left to the caller otherwise.
  static std::unique_ptr<GeoTiffTileInput> open_if_tiled(std::unique_ptr<RasterReader>& reader,
                                                         const std::string& path, std::uint32_t t);
  const TileGrid& grid() const override { return grid_; }
  const RasterInfo& info() const { return info_; }
  // Reads every tile once through `tile` (t*t doubles, the caller's); progress "import" per tile row.
  void scan(double* tile, Progress& progress);
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const override {
    return present_.empty() || present_[static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx] != 0;
  }
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const override;
  // Tile (tx, ty)'s cells inside the raster as the file holds them (RasterReader::read_window_cells),
  // rows t cells apart; the cells past the raster's edge are left as they are.
  void read_tile_cells(std::uint32_t tx, std::uint32_t ty, void* out) const;
  std::uint64_t bytes_read() const override;

 private:
  GeoTiffTileInput(std::string path, std::unique_ptr<RasterReader> first, std::uint32_t t);
  RasterReader& reader() const;
  std::string path_;
  RasterInfo info_;
  TileGrid grid_;
  std::vector<unsigned char> present_;  // after scan(): one byte per tile
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::thread::id, std::unique_ptr<RasterReader>> readers_;
  mutable std::unique_ptr<RasterReader> first_;  // the reader that opened the file, given to the first thread
};

}  // namespace terrazo
