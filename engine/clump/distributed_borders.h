// engine/clump/distributed_borders.h: the exchange between phases 1 and 2 of a distributed
// `terrazo clump` (engine/clump/phases.h, docs/distributed.md "clump").
//
// After phase 1 each rank holds the border records and border regions of its own tiles
// (TileOwnership). share_clump_borders gives every rank those of every tile, so that each holds the
// records file and the in-memory BorderTable that one process holds after phase 1, byte for byte;
// phase 2 (the union-find over the border regions) then runs on every rank alike and gives every
// rank the same roots, and phase 3 numbers every tile row the same way on every rank (it needs
// only the records' per-row starts and the table), relabelling only its own tiles. The numbering
// in raster order of first cells is therefore the one process's without a further message.
// Messages: one all-reduce of a count per tile (region count + 1 for a present tile, 0 for an
// absent one: the table's offsets and the records' presence), then each rank in turn broadcasts
// its tiles, in chunks of at most kChunkBytes (at least one tile): per present tile its index, its
// record (52 t bytes: ring, ring keys, per-row starts) and its border regions (24 bytes each).
// Every rank receives 52 t bytes per present tile + 24 per border region in all.
// Memory: the border table in memory on every rank (36 bytes per border region; a table that does
// not fit is a BudgetError: the external merge is not distributed yet) and one chunk.
// Also sums the tile totals (interior regions, labelled cells; the largest interior region's max).
#pragma once
#include <cstdint>

#include "engine/clump/border_table.h"
#include "engine/clump/phase1_tile_labels.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

struct ClumpShareTotals {
  std::uint64_t bytes_sent = 0, bytes_received = 0;
};

ClumpShareTotals share_clump_borders(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid,
                                     BorderRecords& records, BorderTable& table, ClumpTileTotals& totals,
                                     MemoryBudget& budget);

}  // namespace terrazo
