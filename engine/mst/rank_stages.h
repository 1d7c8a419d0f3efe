// engine/mst/rank_stages.h: the stages of the MST pipeline that differ on ranks (docs/distributed.md
// "mst"), used by run_mst_phases (engine/mst/phases.h): the tiles a rank works on, the memory its
// messages take, the expansion with rank 0 gathering the outputs, and sums over the ranks.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/mst/phase3_expansion.h"
#include "engine/mst/phases.h"
#include "engine/run/memory_plan.h"
#include "io/store/external_sorter.h"

namespace terrazo {

// The Z-order positions of `order` this rank owns (all of them in one process).
std::vector<std::uint64_t> own_order(std::vector<std::uint64_t> order, const MstPhaseOptions& options);

// Distributed: the merge's summary messages and the expansion's window and edge-list messages,
// declared in `plan` (assigned by the caller).
void plan_rank_messages(const TileGrid& grid, const MstPhaseOptions& options, MemoryPlan& plan);

// Phase 3 on this rank's tiles (`order`); distributed, its windows go to rank 0, whose `sink`
// receives every rank's in Z-order, and the edge list is gathered into options.edge_list_output
// (rank 0). Adds the messages' bytes to `result`.
ExpansionTotals run_rank_expansion(const TileInput& source, const std::vector<std::uint64_t>& order,
                                   const MstPhaseOptions& options, ExternalSorter& records, MemoryBudget& budget,
                                   Progress& progress, MstWindowSink* sink, MstPhaseResult& result);

// Element-wise sums over the ranks (in place; nothing in one process). 128-bit values as two words.
void sum_over_ranks(const MstPhaseOptions& options, std::vector<std::uint64_t>& values);
void split_u128(unsigned __int128 value, std::vector<std::uint64_t>& out);  // appends 2 words
unsigned __int128 join_u128(const std::uint64_t* words);

}  // namespace terrazo
