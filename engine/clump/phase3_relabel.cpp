// engine/clump/phase3_relabel.cpp: phase 3 of clump (engine/clump/phase3_relabel.h).
#include "engine/clump/phase3_relabel.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "engine/clump/phase1_tile_labels.h"
#include "kernels/clump/label_tile.h"
#include "kernels/clump/label_tile_solver.h"

namespace terrazo {
namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// One thread that runs the jobs queued to it, in order, one at a time (so the sink's calls stay in
// tile order), made once per run (a thread per job cost about 0.2 ms each, a few per tile row).
// After a job throws, the later ones throw its error instead of running; the destructor drops the
// jobs not started and joins.
class WriterThread {
 public:
  WriterThread() : thread_([this] { loop(); }) {}
  ~WriterThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;
  std::shared_future<void> enqueue(std::function<void()> job) {
    std::packaged_task<void()> task([this, job = std::move(job)] {
      if (error_) std::rethrow_exception(error_);
      try {
        job();
      } catch (...) {
        error_ = std::current_exception();
        throw;
      }
    });
    std::shared_future<void> done = task.get_future().share();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(task));
    }
    wake_.notify_one();
    return done;
  }

 private:
  void loop() {
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> queue_;
  bool stop_ = false;
  std::exception_ptr error_;  // the writer thread's only
  std::thread thread_;        // last: started once the rest is built
};
}  // namespace

std::uint64_t clump_relabel_row_bytes(const TileGrid& grid) {
  return 12ull * grid.tiles_x() * grid.tile;
}

std::uint64_t clump_max_row_border_regions(const TileGrid& grid, const BorderTable& table) {
  std::uint64_t most = 0;
  for (std::uint64_t ty = 0; ty < grid.tiles_y(); ++ty)
    most = std::max(most, table.tile_offset[(ty + 1) * grid.tiles_x()] - table.tile_offset[ty * grid.tiles_x()]);
  return most;
}

std::uint64_t clump_relabel_border_bytes(bool external) {
  // The label (4); external: the record (24), root (8), slot (4), and two entries of the list of
  // roots in use (2 x 16, current and next) with two slots (2 x 48).
  return external ? 4 + sizeof(BorderRegion) + 8 + 4 + 2 * 16 + 2 * 48 : 4;
}

std::uint64_t clump_relabel_slot_bytes(std::uint32_t t, unsigned threads, std::uint64_t batch, bool stats) {
  // Per thread: summarize_tile_border's scratch (kClumpThreadCellBytes t^2). Per tile of a batch:
  // two windows 8 t^2 (one filled while the writer thread sends the other to the sink), numbers
  // 4 t^2, border_of 4 t^2, the TileBorder (kClumpSlotRingBytes t); with stats, per region cells 4,
  // box 16, value 8.
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  return threads * kClumpThreadCellBytes * cells + batch * ((16 + (stats ? 28 : 0)) * cells + kClumpSlotRingBytes * t);
}

namespace {
// External mode: a root in use, with its label and the statistics of its regions met so far.
struct RootSlot {
  std::uint64_t label = 0, cells = 0;
  double value = 0;
  std::uint32_t c0 = 0, r0 = 0, c1 = 0, r1 = 0, stamp = 0;
};

// With stats: the measures of one tile's regions (tile-local boxes).
struct SlotStats {
  std::vector<std::uint32_t> cells, c0, r0, c1, r1;
  std::vector<double> value;
};

// The tile row being relabelled: its first border region, its cells' rows and its tiles.
struct RelabelRow {
  std::uint32_t ty = 0;
  std::uint64_t y0 = 0;     // its first cell row
  std::uint32_t h = 0;      // cell rows inside the raster
  std::uint64_t begin = 0;  // its first tile
};

// One run of phase 3 (the contract in phase3_relabel.h). The members are declared in the order the
// bytes are reserved; the writer thread is last, so an exception joins it before anything its jobs
// use goes. Stages: per tile row, begin_row (external: read the row, retire roots), count_starts
// (C and P), label_owned_roots (1.), label_border_regions, relabel_tiles (2.: batches numbered on the
// pool, sent on the writer thread).
class Relabel {
 public:
  Relabel(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool, ClumpTileBatchSolver& solver,
          const BorderRecords& records, BorderTable& table, MemoryBudget& budget, ClumpWindowSink* sink,
          RegionStatsCollector* stats);
  // Returns the number of labels given (K).
  std::uint64_t run(Progress& progress);
  std::uint64_t largest() const { return largest_; }
  const ClumpRelabelSeconds& spent() const { return spent_; }

 private:
  void begin_row(std::uint32_t ty);
  void count_starts(std::uint32_t ty);
  void label_owned_roots(std::uint32_t ty);
  std::uint32_t take_root_slot();
  void label_border_regions();
  void relabel_tiles(const RelabelRow& row);
  void submit_ahead();
  void relabel_batch(const RelabelRow& row, const std::vector<std::uint64_t>& list);
  void number_tile(const RelabelRow& row, std::uint64_t tile, std::uint64_t s, const ClumpTileSolved& solved,
                   std::uint32_t* o);
  void measure_tile(std::uint64_t s, const ClumpTileSolved& solved);
  void collect_batch_stats(const RelabelRow& row, const std::vector<std::uint64_t>& list);
  void send_batch(const RelabelRow& row, std::size_t set, std::shared_ptr<std::vector<std::vector<std::uint8_t>>> tiles_out,
                  const std::vector<std::uint64_t>& list);
  void write_absent_until(const RelabelRow& row, std::uint64_t tile);
  std::shared_future<void> enqueue(std::function<void()> job);
  void retire(std::uint32_t slot);

  // Border region j of the row (0-based from b0_): first cell, starts before, owner.
  std::uint64_t first_of(std::uint64_t j) const { return external_ ? row_region_[j].first : table_.first[b0_ + j]; }
  std::uint64_t starts_before_of(std::uint64_t j) const {
    return external_ ? row_region_[j].starts_before : table_.starts_before[b0_ + j];
  }
  bool owner_of(std::uint64_t j) const {
    return external_ ? row_root_[j] == row_region_[j].first : (table_.parent[b0_ + j] & BorderTable::kOwner) != 0;
  }
  const std::pair<std::uint64_t, std::uint32_t>* find_active(std::uint64_t root) const {
    const auto it = std::lower_bound(active_.begin(), active_.end(), std::make_pair(root, std::uint32_t{0}));
    return it != active_.end() && it->first == root ? &*it : nullptr;
  }

  const TileInput& input_;
  const ClumpPhaseOptions& options_;
  WorkerPool& pool_;
  ClumpTileBatchSolver& solver_;
  const BorderRecords& records_;
  BorderTable& table_;
  ClumpWindowSink* sink_;
  RegionStatsCollector* stats_;
  ClumpRelabelSeconds spent_;
  const TileGrid& grid_;
  const std::uint32_t t_, tiles_x_, tiles_y_;
  const std::uint64_t cells_;
  MemoryBudget::Reservation row_reservation_;
  std::vector<std::uint32_t> starts_;  // [tx * t + ly]
  std::vector<std::uint64_t> before_;  // P[tx * t + ly]
  // The border regions of one tile row: their labels; external mode also their records, roots and
  // root slots, and the roots still in use (a sorted list of (root, slot)) with their slots.
  const bool external_;
  const std::uint64_t max_row_;
  MemoryBudget::Reservation border_row_reservation_;
  std::vector<std::uint32_t> row_label_;
  std::vector<BorderRegion> row_region_;
  std::vector<std::uint64_t> row_root_;
  std::vector<std::uint32_t> row_slot_;
  std::vector<RootSlot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> active_, next_active_;  // (root, slot), sorted by root
  std::uint64_t b0_ = 0;           // the row's first border region
  std::uint64_t row_regions_ = 0;  // the row's border regions
  std::uint64_t largest_ = 0;
  // Tiles per batch: the solver's, fewer when their windows do not fit what is left.
  const std::uint64_t batch_;
  MemoryBudget::Reservation slot_reservation_;
  std::vector<SlotStats> slot_stats_;
  // Two sets of output windows: the writer thread sends one batch's windows to the sink (the
  // GeoTIFF writer, one thread) while this thread solves and numbers the next batch into the other.
  // A sink that takes whole tiles (the GeoTIFF's blocks are the tiles) lends their buffers instead:
  // the pool fills them and the writer thread only hands them over.
  const bool direct_;
  std::vector<std::vector<std::uint32_t>> out_sets_[2];
  std::vector<std::vector<std::uint32_t>> numbers_, border_of_;
  std::vector<std::uint32_t> zeros_;  // the writer's
  std::uint64_t written_ = 0;         // the writer's: tiles whose windows went to the sink, in tile order
                                      // (each row's last job leaves it at the next row's first tile)
  std::size_t out_set_ = 0;
  double write_seconds_ = 0;
  std::shared_future<void> last_job_;       // the newest writer job
  std::shared_future<void> set_reader_[2];  // the job that sends each set of windows
  // The tile solver's batches submitted and not yet numbered: (tile row, tiles), oldest first.
  std::deque<std::pair<std::uint32_t, std::vector<std::uint64_t>>> in_flight_;
  std::uint32_t submit_row_ = 0;
  std::uint64_t submit_tile_ = 0;
  std::uint64_t base_ = 0;  // the starts of the rows done
  WriterThread writer_;
};

std::uint64_t relabel_batch_tiles(const TileGrid& grid, unsigned threads, const ClumpTileBatchSolver& solver,
                                  const MemoryBudget& budget, bool stats) {
  const std::uint64_t batch = std::min<std::uint64_t>(solver.batch_tiles(), grid.tiles_x());
  const std::uint64_t fixed = clump_relabel_slot_bytes(grid.tile, threads, 0, stats);
  const std::uint64_t per_tile = clump_relabel_slot_bytes(grid.tile, 0, 1, stats);
  const std::uint64_t left = budget.available() > fixed ? budget.available() - fixed : 0;
  return std::max<std::uint64_t>(1, std::min(batch, left / per_tile));
}

Relabel::Relabel(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                 ClumpTileBatchSolver& solver, const BorderRecords& records, BorderTable& table, MemoryBudget& budget,
                 ClumpWindowSink* sink, RegionStatsCollector* stats)
    : input_(input),
      options_(options),
      pool_(pool),
      solver_(solver),
      records_(records),
      table_(table),
      sink_(sink),
      stats_(stats),
      grid_(input.grid()),
      t_(grid_.tile),
      tiles_x_(grid_.tiles_x()),
      tiles_y_(grid_.tiles_y()),
      cells_(static_cast<std::uint64_t>(t_) * t_),
      row_reservation_(budget.reserve(clump_relabel_row_bytes(grid_), "clump row start counts (phase 3)")),
      starts_(static_cast<std::uint64_t>(tiles_x_) * t_),
      before_(static_cast<std::uint64_t>(tiles_x_) * t_),
      external_(table.external()),
      max_row_(clump_max_row_border_regions(grid_, table)),
      border_row_reservation_(
          budget.reserve(max_row_ * clump_relabel_border_bytes(external_), "clump border regions of a tile row (phase 3)")),
      row_label_(max_row_),
      row_region_(external_ ? max_row_ : 0),
      row_root_(external_ ? max_row_ : 0),
      row_slot_(external_ ? max_row_ : 0),
      batch_(relabel_batch_tiles(grid_, pool.threads(), solver, budget, stats != nullptr)),
      slot_reservation_(budget.reserve(clump_relabel_slot_bytes(t_, pool.threads(), batch_, stats != nullptr),
                                       "clump tile windows (phase 3)")),
      slot_stats_(stats ? batch_ : 0),
      direct_(sink && sink->takes_tiles(t_)),
      numbers_(batch_),
      border_of_(batch_) {
  if (external_) {
    slots_.reserve(2 * max_row_);
    active_.reserve(2 * max_row_);
    next_active_.reserve(2 * max_row_);
  }
  if (!direct_)
    for (auto& set : out_sets_) set.assign(batch_, std::vector<std::uint32_t>(cells_));
}

std::uint64_t Relabel::run(Progress& progress) {
  progress.update("clump: relabel", 0, tiles_y_);
  for (std::uint32_t ty = 0; ty < tiles_y_; ++ty) {
    begin_row(ty);
    count_starts(ty);
    label_owned_roots(ty);
    label_border_regions();
    RelabelRow row;
    row.ty = ty;
    row.y0 = static_cast<std::uint64_t>(ty) * t_;
    row.h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t_, grid_.height - row.y0));
    row.begin = static_cast<std::uint64_t>(ty) * tiles_x_;
    relabel_tiles(row);
    if (options_.distributed() && ty == tiles_y_ / 2) fault_point(*options_.comm, "clump: relabel");
    progress.update("clump: relabel", ty + 1, tiles_y_, (ty + 1ull) * t_ * grid_.width);
  }
  if (last_job_.valid()) last_job_.get();
  for (const auto& a : active_) retire(a.second);
  spent_.write = write_seconds_;  // the sink's time on the writer thread (overlapping the next batches)
  return base_;
}

// The row's border regions; external mode: their records and roots read, and the roots of the rows
// above that this row no longer uses retired (a region is connected, so a root none of whose
// regions is in this row has none below either: its statistics are complete).
void Relabel::begin_row(std::uint32_t ty) {
  b0_ = table_.tile_offset[static_cast<std::uint64_t>(ty) * tiles_x_];
  row_regions_ = table_.tile_offset[static_cast<std::uint64_t>(ty + 1) * tiles_x_] - b0_;
  if (!external_) return;
  table_.read_regions(b0_, row_regions_, row_region_.data());
  table_.read_roots(b0_, row_regions_, row_root_.data());
  for (std::uint64_t j = 0; j < row_regions_; ++j)
    if (const auto* a = find_active(row_root_[j])) slots_[a->second].stamp = ty + 1;
  next_active_.clear();
  for (const auto& a : active_) {
    if (slots_[a.second].stamp == ty + 1) next_active_.push_back(a);
    else retire(a.second);
  }
  active_.swap(next_active_);
}

// C: interior starts (phase 1) + owner border starts; then P, row-major over (ly, tx).
void Relabel::count_starts(std::uint32_t ty) {
  std::fill(starts_.begin(), starts_.end(), 0u);
  for (std::uint32_t tx = 0; tx < tiles_x_; ++tx) {
    const std::uint64_t tile = static_cast<std::uint64_t>(ty) * tiles_x_ + tx;
    records_.read_starts(tile, &starts_[static_cast<std::uint64_t>(tx) * t_]);
    for (std::uint64_t j = table_.tile_offset[tile] - b0_; j < table_.tile_offset[tile + 1] - b0_; ++j)
      if (owner_of(j))
        ++starts_[static_cast<std::uint64_t>(tx) * t_ + first_of(j) / grid_.width - static_cast<std::uint64_t>(ty) * t_];
  }
  for (std::uint32_t ly = 0; ly < t_; ++ly)
    for (std::uint32_t tx = 0; tx < tiles_x_; ++tx) {
      before_[static_cast<std::uint64_t>(tx) * t_ + ly] = base_;
      base_ += starts_[static_cast<std::uint64_t>(tx) * t_ + ly];
    }
  if (base_ > options_.max_regions)
    throw Error("clump: more than " + std::to_string(options_.max_regions) +
                " regions: the labels do not fit UInt32 (0 is nodata)");
}

// 1. The roots owned by this row get their labels (external mode: a slot in the list of roots in use).
void Relabel::label_owned_roots(std::uint32_t ty) {
  for (std::uint32_t tx = 0; tx < tiles_x_; ++tx) {
    const std::uint64_t tile = static_cast<std::uint64_t>(ty) * tiles_x_ + tx;
    std::uint64_t row = ~0ull, owners_left = 0;
    for (std::uint64_t j = table_.tile_offset[tile] - b0_; j < table_.tile_offset[tile + 1] - b0_; ++j) {
      if (!owner_of(j)) continue;
      const std::uint64_t ly = first_of(j) / grid_.width - static_cast<std::uint64_t>(ty) * t_;
      if (ly != row) row = ly, owners_left = 0;
      const std::uint64_t label = before_[static_cast<std::uint64_t>(tx) * t_ + ly] + starts_before_of(j) + owners_left + 1;
      ++owners_left;
      if (!external_) {
        table_.root[table_.parent[b0_ + j] & ~BorderTable::kOwner] = label;
        continue;
      }
      const std::uint32_t slot = take_root_slot();
      RootSlot& r = slots_[slot];
      r.label = label;
      r.c0 = r.r0 = std::numeric_limits<std::uint32_t>::max();
      r.stamp = ty + 1;
      active_.emplace_back(row_root_[j], slot);
    }
  }
  if (external_) std::sort(active_.begin(), active_.end());
}

// A cleared slot: a retired one, or a new one.
std::uint32_t Relabel::take_root_slot() {
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  slots_[slot] = RootSlot();
  return slot;
}

// Every border region's label (and, external, its root's slot and cells).
void Relabel::label_border_regions() {
  for (std::uint64_t j = 0; j < row_regions_; ++j) {
    if (!external_) {
      row_label_[j] = static_cast<std::uint32_t>(table_.root[table_.parent[b0_ + j] & ~BorderTable::kOwner]);
      continue;
    }
    const auto* a = find_active(row_root_[j]);
    if (!a) throw Error("clump: internal error: a border region's root is neither in its tile row nor in use from above");
    RootSlot& r = slots_[a->second];
    r.cells += row_region_[j].cells;
    row_label_[j] = static_cast<std::uint32_t>(r.label);
    row_slot_[j] = a->second;
  }
}

// 2. The tiles of the row, relabelled, in batches of present tiles; windows in tile order.
void Relabel::relabel_tiles(const RelabelRow& row) {
  for (;;) {
    submit_ahead();
    if (in_flight_.empty() || in_flight_.front().first != row.ty) break;  // the row's batches are done
    const std::vector<std::uint64_t> list = std::move(in_flight_.front().second);
    in_flight_.pop_front();
    relabel_batch(row, list);
  }
  enqueue([this, row] { write_absent_until(row, row.begin + tiles_x_); });
}

// The tile solver's batches are submitted ahead, in row-major tile order across tile rows, while it
// has a free slot: on the GPU (two slots) the next batch is read and labelled while this one is
// numbered on the pool (a batch's results stay valid until the next-but-one submit, which comes
// after its numbering). A batch's reads depend on nothing of the numbering. On the CPU (one slot)
// each batch is solved when submitted.
void Relabel::submit_ahead() {
  while (solver_.pending() < solver_.slots() && submit_row_ < tiles_y_) {
    const std::uint64_t end = (submit_row_ + 1ull) * tiles_x_;
    std::vector<std::uint64_t> list = next_present_tiles(input_, &submit_tile_, end, batch_, &options_);
    if (list.empty()) {
      ++submit_row_;
      continue;
    }
    ClumpTileBatch job;
    job.tiles = list.size();
    job.read = [&input = input_, &options = options_, cells = cells_, row = submit_row_, first = end - tiles_x_,
                tiles = list](std::uint64_t i, double* keys) {
      input.read_tile(static_cast<std::uint32_t>(tiles[i] - first), row, keys);
      clump_keys(keys, cells, options);
    };
    in_flight_.emplace_back(submit_row_, std::move(list));
    Stopwatch watch;
    solver_.submit(job);
    spent_.solve += watch.seconds();
  }
}

// One batch: waited for, numbered on the pool into a free set of windows (or the sink's tiles),
// measured, and queued to the writer thread.
void Relabel::relabel_batch(const RelabelRow& row, const std::vector<std::uint64_t>& list) {
  Stopwatch watch;
  const ClumpTileSolved& solved = solver_.wait();
  spent_.solve += watch.seconds();
  spent_.device += solved.device_ms / 1000;
  watch.restart();
  // This batch's windows: the set whose last batch the writer has sent (it may still send the other).
  const std::size_t set = out_set_;
  out_set_ ^= 1;
  if (set_reader_[set].valid()) set_reader_[set].get();
  std::vector<std::vector<std::uint32_t>>& out = out_sets_[set];
  auto tiles_out = std::make_shared<std::vector<std::vector<std::uint8_t>>>(direct_ ? list.size() : 0);
  for (auto& buffer : *tiles_out) buffer = sink_->take_tile();
  pool_.run(list.size(), [&](std::uint64_t s) {
    number_tile(row, list[s], s, solved, direct_ ? reinterpret_cast<std::uint32_t*>((*tiles_out)[s].data()) : out[s].data());
    if (stats_) measure_tile(s, solved);
  });
  if (stats_) collect_batch_stats(row, list);
  spent_.number += watch.seconds();
  send_batch(row, set, std::move(tiles_out), list);
}

// Tile `tile` (slot s of the batch) numbered into window `o`.
void Relabel::number_tile(const RelabelRow& row, std::uint64_t tile, std::uint64_t s, const ClumpTileSolved& solved,
                          std::uint32_t* o) {
  const std::uint32_t t = t_, h = row.h;
  const auto tx = static_cast<std::uint32_t>(tile - row.begin);
  const std::uint32_t* l = solved.labels + s * cells_;
  const std::uint32_t regions = solved.regions[s];
  // The border index of each local region (phase 1's summary, from the ring alone).
  std::vector<std::uint32_t>& bo = border_of_[s];
  if (tile_border_index(l, regions, t, &bo) != table_.tile_offset[tile + 1] - table_.tile_offset[tile])
    throw Error("clump: tile (" + std::to_string(tx) + ", " + std::to_string(row.ty) +
                ") changed between phases 1 and 3 (its border regions differ)");
  std::vector<std::uint32_t>& number = numbers_[s];
  number.assign(regions, 0);
  const std::uint64_t offset = table_.tile_offset[tile] - b0_;
  const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t;
  const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.width - x0));
  const std::uint32_t stride = direct_ ? t : w;  // a whole tile, or the window inside the raster
  // One pass over the w x h cells inside the raster (the padding's keys are NaN: no region): a
  // region is numbered at its first cell, which comes before its other cells in row-major order,
  // and every cell's number goes to the window.
  std::uint32_t seen = 0;
  for (std::uint32_t ly = 0; ly < h; ++ly) {
    std::uint64_t next = before_[static_cast<std::uint64_t>(tx) * t + ly] + 1;
    const std::uint32_t* cell = l + static_cast<std::uint64_t>(ly) * t;
    std::uint32_t* out_row = o + static_cast<std::uint64_t>(ly) * stride;
    for (std::uint32_t lx = 0; lx < w; ++lx) {
      const std::uint32_t r = cell[lx];
      if (r == kNoRegion) {
        out_row[lx] = 0;
        continue;
      }
      if (r == seen) {  // a first cell
        ++seen;
        const std::uint32_t j = bo[r];
        if (j == kNoRegion) {
          number[r] = static_cast<std::uint32_t>(next++);
        } else {
          number[r] = row_label_[offset + j];
          if (owner_of(offset + j)) {
            if (number[r] != next)
              throw Error("clump: internal error: the numbering of tile (" + std::to_string(tx) + ", " +
                          std::to_string(row.ty) + ") disagrees with its row counts");
            ++next;
          }
        }
      }
      out_row[lx] = number[r];
    }
    std::fill(out_row + w, out_row + stride, 0u);
  }
  std::fill(o + static_cast<std::uint64_t>(h) * stride, o + static_cast<std::uint64_t>(direct_ ? t : h) * stride, 0u);
  if (seen != regions)
    throw Error("clump: internal error: tile (" + std::to_string(tx) + ", " + std::to_string(row.ty) +
                ") has regions outside the raster");
}

// Slot s's regions measured: cells, tile-local box, value.
void Relabel::measure_tile(std::uint64_t s, const ClumpTileSolved& solved) {
  const std::uint32_t t = t_;
  const std::uint32_t* l = solved.labels + s * cells_;
  const std::uint32_t regions = solved.regions[s];
  SlotStats& st = slot_stats_[s];
  st.cells.assign(regions, 0);
  st.c0.assign(regions, t);
  st.r0.assign(regions, t);
  st.c1.assign(regions, 0);
  st.r1.assign(regions, 0);
  st.value.resize(regions);
  for (std::uint32_t y = 0; y < t; ++y)
    for (std::uint32_t x = 0; x < t; ++x) {
      const std::uint32_t r = l[y * t + x];
      if (r == kNoRegion) continue;
      if (st.cells[r]++ == 0) st.value[r] = options_.by == ClumpBy::Value ? solved.key(s * cells_ + y * t + x) : kNaN;
      st.c0[r] = std::min(st.c0[r], x), st.c1[r] = std::max(st.c1[r], x);
      st.r0[r] = std::min(st.r0[r], y), st.r1[r] = std::max(st.r1[r], y);
    }
}

// The batch's measures: interior regions pushed to the collector, border ones merged into their
// root's (in memory: the collector's; external: the root's slot).
void Relabel::collect_batch_stats(const RelabelRow& row, const std::vector<std::uint64_t>& list) {
  for (std::size_t s = 0; s < list.size(); ++s) {
    const SlotStats& st = slot_stats_[s];
    const std::uint64_t tile = list[s];
    const std::uint64_t x0 = (tile - row.begin) * t_, y0 = row.y0;
    for (std::uint32_t r = 0; r < st.cells.size(); ++r) {
      const std::uint32_t j = border_of_[s][r];
      if (j == kNoRegion) {
        ClumpRegionStats region;
        region.label = numbers_[s][r];
        region.cells = st.cells[r];
        region.value = st.value[r];
        region.col_min = x0 + st.c0[r], region.row_min = y0 + st.r0[r];
        region.col_max = x0 + st.c1[r], region.row_max = y0 + st.r1[r];
        stats_->push_interior(region);
      } else if (!external_) {
        const std::uint64_t root = table_.parent[table_.tile_offset[tile] + j] & ~BorderTable::kOwner;
        stats_->add_border(root, static_cast<std::uint32_t>(x0 + st.c0[r]), static_cast<std::uint32_t>(y0 + st.r0[r]),
                           static_cast<std::uint32_t>(x0 + st.c1[r]), static_cast<std::uint32_t>(y0 + st.r1[r]),
                           st.value[r]);
      } else {
        RootSlot& root = slots_[row_slot_[table_.tile_offset[tile] - b0_ + j]];
        root.c0 = std::min(root.c0, static_cast<std::uint32_t>(x0 + st.c0[r]));
        root.r0 = std::min(root.r0, static_cast<std::uint32_t>(y0 + st.r0[r]));
        root.c1 = std::max(root.c1, static_cast<std::uint32_t>(x0 + st.c1[r]));
        root.r1 = std::max(root.r1, static_cast<std::uint32_t>(y0 + st.r1[r]));
        root.value = st.value[r];
      }
    }
  }
}

// Sent on the writer thread while the next batch is solved and numbered into the other set.
void Relabel::send_batch(const RelabelRow& row, std::size_t set,
                         std::shared_ptr<std::vector<std::vector<std::uint8_t>>> tiles_out,
                         const std::vector<std::uint64_t>& list) {
  const std::vector<std::vector<std::uint32_t>>* windows = &out_sets_[set];
  set_reader_[set] = enqueue([this, windows, tiles_out, list, row] {
    for (std::size_t s = 0; s < list.size(); ++s) {
      write_absent_until(row, list[s]);
      ++written_;
      if (!sink_) continue;
      if (direct_) {
        sink_->write_tile(list[s] - row.begin, row.ty, std::move((*tiles_out)[s]));
        continue;
      }
      const std::uint64_t x0 = (list[s] - row.begin) * t_;
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t_, grid_.width - x0));
      sink_->write_window(x0, row.y0, w, row.h, (*windows)[s].data());
    }
  });
}

// On the writer thread: nodata windows for the absent tiles of the row before `tile`.
void Relabel::write_absent_until(const RelabelRow& row, std::uint64_t tile) {
  for (; written_ < tile; ++written_) {
    if (!sink_ || !options_.mine(written_)) continue;  // another rank's tile: its owner writes it
    const std::uint64_t x0 = (written_ - row.begin) * t_;
    const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t_, grid_.width - x0));
    zeros_.assign(static_cast<std::uint64_t>(w) * row.h, 0u);
    sink_->write_window(x0, row.y0, w, row.h, zeros_.data());
  }
}

// Queues `job` behind the previous one, without waiting (a job's error is rethrown by the later
// ones' futures too).
std::shared_future<void> Relabel::enqueue(std::function<void()> job) {
  last_job_ = writer_.enqueue([job = std::move(job), this] {
    Stopwatch watch;
    job();
    write_seconds_ += watch.seconds();
  });
  return last_job_;
}

// External mode: a root leaves the list of roots in use; its statistics are complete.
void Relabel::retire(std::uint32_t slot) {
  const RootSlot& r = slots_[slot];
  largest_ = std::max(largest_, r.cells);
  if (stats_) {
    ClumpRegionStats region;
    region.label = r.label;
    region.cells = r.cells;
    region.value = r.value;
    region.col_min = r.c0, region.row_min = r.r0, region.col_max = r.c1, region.row_max = r.r1;
    stats_->push_interior(region);
  }
  free_slots_.push_back(slot);
}
}  // namespace

std::uint64_t run_clump_relabel(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                ClumpTileBatchSolver& solver, const BorderRecords& records, BorderTable& table,
                                MemoryBudget& budget, Progress& progress, ClumpWindowSink* sink,
                                RegionStatsCollector* stats, ClumpRelabelSeconds* seconds,
                                std::uint64_t* external_largest) {
  Relabel relabel(input, options, pool, solver, records, table, budget, sink, stats);
  const std::uint64_t regions = relabel.run(progress);
  if (external_largest) *external_largest = relabel.largest();
  if (seconds) *seconds = relabel.spent();
  return regions;
}

}  // namespace terrazo
