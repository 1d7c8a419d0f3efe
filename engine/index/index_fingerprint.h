// engine/index/index_fingerprint.h: whether an index (.tzi) was built from INPUT's cells, checked
// before a query answers from it (docs/index.md "Fingerprint").
//
// Contract: returns when the index's store fingerprint equals `store`'s content fingerprint (INPUT
// read as that tile store: O(tiles) from its tile index, no cell read), or else when the values
// fingerprint of INPUT's tiles (each tile's cells as doubles, NaN canonical, absent tiles all NaN:
// as the build hashed them) equals the index's (one read of every tile and a CRC32 of its cells:
// the other cell type or nodata value of the same values is accepted). Otherwise an Error naming
// the index, INPUT, both values fingerprints and the first tile that differs. An INPUT of another
// size or tile is not checked here: check_index_fits (engine/index/gprime_exchange.h) refuses it
// with a usage error naming both sizes.
// Memory: one tile of doubles and 4 bytes per tile, reserved from `budget`, only in the fallback.
#pragma once
#include <string>

#include "engine/tile_inputs/tile_input.h"
#include "io/store/index_file.h"
#include "io/store/tile_store.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

// `store`: INPUT's tile store when it is read as one (else nullptr: the fallback always runs).
void check_index_raster(const IndexFile& index, const std::string& index_path, const TileInput& input,
                        const TileStore* store, const std::string& input_path, MemoryBudget& budget);

}  // namespace terrazo
