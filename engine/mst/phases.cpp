// engine/mst/phases.cpp: phases 1-3 of the MST pipeline (contract in mst_phases.h, design in docs/mst.md).
//
// Scratch files in the scratch directory:
//   mst_forest.bits      1 byte per cell of each present tile, in Z-order: forest bits, 255 = nodata
//   mst_tile_summaries   per tile in Z-order: header, summary edges (global ids and keys), ring values
//   mst_level_summaries_<k>  level merges only: the level-k cluster summaries, same format (each
//                        deleted once level k+1 has read it; mst_tile_summaries too)
//   mst_records*         the expansion records' sorter runs (only when they exceed its buffer)
// Expansion record: key = morton(owner tile) << shift | local edge id << 1 | kind (0 in, 1 out),
// value = weight; shift = 2 log2(t) + 3, so one tile's records are contiguous in Z-order.
#include "engine/mst/phases.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/bits.h"
#include "core/error.h"
#include "core/timer.h"
#include "store/external_sorter.h"
#include "engine/mst/merge_step.h"
#include "engine/mst/phase2_merge_levels.h"
#include "store/sequential_file.h"
#include "core/worker_pool.h"
#include "kernels/common/block_batch.h"
#include "kernels/mst/block_mst.h"
#include "kernels/mst/block_reduce.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kFileBufferBytes = 1ull << 20;  // each sequential scratch file's buffer
// Scratch of the CPU block solvers per thread (kernels/mst/block_mst_cpu.cpp: 72 t^2, block_reduce_cpu:
// 6 t^2), rounded up.
constexpr std::uint64_t kSolverScratchPerCell = 80;

// ---- the merge pass -------------------------------------------------------------------------------
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
        reader_ = std::make_unique<SequentialReader>(pass.summaries_path_, pass.budget_, kFileBufferBytes,
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

// One tile of a phase-1 batch.
struct TileJob {
  std::uint32_t tx = 0, ty = 0;
  bool present = false;
  std::vector<TileSummaryEdge> summary;
  ClusterSummary cluster;
  std::uint64_t valid = 0, forest_edges = 0, forest_weight = 0;
  bool overflow = false;
};

// After the block solvers: nodata cells -> 255, counts and weight of the forest, the level-0 summary.
void finish_tile(const TileGrid& grid, const double* values, std::uint8_t* bits, const WeightParams& params,
                 TileJob* job) {
  const std::uint32_t t = grid.tile;
  for (std::uint32_t l = 0; l < t * t; ++l) {
    if (values[l] != values[l]) {
      bits[l] = 255;
      continue;
    }
    ++job->valid;
    for (int dir = 0; dir < 4; ++dir) {
      if (!(bits[l] & (1u << dir))) continue;
      const std::uint32_t m = l + static_cast<std::uint32_t>(kDirDy[dir]) * t + static_cast<std::uint32_t>(kDirDx[dir]);
      bool overflow = false;
      job->forest_weight += edge_weight(params, values[l], values[m], is_diagonal(dir), &overflow);
      ++job->forest_edges;
    }
  }
  job->cluster = make_tile_summary(grid, job->tx, job->ty, values, job->summary);
  job->summary.clear();
  job->summary.shrink_to_fit();
}

// Removes a half-written output (`path.partial`) unless published.
class PartialFile {
 public:
  explicit PartialFile(std::string path) : path_(std::move(path)) {}
  ~PartialFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;
  void published() { path_.clear(); }

 private:
  std::string path_;
};

std::string overflow_message(const WeightParams& params) {
  return "edge weights overflow the 32-bit fixed point at --scale " + std::to_string(params.scale) +
         " (a weight exceeds " + std::to_string(kMaxWeight) + "); choose a smaller --scale";
}


// Phase-1 bookkeeping shared by the CPU and GPU paths: results are written in Z-order.
struct Phase1Output {
  SequentialWriter& bits_out;
  SequentialWriter& summaries_out;
  MstPhaseResult& result;
  std::vector<std::uint64_t>& offsets;  // byte offset of each tile's summary, row-major tile index
  std::uint64_t tiles_x = 0;
  std::uint64_t forest_edges = 0, valid = 0;
  unsigned __int128 forest_weight = 0;

  // `bits` holds the forest bits of the present jobs, packed in job order.
  void write(std::vector<TileJob>& jobs, std::uint64_t count, const std::uint8_t* bits, std::uint64_t tile_cells,
             const WeightParams& params) {
    std::uint64_t p = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      TileJob& job = jobs[i];
      if (job.overflow) throw Error(overflow_message(params));
      if (job.present) {
        bits_out.write(bits + p * tile_cells, tile_cells);
        ++p;
      } else {
        job.cluster.cx = job.tx;
        job.cluster.cy = job.ty;
      }
      offsets[static_cast<std::uint64_t>(job.ty) * tiles_x + job.tx] = summaries_out.bytes_written();
      write_cluster_summary(summaries_out, job.cluster);
      result.summary_edges += job.cluster.edges.size();
      forest_edges += job.forest_edges;
      forest_weight += job.forest_weight;
      valid += job.valid;
      job.cluster = ClusterSummary();
    }
  }
};

// Phase 1 on the CPU: batches of up to 4 x threads tiles, the next one read while one is solved.
void block_local_cpu(const MstTileSource& source, const std::vector<std::uint64_t>& order,
                     const MstPhaseOptions& options, WorkerPool& pool, MemoryBudget& budget, Progress& progress,
                     Phase1Output& out) {
  const TileGrid& grid = source.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const WeightParams& params = options.params;
  auto scratch = budget.reserve(pool.threads() * kSolverScratchPerCell * tile_cells, "MST block solver scratch");
  const std::uint64_t per_tile = tile_cells * (sizeof(double) + 1) + 64 * t * sizeof(double);
  std::uint64_t batch = std::max<std::uint64_t>(1, budget.available() / 8 / per_tile);
  batch = std::min<std::uint64_t>(batch, 4 * pool.threads());
  batch = std::min<std::uint64_t>(batch, order.size());
  auto batch_reservation = budget.reserve(2 * batch * per_tile, "MST tile batches");
  struct Batch {
    std::uint64_t count = 0;
    std::vector<double> values;  // present tiles packed at the front
    std::vector<std::uint8_t> bits;
    std::vector<TileJob> jobs;
    std::vector<std::uint64_t> present;  // batch slots of present tiles
  };
  Batch batches[2];
  for (Batch& b : batches) {
    b.values.resize(batch * tile_cells);
    b.bits.resize(batch * tile_cells);
    b.jobs.resize(batch);
  }
  auto load = [&](Batch& b, std::uint64_t first) {
    b.count = std::min<std::uint64_t>(batch, order.size() - first);
    b.present.clear();
    for (std::uint64_t i = 0; i < b.count; ++i) {
      TileJob& job = b.jobs[i];
      job = TileJob();
      job.tx = static_cast<std::uint32_t>(order[first + i] % grid.tiles_x());
      job.ty = static_cast<std::uint32_t>(order[first + i] / grid.tiles_x());
      job.present = source.tile_present(job.tx, job.ty);
      if (job.present) b.present.push_back(i);
    }
    for (std::uint64_t p = 0; p < b.present.size(); ++p)
      source.read_tile(b.jobs[b.present[p]].tx, b.jobs[b.present[p]].ty, b.values.data() + p * tile_cells);
  };
  if (!order.empty()) load(batches[0], 0);
  for (std::uint64_t first = 0, index = 0; first < order.size(); first += batch, index ^= 1) {
    Batch& b = batches[index];
    std::exception_ptr load_error;
    std::thread loader;
    if (first + batch < order.size()) {
      loader = std::thread([&, next = first + batch] {
        try {
          load(batches[index ^ 1], next);
        } catch (...) {
          load_error = std::current_exception();
        }
      });
    }
    struct JoinOnExit {
      std::thread& thread;
      ~JoinOnExit() {
        if (thread.joinable()) thread.join();
      }
    } join_on_exit{loader};
    pool.run(b.present.size(), [&](std::uint64_t p) {
      TileJob& job = b.jobs[b.present[p]];
      const double* v = b.values.data() + p * tile_cells;
      std::uint8_t* bits = b.bits.data() + p * tile_cells;
      block_mst_cpu(v, t, params, options.connectivity, bits, &job.overflow);
      if (job.overflow) return;
      block_reduce_cpu(bits, v, t, params, options.connectivity, &job.summary);
      finish_tile(grid, v, bits, params, &job);
    });
    out.write(b.jobs, b.count, b.bits.data(), tile_cells, params);
    if (loader.joinable()) loader.join();
    if (load_error) std::rethrow_exception(load_error);
    progress.update("mst: block-local", first + b.count, order.size(), (first + b.count) * tile_cells);
  }
}

// Phase 1 on the GPU: groups of up to batch_tiles() present tiles (absent tiles ride along in the
// group's job list), read in parallel straight into the solver's pinned input; two groups in flight.
// A finished group's input stays untouched until that slot is filled again, so finish_tile reads
// the values from it.
void block_local_cuda(const MstTileSource& source, const std::vector<std::uint64_t>& order,
                      const MstPhaseOptions& options, WorkerPool& pool, MemoryBudget& budget, Progress& progress,
                      Phase1Output& out) {
  const TileGrid& grid = source.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const WeightParams& params = options.params;
  BlockBatchOptions batch_options;
  batch_options.t = t;
  batch_options.params = params;
  batch_options.connectivity = options.connectivity;
  batch_options.reduce = true;
  batch_options.gpu_memory_bytes = options.gpu_memory_bytes;
  // Host memory per tile in flight: pinned input and bits, the bits copy, the jobs' summaries.
  const std::uint64_t host_per_tile = tile_cells * (sizeof(double) + 2) +
                                      kMaxSummaryEdgesPerSide * t * (sizeof(TileSummaryEdge) + sizeof(SummaryEdge));
  batch_options.max_batch_tiles = std::max<std::uint64_t>(1, std::min<std::uint64_t>(1024, budget.available() / 4 / (2 * host_per_tile)));
  CudaMstBatchSolver solver(batch_options);
  const std::uint64_t batch_tiles = solver.batch_tiles();
  out.result.gpu_batch_tiles = batch_tiles;
  auto pinned = budget.reserve(solver.pinned_bytes(), "MST GPU pinned buffers");
  auto host = budget.reserve(2 * batch_tiles * tile_cells + 2 * batch_tiles * kMaxSummaryEdgesPerSide * t * sizeof(SummaryEdge),
                             "MST GPU batch results");
  struct Group {
    std::uint64_t first = 0, count = 0;    // order positions
    std::vector<TileJob> jobs;
    std::vector<std::uint64_t> present;    // job indices of present tiles, in input order
    const double* values = nullptr;        // the slot's pinned input
    bool submitted = false;
  };
  std::deque<Group> in_flight;
  std::vector<std::uint8_t> bits;
  std::uint64_t done = 0;
  auto consume_front = [&] {
    Group& g = in_flight.front();
    if (g.submitted) {
      const CudaMstBatchSolver::Batch& batch = solver.wait();
      if (batch.overflow) throw Error(overflow_message(params));
      out.result.gpu_kernel_ms += batch.kernel_ms;
      bits.assign(batch.forest_bits, batch.forest_bits + g.present.size() * tile_cells);
      pool.run(g.present.size(), [&](std::uint64_t p) {
        TileJob& job = g.jobs[g.present[p]];
        job.summary.assign(batch.summary(p), batch.summary(p) + batch.summary_count(p));
        finish_tile(grid, g.values + p * tile_cells, bits.data() + p * tile_cells, params, &job);
      });
    }
    out.write(g.jobs, g.count, bits.data(), tile_cells, params);
    done += g.count;
    progress.update("mst: block-local", done, order.size(), done * tile_cells);
    in_flight.pop_front();
  };
  std::uint64_t position = 0;
  while (position < order.size()) {
    Group g;
    g.first = position;
    while (position < order.size() && g.present.size() < batch_tiles) {
      TileJob job;
      job.tx = static_cast<std::uint32_t>(order[position] % grid.tiles_x());
      job.ty = static_cast<std::uint32_t>(order[position] / grid.tiles_x());
      job.present = source.tile_present(job.tx, job.ty);
      if (job.present) g.present.push_back(g.jobs.size());
      g.jobs.push_back(std::move(job));
      ++position;
    }
    g.count = g.jobs.size();
    if (!g.present.empty()) {
      while (solver.pending() == 2) consume_front();
      double* input = solver.input();
      pool.run(g.present.size(), [&](std::uint64_t p) {
        source.read_tile(g.jobs[g.present[p]].tx, g.jobs[g.present[p]].ty, input + p * tile_cells);
      });
      solver.submit(g.present.size());
      g.values = input;
      g.submitted = true;
    }
    in_flight.push_back(std::move(g));
    // Groups without a present tile wait behind the submitted ones, so the files stay in Z-order.
    while (!in_flight.empty() && !in_flight.front().submitted) consume_front();
  }
  while (!in_flight.empty()) consume_front();
}

}  // namespace

const char* to_string(MstMergeMode mode) {
  switch (mode) {
    case MstMergeMode::Auto: return "auto";
    case MstMergeMode::CpuPostOrder: return "cpu";
    case MstMergeMode::CpuLevels: return "cpu-levels";
    default: return "cuda";
  }
}

MstMergeMode parse_merge_mode(const std::string& text) {
  for (MstMergeMode mode :
       {MstMergeMode::Auto, MstMergeMode::CpuPostOrder, MstMergeMode::CpuLevels, MstMergeMode::CudaLevels})
    if (text == to_string(mode)) return mode;
  throw UsageError("--merge must be auto, cpu, cpu-levels or cuda, not '" + text + "'");
}

MstPhaseResult run_mst_phases(const MstTileSource& source, const MstPhaseOptions& options, MemoryBudget& budget,
                              Progress& progress, MstWindowSink* sink) {
  MstPhaseResult result;
  const TileGrid& grid = source.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const WeightParams& params = options.params;
  const std::vector<std::uint64_t> order = grid.z_order();
  if (2 * ceil_log2(std::max(grid.tiles_x(), grid.tiles_y())) + 2 * ceil_log2(t) + 3 > 64) {
    throw Error("mst: the raster has too many tiles of " + std::to_string(t) +
                " cells for 64-bit expansion keys; use a larger --tile");
  }
  auto scratch_file = [&](const char* name) { return options.scratch_dir + "/" + name; };

  // 1. Block-local MST and reduction.
  Stopwatch phase;
  WorkerPool pool(options.threads);
  std::vector<std::uint64_t> summary_offsets(grid.tile_count());
  std::uint64_t forest_edges = 0, valid = 0;
  unsigned __int128 forest_weight = 0;
  {
    SequentialWriter bits_out(scratch_file("mst_forest.bits"), budget, kFileBufferBytes, "MST forest bits buffer");
    SequentialWriter summaries_out(scratch_file("mst_tile_summaries"), budget, kFileBufferBytes, "MST summary buffer");
    Phase1Output out{bits_out, summaries_out, result, summary_offsets, grid.tiles_x()};
    progress.update("mst: block-local", 0, order.size());
    if (options.cuda) {
      block_local_cuda(source, order, options, pool, budget, progress, out);
    } else {
      block_local_cpu(source, order, options, pool, budget, progress, out);
    }
    bits_out.finish();
    summaries_out.finish();
    result.bytes_written += bits_out.bytes_written() + summaries_out.bytes_written();
    forest_edges = out.forest_edges;
    valid = out.valid;
    forest_weight = out.forest_weight;
  }
  result.block_local_seconds = phase.seconds();

  // 2. Hierarchical merge.
  phase.restart();
  const std::uint64_t record_bytes = options.record_buffer_bytes
                                         ? options.record_buffer_bytes
                                         : std::min<std::uint64_t>(64ull << 20, budget.available() / 8);
  ExternalSorter records(scratch_file("mst_records"), budget, record_bytes);
  std::uint64_t in_edges = 0, out_edges = 0;
  unsigned __int128 in_weight = 0, out_weight = 0;
  const std::uint32_t shift = expansion_record_shift(t);
  result.merge_mode = options.merge_mode != MstMergeMode::Auto ? options.merge_mode
                      : options.cuda                          ? MstMergeMode::CudaLevels
                                                              : MstMergeMode::CpuPostOrder;
  if (result.merge_mode == MstMergeMode::CpuPostOrder) {
    MergePass merge(grid, params, options.connectivity, scratch_file("mst_tile_summaries"), summary_offsets, records,
                    budget, progress, pool);
    merge.run();
    result.merge_levels = merge.levels();
    in_edges = merge.in_edges_;
    out_edges = merge.out_edges_;
    in_weight = merge.in_weight_;
    out_weight = merge.out_weight_;
    result.bytes_read += merge.bytes_read_;
  } else {
    summary_offsets = std::vector<std::uint64_t>();  // the level merge reads the summaries in one scan
    LevelMergeOptions level_options;
    level_options.params = params;
    level_options.connectivity = options.connectivity;
    level_options.cuda = result.merge_mode == MstMergeMode::CudaLevels;
    level_options.gpu_memory_bytes = options.gpu_memory_bytes;
    level_options.batch_edges = options.merge_batch_edges;
    level_options.scratch_dir = options.scratch_dir;
    const LevelMergeTotals merge = run_level_merge(grid, scratch_file("mst_tile_summaries"), level_options, records,
                                                   budget, progress, pool);
    result.merge_levels = merge.levels;
    in_edges = merge.in_edges;
    out_edges = merge.out_edges;
    in_weight = merge.in_weight;
    out_weight = merge.out_weight;
    result.bytes_read += merge.bytes_read;
    result.bytes_written += merge.bytes_written;
    result.merge_batches = merge.batches;
    result.merge_graphs = merge.graphs;
    result.merge_oversized_graphs = merge.oversized_graphs;
    result.merge_batch_edges = merge.batch_edges;
    result.gpu_merge_kernel_ms = merge.kernel_ms;
  }
  records.finish();
  result.expansion_records = records.size();
  result.expansion_record_runs = records.runs_spilled();
  result.merge_seconds = phase.seconds();

  // 3. Expansion: forest bits + in - out, per tile in Z-order.
  phase.restart();
  progress.update("mst: expansion", 0, order.size());
  std::uint64_t counted_edges = 0;
  {
    auto tile_buffers = budget.reserve(tile_cells * (1 + (options.edge_list.empty() ? 0 : sizeof(double))) + tile_cells,
                                       "MST expansion tile");
    std::vector<std::uint8_t> tile_bits(tile_cells), window(tile_cells);
    std::vector<double> tile_values(options.edge_list.empty() ? 0 : tile_cells);
    SequentialReader bits_in(scratch_file("mst_forest.bits"), budget, kFileBufferBytes, "MST forest bits buffer");
    std::unique_ptr<SequentialWriter> edge_list;
    PartialFile edge_list_partial(options.edge_list.empty() ? "" : options.edge_list + ".partial");
    if (!options.edge_list.empty()) {
      edge_list = std::make_unique<SequentialWriter>(options.edge_list + ".partial", budget, kFileBufferBytes,
                                                     "MST edge list buffer");
    }
    SortRecord pending;
    bool has_pending = records.next(&pending);
    std::vector<SortRecord> tile_records;
    for (std::uint64_t z = 0; z < order.size(); ++z) {
      const auto tx = static_cast<std::uint32_t>(order[z] % grid.tiles_x());
      const auto ty = static_cast<std::uint32_t>(order[z] / grid.tiles_x());
      const std::uint64_t morton = morton_encode(tx, ty);
      tile_records.clear();
      while (has_pending && (pending.key >> shift) <= morton) {
        if ((pending.key >> shift) != morton) throw Error("internal error: an MST expansion record names an absent tile");
        tile_records.push_back(pending);
        has_pending = records.next(&pending);
      }
      const bool present = source.tile_present(tx, ty);
      if (present) {
        bits_in.read(tile_bits.data(), tile_cells);
      } else {
        if (!tile_records.empty()) throw Error("internal error: an MST expansion record names an absent tile");
        std::fill(tile_bits.begin(), tile_bits.end(), std::uint8_t{255});
      }
      for (int kind = 0; kind < 2; ++kind) {
        for (const SortRecord& r : tile_records) {
          if ((r.key & 1) != static_cast<std::uint64_t>(kind)) continue;
          const auto id = static_cast<std::uint32_t>((r.key & ((std::uint64_t{1} << shift) - 1)) >> 1);
          const std::uint8_t bit = static_cast<std::uint8_t>(1u << tile_edge_direction(id));
          std::uint8_t& cell = tile_bits[tile_edge_owner(id)];
          if (kind == 0) cell |= bit;
          else cell &= static_cast<std::uint8_t>(~bit);
        }
      }
      const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t, y0 = static_cast<std::uint64_t>(ty) * t;
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.width - x0));
      const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.height - y0));
      if (present && edge_list) source.read_tile(tx, ty, tile_values.data());
      for (std::uint32_t ly = 0; ly < h; ++ly) {
        for (std::uint32_t lx = 0; lx < w; ++lx) {
          const std::uint8_t cell = tile_bits[ly * t + lx];
          window[ly * w + lx] = cell;
          if (cell == 255) continue;
          counted_edges += static_cast<std::uint64_t>(__builtin_popcount(cell));
          if (!edge_list || cell == 0) continue;
          for (int dir = 0; dir < 4; ++dir) {
            if (!(cell & (1u << dir))) continue;
            const std::uint32_t l = ly * t + lx;
            const std::int64_t nlx = static_cast<std::int64_t>(lx) + kDirDx[dir], nly = ly + kDirDy[dir];
            Weight weight = 0;
            if (nlx >= 0 && nlx < t && nly < t) {
              bool overflow = false;
              weight = edge_weight(params, tile_values[l], tile_values[nly * t + nlx], is_diagonal(dir), &overflow);
            } else {
              const std::uint64_t wanted = static_cast<std::uint64_t>(tile_edge_id(l, dir)) << 1;
              for (const SortRecord& r : tile_records)
                if ((r.key & ((std::uint64_t{1} << shift) - 1)) == wanted) weight = static_cast<Weight>(r.value);
            }
            const std::uint64_t a = (y0 + ly) * grid.width + x0 + lx;
            const std::uint64_t b = (y0 + ly + kDirDy[dir]) * grid.width + x0 + lx + kDirDx[dir];
            unsigned char record[20];
            std::memcpy(record, &a, 8);
            std::memcpy(record + 8, &b, 8);
            std::memcpy(record + 16, &weight, 4);
            edge_list->write(record, sizeof record);
          }
        }
      }
      if (sink) sink->write_window(x0, y0, w, h, window.data());
      progress.update("mst: expansion", z + 1, order.size(), (z + 1) * tile_cells);
    }
    result.bytes_read += bits_in.bytes_read();
    if (edge_list) {
      edge_list->finish();
      result.bytes_written += edge_list->bytes_written();
      if (std::rename((options.edge_list + ".partial").c_str(), options.edge_list.c_str()) != 0) {
        throw Error("cannot rename '" + options.edge_list + ".partial' to '" + options.edge_list + "'");
      }
      edge_list_partial.published();
    }
  }
  result.expansion_seconds = phase.seconds();

  // Totals.
  const std::uint64_t expected_edges = forest_edges + in_edges - out_edges;
  if (counted_edges != expected_edges) {
    throw Error("internal error: MST expansion counted " + std::to_string(counted_edges) + " edges, the merge " +
                std::to_string(expected_edges));
  }
  const unsigned __int128 total = forest_weight + in_weight - out_weight;
  if (total > std::numeric_limits<std::uint64_t>::max()) {
    throw Error("the MST's total weight exceeds 2^64 fixed-point units; choose a smaller --scale");
  }
  result.total_weight = static_cast<std::uint64_t>(total);
  result.edges = counted_edges;
  result.vertices = valid;
  result.components = valid - counted_edges;
  result.bytes_read += records.bytes_read();
  result.bytes_written += records.bytes_written();
  return result;
}

}  // namespace terrazo
