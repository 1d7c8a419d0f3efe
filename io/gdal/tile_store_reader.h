// io/gdal/tile_store_reader.h: a tile store seen as a RasterReader, so that every entry point that takes
// "any raster" (import with another tile size, export, info) also takes a .tzs.
//
// read_window reads each tile the window overlaps (checksums verified) through one tile buffer of
// t*t doubles (resident_bytes) and copies the overlap; windows aligned to the store's tiles read
// every tile exactly once. Any window order is allowed. bytes_read() is the store's own count of
// bytes read from disk. info() is the store's, with has_stats false (RasterReader's rule).
#pragma once
#include <memory>
#include <string>

#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"

namespace terrazo {

// `budget`: the store's tile index is reserved from it (TileStore::open).
std::unique_ptr<RasterReader> open_tile_store_reader(const std::string& path, MemoryBudget* budget = nullptr);

}  // namespace terrazo
