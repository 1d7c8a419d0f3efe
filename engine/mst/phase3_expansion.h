// engine/mst/phase3_expansion.h: phase 3 of the MST pipeline: per tile in Z-order, the edge raster
// window = the tile's forest bits (scratch file mst_forest.bits, phase 1) + the "in" records - the
// "out" records of the merge (`records`, finished, sorted by expansion key: one tile's records are
// contiguous); handed to `sink` (optional) exactly once per tile, and with options.edge_list the
// binary edge list (a, b as u64 cell indices, weight u32; written to a partial file of its own,
// renamed when complete: io/store/atomic_output.h). Progress: "mst: expansion", tiles done of order.size(). The proof that this is the
// MSF: engine/mst/merge_step.h.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/mst/phases.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/external_sorter.h"

namespace terrazo {

struct ExpansionTotals {
  std::uint64_t edges = 0;  // forest edges counted in the windows
  std::uint64_t bytes_read = 0, bytes_written = 0;  // the forest bits; the edge list
};

ExpansionTotals run_expansion(const TileInput& source, const std::vector<std::uint64_t>& order,
                              const MstPhaseOptions& options, ExternalSorter& records, MemoryBudget& budget,
                              Progress& progress, MstWindowSink* sink);

}  // namespace terrazo
