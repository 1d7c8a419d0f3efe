// io/store/tile_store_retile.h: a tile store copied into another tile size, cell for cell in the store's
// own type, on several threads (`terrazo import` of a .tzs, and the index and od-matrix, which want
// tiles of 64 from a store of 256).
//
// The two tile sizes are powers of two, so one divides the other. The work goes by units of the
// larger size: a unit's source tiles are read raw (checksums and statistics checked by
// TileStore::read_tile_raw) into one unit buffer, and the unit's output tiles are cut from it and
// written with TileStoreWriter::write_tile_raw, which puts each at its Z-order slot whatever the order
// of writing. So every source tile is read once, nothing is converted to doubles, and the store
// written is byte for byte the one the generic import (engine/raster_inputs/raster_io.h run_import through a
// RasterReader) writes.
//
// Memory: per thread one unit buffer (max(T, t)^2 cells of the store's type) and the writer's padded
// copy of an edge tile (t^2 cells), reserved from `budget` before anything is read; fewer threads
// when the budget holds fewer units.
#pragma once
#include <cstdint>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/store/tile_store.h"

namespace terrazo {

struct RetileResult {
  std::uint64_t units = 0;    // units of max(T, t)^2 cells handled
  unsigned threads = 0;       // threads used
  std::uint64_t buffer_bytes = 0;
};

// Writes every tile of `writer` (whose grid has the source's width and height) from `source`;
// `threads` 0: all cores. Progress: phase `phase`, one step per unit. The caller sets the statistics
// and finishes the writer.
RetileResult retile_tile_store(const TileStore& source, TileStoreWriter& writer, unsigned threads, MemoryBudget& budget,
                               Progress& progress, const char* phase = "import");

}  // namespace terrazo
