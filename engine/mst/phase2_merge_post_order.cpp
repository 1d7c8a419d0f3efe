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
            Progress& progress, WorkerPool& pool)
      : grid_(grid), params_(params), connectivity_(connectivity), summaries_path_(std::move(summaries_path)),
        offsets_(offsets), records_(records), budget_(budget), progress_(progress), pool_(pool) {
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
      std::vector<std::pair<std::uint64_t, std::uint64_t>> subtrees;
      collect(levels_, 0, 0, &subtrees);
      std::vector<Held> results(subtrees.size());
      pool_.run(subtrees.size(), [&](std::uint64_t i) {
        const auto [cx, cy] = subtrees[i];
        Lane lane(*this, offsets_[(cy << split_) * grid_.tiles_x() + (cx << split_)]);
        results[i] = lane.process(split_, cx, cy);
        lane.finish();
      });
      Lane top(*this, std::nullopt);
      std::size_t next = 0;
      top.process_top(levels_, 0, 0, results, &next);
      top.finish();
    }
    if (overflow_) throw Error("internal error: a crossing edge weight overflowed after the weight check passed");
    progress_.update("mst: merge", total_merges_, total_merges_);
  }

  std::uint64_t in_edges_ = 0, out_edges_ = 0;
  unsigned __int128 in_weight_ = 0, out_weight_ = 0;
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
      ++out_edges_;
      out_weight_ += rep.weight;
    }
    void kept_crossing(const GlobalEdgeKey& edge) override {
      add(SortRecord{pass_.record_key(edge, 0), edge.weight});
      ++in_edges_;
      in_weight_ += edge.weight;
    }
    void finish() {
      std::lock_guard<std::mutex> lock(pass_.mutex_);
      for (const SortRecord& r : buffer_) pass_.records_.push(r);
      buffer_.clear();
      pass_.in_edges_ += in_edges_;
      pass_.out_edges_ += out_edges_;
      pass_.in_weight_ += in_weight_;
      pass_.out_weight_ += out_weight_;
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

    // Levels above the split: the subtrees' results are taken in Z-order.
    Held process_top(std::uint32_t level, std::uint64_t cx, std::uint64_t cy, std::vector<Held>& results,
                     std::size_t* next) {
      if (level == pass_.split_) return std::move(results[(*next)++]);
      Held children[4];
      for (int q = 0; q < 4; ++q) {
        const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
        if (pass_.exists(level - 1, ccx, ccy)) children[q] = process_top(level - 1, ccx, ccy, results, next);
      }
      return merge(level, cx, cy, children);
    }

   private:
    void add(const SortRecord& r) {
      buffer_.push_back(r);
      if (buffer_.size() < kLaneRecords) return;
      std::lock_guard<std::mutex> lock(pass_.mutex_);
      for (const SortRecord& b : buffer_) pass_.records_.push(b);
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
    std::uint64_t in_edges_ = 0, out_edges_ = 0;
    unsigned __int128 in_weight_ = 0, out_weight_ = 0;
    bool overflow_ = false;
  };

  bool exists(std::uint32_t level, std::uint64_t cx, std::uint64_t cy) const {
    return (cx << level) < grid_.tiles_x() && (cy << level) < grid_.tiles_y();
  }

  void collect(std::uint32_t level, std::uint64_t cx, std::uint64_t cy,
               std::vector<std::pair<std::uint64_t, std::uint64_t>>* out) const {
    if (level == split_) {
      out->push_back({cx, cy});
      return;
    }
    for (int q = 0; q < 4; ++q) {
      const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
      if (exists(level - 1, ccx, ccy)) collect(level - 1, ccx, ccy, out);
    }
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
  std::mutex mutex_;
  std::uint32_t shift_ = 0, levels_ = 0, split_ = 0;
  std::uint64_t total_merges_ = 0, merges_done_ = 0;
  bool overflow_ = false;
};

}  // namespace

PostOrderMergeTotals run_post_order_merge(const TileGrid& grid, const WeightParams& params, Connectivity connectivity,
                                          const std::string& tile_summaries,
                                          const std::vector<std::uint64_t>& summary_offsets, ExternalSorter& records,
                                          MemoryBudget& budget, Progress& progress, WorkerPool& pool) {
  MergePass merge(grid, params, connectivity, tile_summaries, summary_offsets, records, budget, progress, pool);
  merge.run();
  PostOrderMergeTotals totals;
  totals.levels = merge.levels();
  totals.in_edges = merge.in_edges_;
  totals.out_edges = merge.out_edges_;
  totals.in_weight = merge.in_weight_;
  totals.out_weight = merge.out_weight_;
  totals.bytes_read = merge.bytes_read_;
  return totals;
}

}  // namespace terrazo
