// engine/run/rank_report.cpp: rank_report, gather_rank_reports and ranks_json (engine/run/rank_report.h).
#include "engine/run/rank_report.h"

#include <cstring>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {
namespace {
constexpr std::size_t kCounts = 5;
}  // namespace

RankReport rank_report(const TileOwnership& ownership, int rank, std::uint64_t bytes_sent, std::uint64_t bytes_received,
                       std::vector<std::pair<std::string, double>> phases) {
  RankReport report;
  report.tiles = ownership.tiles(rank);
  report.weight = ownership.weight(rank);
  report.peak_rss_bytes = peak_rss_bytes();
  report.bytes_sent = bytes_sent;
  report.bytes_received = bytes_received;
  report.phases = std::move(phases);
  return report;
}

std::vector<RankReport> gather_rank_reports(Communicator& comm, const RankReport& mine) {
  // Five counts, then the phases' seconds (their names are rank 0's).
  std::vector<std::uint8_t> bytes((kCounts + mine.phases.size()) * 8);
  const std::uint64_t counts[kCounts] = {mine.tiles, mine.weight, mine.peak_rss_bytes, mine.bytes_sent, mine.bytes_received};
  std::memcpy(bytes.data(), counts, sizeof counts);
  for (std::size_t i = 0; i < mine.phases.size(); ++i) std::memcpy(&bytes[(kCounts + i) * 8], &mine.phases[i].second, 8);
  const std::vector<std::vector<std::uint8_t>> all = comm.gather(bytes, 0);
  std::vector<RankReport> reports;
  for (const auto& theirs : all) {
    if (theirs.size() != bytes.size()) throw Error("internal error: the ranks' reports differ in size");
    RankReport r;
    std::uint64_t c[kCounts];
    std::memcpy(c, theirs.data(), sizeof c);
    r.tiles = c[0], r.weight = c[1], r.peak_rss_bytes = c[2], r.bytes_sent = c[3], r.bytes_received = c[4];
    r.phases = mine.phases;
    for (std::size_t i = 0; i < r.phases.size(); ++i) std::memcpy(&r.phases[i].second, &theirs[(kCounts + i) * 8], 8);
    reports.push_back(std::move(r));
  }
  return reports;
}

JsonObject ranks_json(const std::vector<RankReport>& reports) {
  JsonObject json;
  json.add("count", reports.size());
  auto column = [&](std::uint64_t RankReport::*field) {
    std::vector<std::uint64_t> values;
    for (const auto& r : reports) values.push_back(r.*field);
    return values;
  };
  json.add("tiles", column(&RankReport::tiles))
      .add("weight", column(&RankReport::weight))
      .add("peak_rss_bytes", column(&RankReport::peak_rss_bytes))
      .add("bytes_sent", column(&RankReport::bytes_sent))
      .add("bytes_received", column(&RankReport::bytes_received));
  JsonObject phases;
  for (std::size_t i = 0; !reports.empty() && i < reports[0].phases.size(); ++i) {
    std::vector<double> seconds;
    for (const auto& r : reports) seconds.push_back(r.phases[i].second);
    phases.add(reports[0].phases[i].first, seconds);
  }
  json.add("phases", phases);
  return json;
}

}  // namespace terrazo
