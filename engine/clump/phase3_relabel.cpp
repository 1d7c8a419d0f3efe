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

std::uint64_t run_clump_relabel(const TileInput& input, const ClumpPhaseOptions& options, WorkerPool& pool,
                                ClumpTileBatchSolver& solver, const BorderRecords& records, BorderTable& table,
                                MemoryBudget& budget, Progress& progress, ClumpWindowSink* sink,
                                RegionStatsCollector* stats, ClumpRelabelSeconds* seconds,
                                std::uint64_t* external_largest) {
  ClumpRelabelSeconds spent;
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile, tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  auto row_reservation = budget.reserve(clump_relabel_row_bytes(grid), "clump row start counts (phase 3)");
  std::vector<std::uint32_t> starts(static_cast<std::uint64_t>(tiles_x) * t);  // [tx * t + ly]
  std::vector<std::uint64_t> before(static_cast<std::uint64_t>(tiles_x) * t);  // P[tx * t + ly]
  // The border regions of one tile row: their labels; external mode also their records, roots and
  // root slots, and the roots still in use (a sorted list of (root, slot)) with their slots.
  const bool external = table.external();
  const std::uint64_t max_row = clump_max_row_border_regions(grid, table);
  auto border_row_reservation =
      budget.reserve(max_row * clump_relabel_border_bytes(external), "clump border regions of a tile row (phase 3)");
  std::vector<std::uint32_t> row_label(max_row);
  std::vector<BorderRegion> row_region(external ? max_row : 0);
  std::vector<std::uint64_t> row_root(external ? max_row : 0);
  std::vector<std::uint32_t> row_slot(external ? max_row : 0);
  struct RootSlot {
    std::uint64_t label = 0, cells = 0;
    double value = 0;
    std::uint32_t c0 = 0, r0 = 0, c1 = 0, r1 = 0, stamp = 0;
  };
  std::vector<RootSlot> slots;
  std::vector<std::uint32_t> free_slots;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> active, next_active;  // (root, slot), sorted by root
  if (external) {
    slots.reserve(2 * max_row);
    active.reserve(2 * max_row);
    next_active.reserve(2 * max_row);
  }
  std::uint64_t b0 = 0;  // the row's first border region
  // Border region j of the row (0-based from b0): first cell, starts before, owner, root key.
  auto first_of = [&](std::uint64_t j) { return external ? row_region[j].first : table.first[b0 + j]; };
  auto starts_before_of = [&](std::uint64_t j) {
    return external ? row_region[j].starts_before : table.starts_before[b0 + j];
  };
  auto owner_of = [&](std::uint64_t j) {
    return external ? row_root[j] == row_region[j].first : (table.parent[b0 + j] & BorderTable::kOwner) != 0;
  };
  auto find_active = [&](std::uint64_t root) -> const std::pair<std::uint64_t, std::uint32_t>* {
    const auto it = std::lower_bound(active.begin(), active.end(), std::make_pair(root, std::uint32_t{0}));
    return it != active.end() && it->first == root ? &*it : nullptr;
  };
  // External mode: a root leaves the list when the next row has none of its regions (a region is
  // connected, so it then has none below either); its statistics are complete.
  std::uint64_t largest = 0;
  auto retire = [&](std::uint32_t slot) {
    const RootSlot& r = slots[slot];
    largest = std::max(largest, r.cells);
    if (stats) {
      ClumpRegionStats region;
      region.label = r.label;
      region.cells = r.cells;
      region.value = r.value;
      region.col_min = r.c0, region.row_min = r.r0, region.col_max = r.c1, region.row_max = r.r1;
      stats->push_interior(region);
    }
    free_slots.push_back(slot);
  };
  // Tiles per batch: the solver's, fewer when their windows do not fit what is left.
  std::uint64_t batch = std::min<std::uint64_t>(solver.batch_tiles(), tiles_x);
  {
    const std::uint64_t fixed = clump_relabel_slot_bytes(t, pool.threads(), 0, stats != nullptr);
    const std::uint64_t per_tile = clump_relabel_slot_bytes(t, 0, 1, stats != nullptr);
    const std::uint64_t left = budget.available() > fixed ? budget.available() - fixed : 0;
    batch = std::max<std::uint64_t>(1, std::min(batch, left / per_tile));
  }
  auto slot_reservation = budget.reserve(clump_relabel_slot_bytes(t, pool.threads(), batch, stats != nullptr),
                                         "clump tile windows (phase 3)");
  struct SlotStats {
    std::vector<std::uint32_t> cells, c0, r0, c1, r1;
    std::vector<double> value;
  };
  std::vector<SlotStats> slot_stats(stats ? batch : 0);
  // Two sets of output windows: the writer thread sends one batch's windows to the sink (the
  // GeoTIFF writer, one thread) while this thread solves and numbers the next batch into the other.
  // A sink that takes whole tiles (the GeoTIFF's blocks are the tiles) lends their buffers instead:
  // the pool fills them and the writer thread only hands them over.
  const bool direct = sink && sink->takes_tiles(t);
  std::vector<std::vector<std::uint32_t>> out_sets[2];
  if (!direct)
    for (auto& set : out_sets) set.assign(batch, std::vector<std::uint32_t>(cells));
  std::vector<std::vector<std::uint32_t>> numbers(batch), border_of(batch);
  std::vector<std::uint32_t> zeros;  // the writer's
  std::uint64_t written = 0;         // the writer's: tiles whose windows went to the sink, in tile order
                                     // (each row's last job leaves it at the next row's first tile)
  std::size_t out_set = 0;
  double write_seconds = 0;
  std::shared_future<void> last_job;       // the newest writer job
  std::shared_future<void> set_reader[2];  // the job that sends each set of windows
  // Declared after everything the writer jobs use, so an exception here joins it before those go.
  WriterThread writer;
  // Queues `job` behind the previous one, without waiting (a job's error is rethrown by the later
  // ones' futures too).
  auto enqueue = [&](std::function<void()> job) {
    last_job = writer.enqueue([job = std::move(job), &write_seconds] {
      Stopwatch watch;
      job();
      write_seconds += watch.seconds();
    });
    return last_job;
  };

  // The tile solver's batches are submitted ahead, in row-major tile order across tile rows, while
  // it has a free slot: on the GPU (two slots) the next batch is read and labelled while this one is
  // numbered on the pool (a batch's results stay valid until the next-but-one submit, which comes
  // after its numbering). A batch's reads depend on nothing of the numbering. On the CPU (one slot)
  // each batch is solved when submitted, as before.
  std::deque<std::pair<std::uint32_t, std::vector<std::uint64_t>>> in_flight;  // (tile row, tiles), oldest first
  std::uint32_t submit_row = 0;
  std::uint64_t submit_tile = 0;
  auto submit_ahead = [&] {
    while (solver.pending() < solver.slots() && submit_row < tiles_y) {
      const std::uint64_t end = (submit_row + 1ull) * tiles_x;
      std::vector<std::uint64_t> list = next_present_tiles(input, &submit_tile, end, batch);
      if (list.empty()) {
        ++submit_row;
        continue;
      }
      ClumpTileBatch job;
      job.tiles = list.size();
      job.read = [&input, &options, cells, row = submit_row, first = end - tiles_x, tiles = list](std::uint64_t i,
                                                                                                 double* keys) {
        input.read_tile(static_cast<std::uint32_t>(tiles[i] - first), row, keys);
        clump_keys(keys, cells, options);
      };
      in_flight.emplace_back(submit_row, std::move(list));
      Stopwatch watch;
      solver.submit(job);
      spent.solve += watch.seconds();
    }
  };

  std::uint64_t base = 0;
  progress.update("clump: relabel", 0, tiles_y);
  for (std::uint32_t ty = 0; ty < tiles_y; ++ty) {
    b0 = table.tile_offset[static_cast<std::uint64_t>(ty) * tiles_x];
    const std::uint64_t row_regions = table.tile_offset[static_cast<std::uint64_t>(ty + 1) * tiles_x] - b0;
    if (external) {
      table.read_regions(b0, row_regions, row_region.data());
      table.read_roots(b0, row_regions, row_root.data());
      // The roots of the rows above that this row still uses stay; the others retire.
      for (std::uint64_t j = 0; j < row_regions; ++j)
        if (const auto* a = find_active(row_root[j])) slots[a->second].stamp = ty + 1;
      next_active.clear();
      for (const auto& a : active) {
        if (slots[a.second].stamp == ty + 1) next_active.push_back(a);
        else retire(a.second);
      }
      active.swap(next_active);
    }
    // C: interior starts (phase 1) + owner border starts.
    std::fill(starts.begin(), starts.end(), 0u);
    for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
      const std::uint64_t tile = static_cast<std::uint64_t>(ty) * tiles_x + tx;
      records.read_starts(tile, &starts[static_cast<std::uint64_t>(tx) * t]);
      for (std::uint64_t j = table.tile_offset[tile] - b0; j < table.tile_offset[tile + 1] - b0; ++j)
        if (owner_of(j)) ++starts[static_cast<std::uint64_t>(tx) * t + first_of(j) / grid.width - static_cast<std::uint64_t>(ty) * t];
    }
    // P, row-major over (ly, tx).
    for (std::uint32_t ly = 0; ly < t; ++ly)
      for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
        before[static_cast<std::uint64_t>(tx) * t + ly] = base;
        base += starts[static_cast<std::uint64_t>(tx) * t + ly];
      }
    if (base > options.max_regions)
      throw Error("clump: more than " + std::to_string(options.max_regions) +
                  " regions: the labels do not fit UInt32 (0 is nodata)");
    // 1. The roots owned by this row.
    for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
      const std::uint64_t tile = static_cast<std::uint64_t>(ty) * tiles_x + tx;
      std::uint64_t row = ~0ull, owners_left = 0;
      for (std::uint64_t j = table.tile_offset[tile] - b0; j < table.tile_offset[tile + 1] - b0; ++j) {
        if (!owner_of(j)) continue;
        const std::uint64_t ly = first_of(j) / grid.width - static_cast<std::uint64_t>(ty) * t;
        if (ly != row) row = ly, owners_left = 0;
        const std::uint64_t label = before[static_cast<std::uint64_t>(tx) * t + ly] + starts_before_of(j) + owners_left + 1;
        ++owners_left;
        if (!external) {
          table.root[table.parent[b0 + j] & ~BorderTable::kOwner] = label;
          continue;
        }
        std::uint32_t slot;
        if (free_slots.empty()) {
          slot = static_cast<std::uint32_t>(slots.size());
          slots.emplace_back();
        } else {
          slot = free_slots.back();
          free_slots.pop_back();
        }
        RootSlot& r = slots[slot];
        r = RootSlot();
        r.label = label;
        r.c0 = r.r0 = std::numeric_limits<std::uint32_t>::max();
        r.stamp = ty + 1;
        active.emplace_back(row_root[j], slot);
      }
    }
    if (external) std::sort(active.begin(), active.end());
    // Every border region's label (and, external, its root's slot and cells).
    for (std::uint64_t j = 0; j < row_regions; ++j) {
      if (!external) {
        row_label[j] = static_cast<std::uint32_t>(table.root[table.parent[b0 + j] & ~BorderTable::kOwner]);
        continue;
      }
      const auto* a = find_active(row_root[j]);
      if (!a)
        throw Error("clump: internal error: a border region's root is neither in its tile row nor in use from above");
      RootSlot& r = slots[a->second];
      r.cells += row_region[j].cells;
      row_label[j] = static_cast<std::uint32_t>(r.label);
      row_slot[j] = a->second;
    }
    // 2. The tiles of the row, relabelled, in batches of present tiles; windows in tile order.
    const std::uint64_t y0 = static_cast<std::uint64_t>(ty) * t;
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.height - y0));
    const std::uint64_t row_begin = static_cast<std::uint64_t>(ty) * tiles_x, row_end = row_begin + tiles_x;
    // On the writer thread: nodata windows for the absent tiles of this row before `tile`.
    auto write_absent_until = [&, row_begin, y0, h](std::uint64_t tile) {
      for (; written < tile; ++written) {
        if (!sink) continue;
        const std::uint64_t x0 = (written - row_begin) * t;
        const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.width - x0));
        zeros.assign(static_cast<std::uint64_t>(w) * h, 0u);
        sink->write_window(x0, y0, w, h, zeros.data());
      }
    };

    for (;;) {
      submit_ahead();
      if (in_flight.empty() || in_flight.front().first != ty) break;  // the row's batches are done
      const std::vector<std::uint64_t> list = std::move(in_flight.front().second);
      in_flight.pop_front();
      Stopwatch watch;
      const ClumpTileSolved& solved = solver.wait();
      spent.solve += watch.seconds();
      spent.device += solved.device_ms / 1000;
      watch.restart();
      // This batch's windows: the set whose last batch the writer has sent (it may still send the other).
      const std::size_t set = out_set;
      out_set ^= 1;
      if (set_reader[set].valid()) set_reader[set].get();
      std::vector<std::vector<std::uint32_t>>& out = out_sets[set];
      auto tiles_out = std::make_shared<std::vector<std::vector<std::uint8_t>>>(direct ? list.size() : 0);
      for (auto& buffer : *tiles_out) buffer = sink->take_tile();
      pool.run(list.size(), [&](std::uint64_t s) {
        const std::uint64_t tile = list[s];
        const auto tx = static_cast<std::uint32_t>(tile - row_begin);
        std::uint32_t* o = direct ? reinterpret_cast<std::uint32_t*>((*tiles_out)[s].data()) : out[s].data();
        const std::uint32_t* l = solved.labels + s * cells;
        const std::uint32_t regions = solved.regions[s];
        // The border index of each local region (phase 1's summary, from the ring alone).
        std::vector<std::uint32_t>& bo = border_of[s];
        if (tile_border_index(l, regions, t, &bo) != table.tile_offset[tile + 1] - table.tile_offset[tile])
          throw Error("clump: tile (" + std::to_string(tx) + ", " + std::to_string(ty) +
                      ") changed between phases 1 and 3 (its border regions differ)");
        std::vector<std::uint32_t>& number = numbers[s];
        number.assign(regions, 0);
        const std::uint64_t offset = table.tile_offset[tile] - b0;
        const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t;
        const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.width - x0));
        const std::uint32_t stride = direct ? t : w;  // a whole tile, or the window inside the raster
        // One pass over the w x h cells inside the raster (the padding's keys are NaN: no region):
        // a region is numbered at its first cell, which comes before its other cells in row-major
        // order, and every cell's number goes to the window.
        std::uint32_t seen = 0;
        for (std::uint32_t ly = 0; ly < h; ++ly) {
          std::uint64_t next = before[static_cast<std::uint64_t>(tx) * t + ly] + 1;
          const std::uint32_t* row = l + static_cast<std::uint64_t>(ly) * t;
          std::uint32_t* out_row = o + static_cast<std::uint64_t>(ly) * stride;
          for (std::uint32_t lx = 0; lx < w; ++lx) {
            const std::uint32_t r = row[lx];
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
                number[r] = row_label[offset + j];
                if (owner_of(offset + j)) {
                  if (number[r] != next)
                    throw Error("clump: internal error: the numbering of tile (" + std::to_string(tx) + ", " +
                                std::to_string(ty) + ") disagrees with its row counts");
                  ++next;
                }
              }
            }
            out_row[lx] = number[r];
          }
          std::fill(out_row + w, out_row + stride, 0u);
        }
        std::fill(o + static_cast<std::uint64_t>(h) * stride, o + static_cast<std::uint64_t>(direct ? t : h) * stride, 0u);
        if (seen != regions)
          throw Error("clump: internal error: tile (" + std::to_string(tx) + ", " + std::to_string(ty) +
                      ") has regions outside the raster");
        if (stats) {
          SlotStats& st = slot_stats[s];
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
              if (st.cells[r]++ == 0) st.value[r] = options.by == ClumpBy::Value ? solved.key(s * cells + y * t + x) : kNaN;
              st.c0[r] = std::min(st.c0[r], x), st.c1[r] = std::max(st.c1[r], x);
              st.r0[r] = std::min(st.r0[r], y), st.r1[r] = std::max(st.r1[r], y);
            }
        }
      });
      if (stats) {
        for (std::size_t s = 0; s < list.size(); ++s) {
          const SlotStats& st = slot_stats[s];
          const std::uint64_t tile = list[s];
          const std::uint64_t x0 = (tile - row_begin) * t;
          for (std::uint32_t r = 0; r < st.cells.size(); ++r) {
            const std::uint32_t j = border_of[s][r];
            if (j == kNoRegion) {
              ClumpRegionStats region;
              region.label = numbers[s][r];
              region.cells = st.cells[r];
              region.value = st.value[r];
              region.col_min = x0 + st.c0[r], region.row_min = y0 + st.r0[r];
              region.col_max = x0 + st.c1[r], region.row_max = y0 + st.r1[r];
              stats->push_interior(region);
            } else if (!external) {
              const std::uint64_t root = table.parent[table.tile_offset[tile] + j] & ~BorderTable::kOwner;
              stats->add_border(root, static_cast<std::uint32_t>(x0 + st.c0[r]), static_cast<std::uint32_t>(y0 + st.r0[r]),
                                static_cast<std::uint32_t>(x0 + st.c1[r]), static_cast<std::uint32_t>(y0 + st.r1[r]),
                                st.value[r]);
            } else {
              RootSlot& root = slots[row_slot[table.tile_offset[tile] - b0 + j]];
              root.c0 = std::min(root.c0, static_cast<std::uint32_t>(x0 + st.c0[r]));
              root.r0 = std::min(root.r0, static_cast<std::uint32_t>(y0 + st.r0[r]));
              root.c1 = std::max(root.c1, static_cast<std::uint32_t>(x0 + st.c1[r]));
              root.r1 = std::max(root.r1, static_cast<std::uint32_t>(y0 + st.r1[r]));
              root.value = st.value[r];
            }
          }
        }
      }
      spent.number += watch.seconds();
      // Sent on the writer thread while the next batch is solved and numbered into the other set.
      const std::vector<std::vector<std::uint32_t>>* windows = &out;
      set_reader[set] = enqueue([&, windows, tiles_out, list, row_begin, y0, h, ty, write_absent_until]() mutable {
        for (std::size_t s = 0; s < list.size(); ++s) {
          write_absent_until(list[s]);
          ++written;
          if (!sink) continue;
          if (direct) {
            sink->write_tile(list[s] - row_begin, ty, std::move((*tiles_out)[s]));
            continue;
          }
          const std::uint64_t x0 = (list[s] - row_begin) * t;
          const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.width - x0));
          sink->write_window(x0, y0, w, h, (*windows)[s].data());
        }
      });
    }
    enqueue([write_absent_until, row_end]() mutable { write_absent_until(row_end); });
    progress.update("clump: relabel", ty + 1, tiles_y, (ty + 1ull) * t * grid.width);
  }
  if (last_job.valid()) last_job.get();
  for (const auto& a : active) retire(a.second);
  if (external_largest) *external_largest = largest;
  spent.write = write_seconds;  // the sink's time on the writer thread (overlapping the next batches)
  if (seconds) *seconds = spent;
  return base;
}

}  // namespace terrazo
