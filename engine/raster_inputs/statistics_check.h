// engine/raster_inputs/statistics_check.h: a tile store's header statistics checked against every
// stored tile before a run publishes results computed at a scale set by them (docs/reliability.md
// "Stored statistics"), in one process or on ranks that each read only their own tiles
// (docs/distributed.md "Faults").
#pragma once
#include <string>

#include "engine/raster_inputs/pipeline_input.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

// One process (or no ownership): the stored tiles the run did not read are read now
// (PipelineInput::check_unseen_tiles). Several ranks: each reads the tiles it owns that it did not
// read (one tile of scratch from `budget`), and rank 0 merges the ranks' shares
// (TileStore::statistics_share) and checks them against the header; when they disagree, or a tile
// is damaged, every rank throws. Every rank calls it: two agreed stages, "COMMAND: checking the
// input" and "COMMAND: checking the input's statistics". No-op for inputs that are not a tile store
// with statistics.
void check_input_statistics(const PipelineInput& input, Communicator& comm, const TileOwnership* ownership,
                            MemoryBudget& budget, const std::string& command);

}  // namespace terrazo
