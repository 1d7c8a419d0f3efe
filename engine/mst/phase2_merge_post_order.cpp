// engine/mst/phase2_merge_post_order.cpp: the Z-order post-order merge (engine/mst/phase2_merge_post_order.h).
#include "engine/mst/phase2_merge_post_order.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "kernels/common/bits.h"
#include "kernels/common/error.h"
#include "engine/mst/merge_step.h"
#include "engine/mst/summary_file.h"

namespace terrazo {
namespace {

// Phase 2: the Z-order post-order merge. The clusters of the split level (about 4 x threads of them)
// are merged in parallel, each from its own reader positioned at its first tile's summary, with its
// own record buffer; the levels above them run on the calling thread.
class MergePass {
 public:
  MergePass(const TileGrid& grid, const WeightParams& params, Connectivity connectivity, std::string summaries_path,
            const std::vector<std::uint64_t>& offsets, ExternalSorter& records, MemoryBudget& budget,
            Progress& progress, WorkerPool& pool, const MstMergeRanks* ranks)
      : grid_(grid), params_(params), connectivity_(connectivity), summaries_path_(std::move(summaries_path)),
        offsets_(offsets), records_(records), budget_(budget), progress_(progress), pool_(pool), ranks_(ranks) {
    shift_ = expansion_record_shift(grid.tile);
    levels_ = ceil_log2(std::max(grid.tiles_x(), grid.tiles_y()));
    for (std::uint32_t k = 1; k <= levels_; ++k) {
      const std::uint64_t side = std::uint64_t{1} << k;
      total_merges_ += ((grid.tiles_x() + side - 1) / side) * ((grid.tiles_y() + side - 1) / side);
    }
  }

  std::uint32_t levels() const { return levels_; }

  void run() {
    progress_.update("mst: merge", 0, total_merges_);
    if (levels_ > 0) {
      // Split level: 4^d subtrees with 4^d >= 4 x threads (or the tiles themselves).
      std::uint32_t depth = 1;
      while ((std::uint64_t{1} << (2 * depth)) < 4ull * pool_.threads() && depth < levels_) ++depth;
      split_ = levels_ - depth;
      std::vector<Cluster> subtrees;
      collect(levels_, 0, 0, &subtrees);
      std::vector<Held> results(subtrees.size());
      pool_.run(subtrees.size(), [&](std::uint64_t i) {
        const Cluster c = subtrees[i];
        Lane lane(*this, offsets_[(c.cy << c.level) * grid_.tiles_x() + (c.cx << c.level)]);
        results[i] = lane.process(c.level, c.cx, c.cy);
        lane.finish();
      });
      if (ranks_) fault_point(ranks_->ranks.comm(), "mst: merge");
      Lane top(*this, std::nullopt);
      std::size_t next = 0;
      top.process_top(levels_, 0, 0, results, &next);
      top.finish();
    }
    if (overflow_) throw Error("internal error: a crossing edge weight overflowed after the weight check passed");
    progress_.update("mst: merge", total_merges_, total_merges_);
  }

  MergeBalance balance_;
  std::uint64_t bytes_read_ = 0;

 private:
  struct Held {
    std::unique_ptr<ClusterSummary> summary;
    MemoryBudget::Reservation reservation;
  };
  static constexpr std::size_t kLaneRecords = 4096;  // records buffered per lane before the sorter

  // One thread's merging: its summary reader, its records, its totals.
  class Lane : public MergeSink {
   public:
    Lane(MergePass& pass, std::optional<std::uint64_t> offset) : pass_(pass) {
      if (offset) {
        reader_ = std::make_unique<SequentialReader>(pass.summaries_path_, pass.budget_, kSummaryFileBufferBytes,
                                                     "MST summary buffer", *offset);
      }
      buffer_.reserve(kLaneRecords);
    }
    void dropped(const GlobalEdgeKey& rep) override {
      add(SortRecord{pass_.record_key(rep, 1), rep.weight});
      balance_.dropped(rep.weight);
    }
    void kept_crossing(const GlobalEdgeKey& edge) override {
      add(SortRecord{pass_.record_key(edge, 0), edge.weight});
      balance_.kept(edge.weight);
    }
    void finish() {
      std::lock_guard<std::mutex> lock(pass_.mutex_);
      for (const SortRecord& r : buffer_) pass_.push_record(r);
      buffer_.clear();
      pass_.balance_ += balance_;
      pass_.overflow_ = pass_.overflow_ || overflow_;
      if (reader_) pass_.bytes_read_ += reader_->bytes_read();
    }

    Held process(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) {
      if (level == 0) {
        ClusterSummary s = read_cluster_summary(*reader_, 0);
        if (s.cx != cx || s.cy != cy) {
          throw Error("internal error: tile summaries out of Z-order (expected tile " + std::to_string(cx) + "," +
                      std::to_string(cy) + ")");
        }
        return pass_.hold(std::move(s));
      }
      Held children[4];
      for (int q = 0; q < 4; ++q) {
        const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
        if (pass_.exists(level - 1, ccx, ccy)) children[q] = process(level - 1, ccx, ccy);
      }
      return merge(level, cx, cy, children);
    }

    // Levels above the subtrees: their results are taken in Z-order. Distributed: only the clusters
    // this rank holds tiles of; a cluster spanning ranks is merged by its merger alone (an empty
    // Held elsewhere), after the children's summaries moved (exchange_children).
    Held process_top(std::uint32_t level, std::uint64_t cx, std::uint64_t cy, std::vector<Held>& results,
                     std::size_t* next) {
      if (pass_.subtree(level, cx, cy)) return std::move(results[(*next)++]);
      Held children[4];
      for (int q = 0; q < 4; ++q) {
        const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
        if (pass_.exists(level - 1, ccx, ccy) && pass_.involved(level - 1, ccx, ccy))
          children[q] = process_top(level - 1, ccx, ccy, results, next);
      }
      if (pass_.ranks_ && !pass_.exchange_children(level, cx, cy, children)) return Held();
      return merge(level, cx, cy, children);
    }

   private:
    void add(const SortRecord& r) {
      buffer_.push_back(r);
      if (buffer_.size() < kLaneRecords) return;
      std::lock_guard<std::mutex> lock(pass_.mutex_);
      for (const SortRecord& b : buffer_) pass_.push_record(b);
      buffer_.clear();
    }

    Held merge(std::uint32_t level, std::uint64_t cx, std::uint64_t cy, Held (&children)[4]) {
      const ClusterSummary* child_ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
      for (int q = 0; q < 4; ++q) child_ptrs[q] = children[q].summary.get();
      const bool root = level == pass_.levels_;
      auto working = pass_.budget_.reserve(merge_working_bytes(child_ptrs), "MST merge graph");
      ClusterSummary parent;
      merge_clusters(pass_.grid_, level, cx, cy, child_ptrs, pass_.params_, pass_.connectivity_, root, *this, &parent,
                     &overflow_);
      working.release();
      for (auto& c : children) {
        c.summary.reset();
        c.reservation.release();
      }
      pass_.merged();
      return pass_.hold(std::move(parent));
    }

    MergePass& pass_;
    std::unique_ptr<SequentialReader> reader_;
    std::vector<SortRecord> buffer_;
    MergeBalance balance_;
    bool overflow_ = false;
  };

  struct Cluster {
    std::uint32_t level = 0;
    std::uint64_t cx = 0, cy = 0;
  };

  bool exists(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
    return (cx << level) < grid_.tiles_x() && (cy << level) < grid_.tiles_y();
  }
  // This rank holds tiles of the cluster (always, in one process).
  bool involved(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
    return !ranks_ || ranks_->ranks.involved(level, cx, cy);
  }
  // A subtree merged by one lane: at the split level (or below it, distributed, where the cluster
  // above spans ranks), all its tiles this rank's.
  bool subtree(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
    return level <= split_ && (!ranks_ || ranks_->ranks.wholly_mine(level, cx, cy));
  }

  // The subtrees, in Z-order.
  void collect(std::uint32_t level, std::uint64_t cx, std::uint64_t cy, std::vector<Cluster>* out) const {
    if (!involved(level, cx, cy)) return;
    if (subtree(level, cx, cy)) {
      out->push_back({level, cx, cy});
      return;
    }
    for (int q = 0; q < 4; ++q) {
      const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
      if (exists(level - 1, ccx, ccy)) collect(level - 1, ccx, ccy, out);
    }
  }

  // Distributed, before merging cluster (level, cx, cy): the children this rank merged go to the
  // cluster's merger, which receives the others' from their mergers. True on the merger.
  bool exchange_children(std::uint32_t level, std::uint64_t cx, std::uint64_t cy, Held (&children)[4]) {
    const MstRanks& ranks = ranks_->ranks;
    const int merger = ranks.merger(level, cx, cy);
    for (int q = 0; q < 4; ++q) {
      const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
      if (!exists(level - 1, ccx, ccy) || ranks.merger(level - 1, ccx, ccy) != ranks.me() || merger == ranks.me()) continue;
      ranks_->mail.send_child(merger, level - 1, ccx, ccy, *children[q].summary);
      children[q] = Held();
    }
    if (merger != ranks.me()) return false;
    for (int q = 0; q < 4; ++q) {
      const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
      if (!exists(level - 1, ccx, ccy)) continue;
      const int from = ranks.merger(level - 1, ccx, ccy);
      if (from != ranks.me()) children[q] = hold(ranks_->mail.receive_child(from, level - 1, ccx, ccy));
      if (!children[q].summary) throw Error("internal error: the MST merge lost a child summary on rank " + std::to_string(ranks.me()));
    }
    return true;
  }

  // A record of this rank's tiles to the sorter; another rank's kept for it (distributed).
  void push_record(const SortRecord& r) {
    if (!ranks_ || !ranks_->remote.take(r, shift_)) records_.push(r);
  }

  std::uint64_t record_key(const GlobalEdgeKey& key, std::uint64_t kind) const {
    return expansion_record_key(grid_, shift_, key, kind);
  }

  Held hold(ClusterSummary&& s) {
    Held h;
    h.summary = std::make_unique<ClusterSummary>(std::move(s));
    h.reservation = budget_.reserve(h.summary->heap_bytes() + sizeof(ClusterSummary), "MST cluster summaries");
    return h;
  }

  void merged() {
    std::lock_guard<std::mutex> lock(mutex_);
    progress_.update("mst: merge", ++merges_done_, total_merges_);
  }

  const TileGrid& grid_;
  const WeightParams& params_;
  Connectivity connectivity_;
  std::string summaries_path_;
  const std::vector<std::uint64_t>& offsets_;
  ExternalSorter& records_;
  MemoryBudget& budget_;
  Progress& progress_;
  WorkerPool& pool_;
  const MstMergeRanks* ranks_;
  std::mutex mutex_;
  std::uint32_t shift_ = 0, levels_ = 0, split_ = 0;
  std::uint64_t total_merges_ = 0, merges_done_ = 0;
  bool overflow_ = false;
};

}  // namespace

PostOrderMergeTotals run_post_order_merge(const TileGrid& grid, const WeightParams& params, Connectivity connectivity,
                                          const std::string& tile_summaries,
                                          const std::vector<std::uint64_t>& summary_offsets, ExternalSorter& records,
                                          MemoryBudget& budget, Progress& progress, WorkerPool& pool,
                                          const MstMergeRanks* ranks) {
  MergePass merge(grid, params, connectivity, tile_summaries, summary_offsets, records, budget, progress, pool, ranks);
  merge.run();
  PostOrderMergeTotals totals;
  totals.levels = merge.levels();
  totals.balance = merge.balance_;
  totals.bytes_read = merge.bytes_read_;
  return totals;
}

}  // namespace terrazo
