// engine/mst/rank_stages.cpp: the MST stages that differ on ranks (engine/mst/rank_stages.h).
#include "engine/mst/rank_stages.h"

#include <memory>
#include <string>

#include "engine/mst/distributed_output.h"
#include "engine/mst/merge_ranks.h"

namespace terrazo {

std::vector<std::uint64_t> own_order(std::vector<std::uint64_t> order, const MstPhaseOptions& options) {
  if (!options.distributed()) return order;
  const int r = options.comm->rank();
  return std::vector<std::uint64_t>(order.begin() + static_cast<std::ptrdiff_t>(options.ownership->begin(r)),
                                    order.begin() + static_cast<std::ptrdiff_t>(options.ownership->end(r)));
}

void plan_rank_messages(const TileGrid& grid, const MstPhaseOptions& options, MemoryPlan& plan) {
  if (!options.distributed()) return;
  const std::uint64_t window = 32 + static_cast<std::uint64_t>(grid.tile) * grid.tile;
  plan.need("the MST merge phase", "summary messages between ranks", summary_mail_bound(grid));
  const std::string phase = "the MST expansion's messages between ranks";
  plan.need(phase, options.comm->root() ? "a window from another rank" : "a window to rank 0", window);
  if (!options.edge_list.empty()) plan.need(phase, "the edge list's chunks", 2 * kEdgeListChunk);
}

namespace {
// The scratch file of this rank's part of the edge list.
std::string edge_list_part(const MstPhaseOptions& options) { return options.scratch_dir + "/mst_edge_list_part"; }
}  // namespace

ExpansionTotals run_rank_expansion(const TileInput& source, const std::vector<std::uint64_t>& order,
                                   const MstPhaseOptions& options, ExternalSorter& records, MemoryBudget& budget,
                                   Progress& progress, MstWindowSink* sink, MstPhaseResult& result) {
  if (!options.distributed()) return run_expansion(source, order, options, records, budget, progress, sink);
  Communicator& comm = *options.comm;
  MstPhaseOptions own = options;  // this rank's edge list part in its run directory
  if (!options.edge_list.empty()) own.edge_list = edge_list_part(options), own.edge_list_output = nullptr;
  std::unique_ptr<MstWindowGatherer> gatherer;
  std::unique_ptr<MstWindowSender> sender;
  if (comm.root()) gatherer = std::make_unique<MstWindowGatherer>(comm, *options.ownership, source.grid(), sink, order.size());
  else sender = std::make_unique<MstWindowSender>(comm, order.size());
  MstWindowSink* windows = gatherer ? static_cast<MstWindowSink*>(gatherer.get()) : sender.get();
  ExpansionTotals totals = run_expansion(source, order, own, records, budget, progress, windows);
  if (gatherer) {
    gatherer->finish();
    result.bytes_received += gatherer->bytes_received();
  }
  if (sender) result.bytes_sent += sender->bytes_sent();
  if (!options.edge_list.empty()) {
    const EdgeListGather gathered = gather_edge_lists(comm, edge_list_part(options), options.edge_list_output, budget);
    totals.bytes_written += gathered.written;
    result.bytes_sent += gathered.sent;
    result.bytes_received += gathered.received;
  }
  return totals;
}

void sum_over_ranks(const MstPhaseOptions& options, std::vector<std::uint64_t>& values) {
  if (options.distributed()) options.comm->all_reduce(values.data(), values.size(), ReduceOp::Sum);
}

// Low 32 bits and the rest: sums of up to 2^32 ranks stay exact below 2^96.
void split_u128(unsigned __int128 value, std::vector<std::uint64_t>& out) {
  out.push_back(static_cast<std::uint64_t>(value & 0xffffffffu));
  out.push_back(static_cast<std::uint64_t>(value >> 32));
}

unsigned __int128 join_u128(const std::uint64_t* words) {
  return (static_cast<unsigned __int128>(words[1]) << 32) + words[0];
}

}  // namespace terrazo
