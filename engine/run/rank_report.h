// engine/run/rank_report.h: what each rank of a distributed run did, for the `ranks` key of a
// command's --json summary (docs/distributed.md "--json").
//
// Every rank fills a RankReport (the same phase names, in the same order, on every rank); rank 0
// gathers them (one small message per rank) and writes
//   "ranks": {"count": N, "tiles": [...], "weight": [...], "peak_rss_bytes": [...],
//             "bytes_sent": [...], "bytes_received": [...], "phases": {"<name>": [s0, s1, ...], ...}}
// with one array element per rank, in rank order.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct RankReport {
  std::uint64_t tiles = 0, weight = 0;  // owned tiles and their weight (engine/run/tile_ownership.h)
  std::uint64_t peak_rss_bytes = 0, bytes_sent = 0, bytes_received = 0;
  std::vector<std::pair<std::string, double>> phases;  // seconds
};

// This rank's report: its tiles and their weight in `ownership`, its peak RSS so far, the bytes it
// sent and received, and its phases' seconds.
RankReport rank_report(const TileOwnership& ownership, int rank, std::uint64_t bytes_sent, std::uint64_t bytes_received,
                       std::vector<std::pair<std::string, double>> phases);

// Every rank's report, at rank 0 in rank order; empty on the other ranks. A collective.
std::vector<RankReport> gather_rank_reports(Communicator& comm, const RankReport& mine);
JsonObject ranks_json(const std::vector<RankReport>& reports);

}  // namespace terrazo
