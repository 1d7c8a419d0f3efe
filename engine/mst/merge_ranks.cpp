// engine/mst/merge_ranks.cpp: MstRanks, SummaryMail, RemoteRecords (engine/mst/merge_ranks.h).
#include "engine/mst/merge_ranks.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "kernels/common/error.h"

namespace terrazo {
namespace {
constexpr int kSummaryTag = 0x6d01, kRecordTag = 0x6d02;
constexpr std::uint64_t kRecordChunk = 4096;  // remote records reserved at a time
static_assert(std::is_trivially_copyable<SummaryEdge>::value, "SummaryEdge crosses ranks as bytes");
static_assert(std::is_trivially_copyable<SortRecord>::value, "SortRecord crosses ranks as bytes");

// Header: level, cx, cy, edge count, ring lengths top, bottom, left, right (8 x u64); then the
// edges (32 bytes each) and the ring values (doubles) top, bottom, left, right.
std::vector<std::uint8_t> encode_summary(const ClusterSummary& s) {
  const std::vector<double>* ring[4] = {&s.ring.top, &s.ring.bottom, &s.ring.left, &s.ring.right};
  const std::uint64_t header[8] = {s.level, s.cx, s.cy, s.edges.size(),
                                   ring[0]->size(), ring[1]->size(), ring[2]->size(), ring[3]->size()};
  std::uint64_t bytes = sizeof header + s.edges.size() * sizeof(SummaryEdge);
  for (const auto* part : ring) bytes += part->size() * sizeof(double);
  std::vector<std::uint8_t> message(bytes);
  std::uint8_t* at = message.data();
  auto put = [&at](const void* data, std::uint64_t n) {
    if (n) std::memcpy(at, data, n);
    at += n;
  };
  put(header, sizeof header);
  put(s.edges.data(), s.edges.size() * sizeof(SummaryEdge));
  for (const auto* part : ring) put(part->data(), part->size() * sizeof(double));
  return message;
}

ClusterSummary decode_summary(const std::vector<std::uint8_t>& message) {
  std::uint64_t header[8];
  if (message.size() < sizeof header) throw Error("mst: internal error: a short summary message");
  std::memcpy(header, message.data(), sizeof header);
  std::uint64_t bytes = sizeof header + header[3] * sizeof(SummaryEdge);
  for (int i = 0; i < 4; ++i) bytes += header[4 + i] * sizeof(double);
  if (bytes != message.size()) throw Error("mst: internal error: a torn summary message");
  ClusterSummary s;
  s.level = static_cast<std::uint32_t>(header[0]);
  s.cx = header[1];
  s.cy = header[2];
  const std::uint8_t* at = message.data() + sizeof header;
  s.edges.resize(header[3]);
  if (header[3]) std::memcpy(s.edges.data(), at, header[3] * sizeof(SummaryEdge));
  at += header[3] * sizeof(SummaryEdge);
  std::vector<double>* ring[4] = {&s.ring.top, &s.ring.bottom, &s.ring.left, &s.ring.right};
  for (int i = 0; i < 4; ++i) {
    ring[i]->resize(header[4 + i]);
    if (header[4 + i]) std::memcpy(ring[i]->data(), at, header[4 + i] * sizeof(double));
    at += header[4 + i] * sizeof(double);
  }
  return s;
}
}  // namespace

// ---- which rank merges which cluster ------------------------------------------------------------

int MstRanks::merger(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
  return tile_owner(cx << level, cy << level);
}

int MstRanks::last_owner(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
  const std::uint64_t x_end = std::min<std::uint64_t>((cx + 1) << level, grid_.tiles_x());
  const std::uint64_t y_end = std::min<std::uint64_t>((cy + 1) << level, grid_.tiles_y());
  return tile_owner(x_end - 1, y_end - 1);
}

bool MstRanks::involved(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
  return merger(level, cx, cy) <= me() && me() <= last_owner(level, cx, cy);
}

bool MstRanks::wholly_mine(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
  return merger(level, cx, cy) == me() && last_owner(level, cx, cy) == me();
}

int MstRanks::record_owner(std::uint64_t key, std::uint32_t shift) const {
  std::uint32_t tx = 0, ty = 0;
  morton_decode(key >> shift, &tx, &ty);
  return tile_owner(tx, ty);
}

std::uint64_t summary_mail_bound(const TileGrid& grid) {
  return 1728 * (std::max(grid.width, grid.height) + grid.tile);
}

// ---- the child summaries ---------------------------------------------------------------------

SummaryMail::~SummaryMail() {
  // Unwinding: a message not delivered is left to MPI_Abort, which ends the job.
  pending_.clear();
}

void SummaryMail::drop_delivered() {
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [](Pending& p) { return p.message->done(); }),
                 pending_.end());
}

void SummaryMail::send_child(int to, std::uint32_t level, std::uint64_t cx, std::uint64_t cy,
                             const ClusterSummary& child) {
  drop_delivered();
  std::vector<std::uint8_t> message = encode_summary(child);
  const std::uint64_t header[3] = {level, cx, cy};
  std::memcpy(message.data(), header, sizeof header);
  Pending p;
  p.reservation = budget_.reserve(message.size(), "MST summary messages between ranks");
  bytes_sent_ += message.size();
  p.message = comm_.isend(to, kSummaryTag, std::move(message));
  pending_.push_back(std::move(p));
}

ClusterSummary SummaryMail::receive_child(int from, std::uint32_t level, std::uint64_t cx, std::uint64_t cy) {
  const std::vector<std::uint8_t> message = comm_.recv(from, kSummaryTag);
  bytes_received_ += message.size();
  ClusterSummary s = decode_summary(message);
  if (s.level != level || s.cx != cx || s.cy != cy) {
    throw Error("mst: internal error: rank " + std::to_string(from) + " sent the summary of cluster " +
                std::to_string(s.level) + "/" + std::to_string(s.cx) + "," + std::to_string(s.cy) + ", not " +
                std::to_string(level) + "/" + std::to_string(cx) + "," + std::to_string(cy));
  }
  return s;
}

void SummaryMail::finish() {
  for (Pending& p : pending_) p.message->wait();
  pending_.clear();
}

// ---- the records of other ranks' tiles -----------------------------------------------------------

RemoteRecords::RemoteRecords(const MstRanks& ranks, MemoryBudget& budget)
    : ranks_(ranks), budget_(budget), out_(ranks.comm().size()) {}

bool RemoteRecords::take(const SortRecord& record, std::uint32_t shift) {
  const int owner = ranks_.record_owner(record.key, shift);
  if (owner == ranks_.me()) return false;
  if (held_records_ == reserved_records_) {
    // Twice the records: a vector's capacity doubles as it grows.
    held_.push_back(budget_.reserve(2 * kRecordChunk * sizeof(SortRecord), "MST expansion records for other ranks"));
    reserved_records_ += kRecordChunk;
  }
  out_[owner].push_back(record);
  ++held_records_;
  return true;
}

void RemoteRecords::exchange(ExternalSorter& records) {
  Communicator& comm = ranks_.comm();
  std::vector<std::unique_ptr<Communicator::Message>> sent;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) continue;
    std::vector<std::uint8_t> message(out_[r].size() * sizeof(SortRecord));
    if (!message.empty()) std::memcpy(message.data(), out_[r].data(), message.size());
    bytes_sent_ += message.size();
    sent.push_back(comm.isend(r, kRecordTag, std::move(message)));
  }
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) continue;
    const std::vector<std::uint8_t> message = comm.recv(r, kRecordTag);
    if (message.size() % sizeof(SortRecord) != 0) throw Error("mst: internal error: a torn record message");
    auto held = budget_.reserve(message.size(), "MST expansion records from other ranks");
    bytes_received_ += message.size();
    for (std::size_t at = 0; at < message.size(); at += sizeof(SortRecord)) {
      SortRecord record;
      std::memcpy(&record, message.data() + at, sizeof record);
      records.push(record);
    }
  }
  for (auto& m : sent) m->wait();
  out_.assign(out_.size(), {});
  held_.clear();
  held_records_ = reserved_records_ = 0;
}

}  // namespace terrazo
