// engine/mst/merge_ranks.h: the ranks of a distributed MST merge (`mpirun -np N terrazo mst`,
// docs/distributed.md "mst"): which rank merges which cluster of the 2x2 quadtree, the child
// summaries sent up the tree, and the merge decisions sent back to the ranks owning their tiles.
//
// Source: [Gerritsen2012, ch. 2-3] for the merge itself (engine/mst/merge_step.h); the tree over
// ranks is the Z-order quadtree cut by the ownership (engine/run/tile_ownership.h).
//
// Contract. Every rank owns a contiguous Z-order range of tiles. A level-k cluster's tiles are a
// contiguous Z range too, from its first tile (its top-left, the least Morton code) to its last (the
// bottom-right one inside the grid: Morton codes grow with x and with y); so the ranks holding its
// tiles are the interval [owner(first), owner(last)] (span()).
//  - A cluster whose tiles are all one rank's is merged there, from that rank's own summaries,
//    without a message (the lower levels: each rank's range is a union of aligned blocks).
//  - A cluster spanning several ranks is merged on the rank owning its first tile (merger()); each
//    child whose first tile another rank owns is merged (or read) on that rank and its summary sent
//    to the merger: one message per such child (send_child / receive_child, tag kSummaryTag, a
//    header naming the child, checked on receipt). Every rank walks the quadtree in the same
//    post-order, so each pair of ranks sends and receives these messages in the same order (MPI's
//    non-overtaking rule keeps it). Messages only go from a higher rank to a lower one (a child's
//    first tile is at or after its parent's), so every wait is on a higher rank: no cycle, no
//    deadlock; the sends are non-blocking and held until done (their bytes reserved from the budget).
//  - The expansion records a merge makes for another rank's tile (kept crossing edges and dropped
//    reps; at spanning merges only) are held (RemoteRecords) and, after the merge, sent to the rank
//    owning that tile: one message from every rank to every other (empty when none), tag kRecordTag.
// Exactness: the merges are the same steps on the same summaries as one process's (merge_clusters
// is a function of its children's summaries, and the MSF is unique under the total edge order), so
// the decisions, hence the records each tile receives, are one process's.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/mst/merge_step.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"
#include "io/store/external_sorter.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

class MstRanks {
 public:
  MstRanks(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid)
      : comm_(comm), ownership_(ownership), grid_(grid) {}
  Communicator& comm() const { return comm_; }
  int me() const { return comm_.rank(); }
  // The rank merging cluster (level, cx, cy): the owner of its first tile.
  int merger(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const;
  // The owner of its last tile in Z-order.
  int last_owner(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const;
  // This rank holds some of its tiles (or lies between ranks that do).
  bool involved(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const;
  // All of its tiles are this rank's.
  bool wholly_mine(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const;
  // The owner of the tile an expansion record names (`shift`: expansion_record_shift(t)).
  int record_owner(std::uint64_t key, std::uint32_t shift) const;

 private:
  int tile_owner(std::uint64_t tx, std::uint64_t ty) const { return ownership_.owner(ty * grid_.tiles_x() + tx); }
  Communicator& comm_;
  const TileOwnership& ownership_;
  TileGrid grid_;
};

// The child summaries sent up the tree, held until sent; bytes counted.
class SummaryMail {
 public:
  SummaryMail(Communicator& comm, MemoryBudget& budget) : comm_(comm), budget_(budget) {}
  ~SummaryMail();
  // The summary of child (level, cx, cy), named in its header, to rank `to`.
  void send_child(int to, std::uint32_t level, std::uint64_t cx, std::uint64_t cy, const ClusterSummary& child);
  // The summary of child (level, cx, cy) from rank `from`.
  ClusterSummary receive_child(int from, std::uint32_t level, std::uint64_t cx, std::uint64_t cy);
  // Waits until every message sent is delivered.
  void finish();
  std::uint64_t bytes_sent() const { return bytes_sent_; }
  std::uint64_t bytes_received() const { return bytes_received_; }

 private:
  void drop_delivered();
  struct Pending {
    std::unique_ptr<Communicator::Message> message;
    MemoryBudget::Reservation reservation;
  };
  Communicator& comm_;
  MemoryBudget& budget_;
  std::vector<Pending> pending_;
  std::uint64_t bytes_sent_ = 0, bytes_received_ = 0;
};

// The expansion records of other ranks' tiles, sent to their owners after the merge.
class RemoteRecords {
 public:
  RemoteRecords(const MstRanks& ranks, MemoryBudget& budget);
  // Whether `record` is another rank's; if so it is kept for that rank.
  bool take(const SortRecord& record, std::uint32_t shift);
  // Every rank's records for this rank's tiles into `records`; this rank's for the others sent. A
  // collective (every rank calls it once, after the merge).
  void exchange(ExternalSorter& records);
  std::uint64_t bytes_sent() const { return bytes_sent_; }
  std::uint64_t bytes_received() const { return bytes_received_; }

 private:
  const MstRanks& ranks_;
  MemoryBudget& budget_;
  std::vector<std::vector<SortRecord>> out_;  // per rank
  std::vector<MemoryBudget::Reservation> held_;
  std::uint64_t held_records_ = 0, reserved_records_ = 0;
  std::uint64_t bytes_sent_ = 0, bytes_received_ = 0;
};

// What the post-order merge (engine/mst/phase2_merge_post_order.h) of a distributed run uses.
struct MstMergeRanks {
  const MstRanks& ranks;
  SummaryMail& mail;
  RemoteRecords& remote;
};

// Bytes a rank may hold in summary messages at once, for the memory plan: per level at most two
// clusters span its range's ends, each with at most three children sent or received, a level-k
// child summary under 288 bytes per cell of its side (8 s ring cells' edges at 32 bytes, 4 s ring
// values at 8); summed over the levels, under 1728 x the raster's longer side (+ one tile).
std::uint64_t summary_mail_bound(const TileGrid& grid);

}  // namespace terrazo
