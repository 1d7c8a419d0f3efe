// kernels/sssp/resident_sssp_cpu.cpp: the CPU twin of the resident SSSP solver (kernels/sssp/resident_sssp.h):
// the same rounds on arrays in RAM, each active tile solved by block_sssp_cpu on the WorkerPool.
// Rounds follow the near-far schedule of resident_sssp_steps.h. A round is processed in groups of at most batch_tiles tiles: the group's windows are gathered
// and solved in parallel, then stored back and checked for activations by the calling thread (the
// windows of a later group of the same round see the earlier groups' results; the CUDA solver
// groups the same way, see kernels/sssp/resident_sssp.cu).
#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/resident_sssp.h"
#include "kernels/sssp/resident_sssp_steps.h"

namespace terrazo {
namespace {

class ResidentSsspCpu final : public ResidentSsspSolver {
 public:
  ResidentSsspCpu(const ResidentSsspOptions& options, WorkerPool& pool)
      : options_(options), layout_(options), pool_(pool),
        edges_(resident_edges(options.params, options.connectivity, options.max_cost)) {
    if (options.g < 2) throw Error("resident SSSP: tile side " + std::to_string(options.g) + " is below 2");
    const std::uint64_t cells = layout_.tiles() * layout_.tile_cells();
    values_.assign(cells, std::numeric_limits<double>::quiet_NaN());
    dist_.assign(cells, kUnreached);
    key_.assign(layout_.tiles(), kUnreached);
    ever_.assign(layout_.tiles(), 0);
    group_ = std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.batch_tiles, 4ull * pool.threads()));
    const std::uint64_t s = layout_.window_side();
    window_values_.resize(group_ * s * s);
    window_dist_.resize(group_ * s * s);
    changed_.resize(group_ * layout_.tile_cells());
    overflow_.assign(group_, 0);
    Weight step = 0;
    bfs_ = options.frontier_bfs && options.connectivity != Connectivity::Sixteen && block_bfs_step(options.params, &step);
  }

  Device device() const override { return Device::Cpu; }

  void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const double* values) override {
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) values_[layout_.index(x0 + x, y0 + y)] = values[static_cast<std::size_t>(y) * w + x];
  }

  void set_source(std::uint64_t x, std::uint64_t y, PathLength start) override {
    PathLength& d = dist_[layout_.index(x, y)];
    d = std::min(d, start);
    for (const std::uint64_t tile : layout_.source_tiles(x, y)) key_[tile] = std::min(key_[tile], start);
  }

  ResidentSsspStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) override {
    ResidentSsspStats stats;
    NearFarSchedule schedule;
    schedule.target = std::max<std::uint64_t>(1, options_.round_tiles);
    for (PathLength least = smallest_key(); least != kUnreached; least = smallest_key()) {
      schedule.adapt(solve_round(schedule.threshold(least), stats));
      round_done(stats.rounds, stats.solves);
    }
    return stats;
  }

  PathLength smallest_key() override { return *std::min_element(key_.begin(), key_.end()); }

  std::uint64_t solve_round(PathLength threshold, ResidentSsspStats& stats) override {
    active_.clear();
    for (std::uint64_t k = 0; k < key_.size(); ++k)
      if (key_[k] <= threshold) {
        key_[k] = kUnreached;
        active_.push_back(k);
      }
    if (active_.empty()) return 0;
    ++stats.rounds;
    stats.max_active = std::max<std::uint64_t>(stats.max_active, active_.size());
    for (std::uint64_t first = 0; first < active_.size(); first += group_) {
      const std::uint64_t count = std::min<std::uint64_t>(group_, active_.size() - first);
      solve_group(first, count);
      store_group(first, count, stats);
      for (std::uint64_t i = 0; i < count; ++i) activate(active_[first + i], &changed_[i * layout_.tile_cells()], &stats.overflow);
      stats.solves += count;
    }
    return active_.size();
  }

  void read_counters(ResidentSsspStats&) override {}  // solve_round counts as it goes

  void set_exchange_cells(const std::vector<std::uint64_t>& cells) override {
    exchange_.clear();
    for (const std::uint64_t c : cells) exchange_.push_back(ExchangeCell{c % options_.width, c / options_.width});
  }

  void read_cells(PathLength* out) override {
    for (std::size_t i = 0; i < exchange_.size(); ++i) out[i] = dist_[layout_.index(exchange_[i].x, exchange_[i].y)];
  }

  std::uint64_t lower_cells(const PathLength* in) override {
    std::uint64_t lowered = 0;
    for (std::size_t i = 0; i < exchange_.size(); ++i) {
      if (in[i] >= dist_[layout_.index(exchange_[i].x, exchange_[i].y)]) continue;
      set_source(exchange_[i].x, exchange_[i].y, in[i]);
      ++lowered;
    }
    return lowered;
  }

  void read_distances(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, PathLength* dist) override {
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) dist[static_cast<std::size_t>(y) * w + x] = dist_[layout_.index(x0 + x, y0 + y)];
  }

 private:
  ResidentCells cells() { return ResidentCells{layout_, values_.data(), dist_.data()}; }

  // Step 1 for the round's tiles [first, first + count): their windows gathered and solved on the pool.
  void solve_group(std::uint64_t first, std::uint64_t count) {
    const std::uint32_t g = layout_.g, s = layout_.window_side(), h = layout_.halo;
    const std::uint64_t window = static_cast<std::uint64_t>(s) * s, tile_cells = layout_.tile_cells();
    pool_.run(count, [&](std::uint64_t i) {
      const std::uint64_t tile = active_[first + i];
      double* wv = &window_values_[i * window];
      PathLength* wd = &window_dist_[i * window];
      for (std::uint32_t c = 0; c < window; ++c) resident_window_cell(cells(), tile, c, &wv[c], &wd[c]);
      bool overflow = false;
      WeightParams params = options_.params;  // per-row step lengths: the window's first global row
      params.steps.row0 = static_cast<std::int64_t>((tile / layout_.tiles_x) * g) - h;
      if (bfs_)
        block_bfs_cpu(wv, g, params, options_.connectivity, options_.max_cost, wd, &changed_[i * tile_cells]);
      else
        block_sssp_cpu(wv, g, params, options_.connectivity, options_.max_cost, wd, &changed_[i * tile_cells], &overflow);
      overflow_[i] = overflow ? 1 : 0;
    });
  }

  // Step 2 for the same tiles: the changed interior cells stored back.
  void store_group(std::uint64_t first, std::uint64_t count, ResidentSsspStats& stats) {
    const std::uint32_t g = layout_.g, s = layout_.window_side(), h = layout_.halo;
    const std::uint64_t window = static_cast<std::uint64_t>(s) * s, tile_cells = layout_.tile_cells();
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t tile = active_[first + i];
      if (overflow_[i]) stats.overflow = true;
      if (!ever_[tile]) {
        ever_[tile] = 1;
        ++stats.tiles_solved;
      }
      const PathLength* wd = &window_dist_[i * window];
      PathLength* out = &dist_[tile * tile_cells];
      const std::uint8_t* changed = &changed_[i * tile_cells];
      for (std::uint32_t y = 0; y < g; ++y)
        for (std::uint32_t x = 0; x < g; ++x) {
          const std::uint32_t l = y * g + x;
          if (!changed[l]) continue;
          out[l] = wd[(y + h) * s + x + h];
          ++stats.cells_improved;
        }
    }
  }

  // Step 3 for one solved tile: its changed border-band cells activate the neighbouring tiles they improve.
  void activate(std::uint64_t tile, const std::uint8_t* changed, bool* overflow) {
    activate_band(
        layout_, changed, 0, 1, direction_count(options_.connectivity),
        [&](std::uint32_t lx, std::uint32_t ly, int start, int* dir, PathLength* candidate) {
          return resident_improved_neighbour(cells(), tile, lx, ly, start, dir, edges_, candidate, overflow);
        },
        [&](std::uint64_t n, PathLength candidate) { key_[n] = std::min(key_[n], candidate); });
  }

  ResidentSsspOptions options_;
  ResidentLayout layout_;
  WorkerPool& pool_;
  ResidentEdges edges_;
  std::vector<double> values_;
  std::vector<PathLength> dist_;
  std::vector<PathLength> key_;  // pending tiles: the smallest distance pushed in; kUnreached: not pending
  std::vector<std::uint8_t> ever_;
  std::uint64_t group_ = 1;
  std::vector<double> window_values_;
  std::vector<PathLength> window_dist_;
  std::vector<std::uint8_t> changed_, overflow_;
  bool bfs_ = false;  // the unit model's frontier BFS twin (kernels/sssp/block_bfs.h)
  std::vector<std::uint64_t> active_;  // the round's tiles, ascending
  struct ExchangeCell {
    std::uint64_t x, y;
  };
  std::vector<ExchangeCell> exchange_;  // set_exchange_cells
};

}  // namespace

std::uint64_t resident_sssp_bytes(const ResidentSsspOptions& options, Device device, unsigned threads) {
  const ResidentLayout grid(options);
  const std::uint64_t s = grid.window_side();
  const std::uint64_t arrays = grid.tiles() * grid.tile_cells() * 16 + grid.tiles() * 10;
  // + the list, the batch windows (values and distances, 16 bytes a cell) with the block solver's
  // weight scratch (4 planes of 4 bytes; 16 planes with knight's moves), CUB's temporary.
  const std::uint64_t scratch = options.connectivity == Connectivity::Sixteen ? 64 : 16;
  if (device == Device::Cuda)
    return arrays + grid.tiles() * 10 + options.batch_tiles * (s * s * (16 + scratch) + grid.tile_cells()) + (64ull << 20);
  const std::uint64_t group = std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.batch_tiles, 4ull * threads));
  return arrays + group * (s * s * 16 + grid.tile_cells() + 1) +
         static_cast<std::uint64_t>(threads) * s * s * 48;  // block_sssp_cpu's per-thread queue and mask
}

std::uint64_t resident_sssp_paged_device_bytes(const ResidentSsspOptions& options, std::uint64_t slots) {
  const ResidentLayout grid(options);
  const std::uint64_t s = grid.window_side(), batch = std::max<std::uint64_t>(1, std::min(options.batch_tiles, slots / 2));
  const std::uint64_t scratch = options.connectivity == Connectivity::Sixteen ? 64 : 16;
  const std::uint64_t rings = grid.tiles() * grid.border_count() * 16;
  const std::uint64_t per_tile = grid.tiles() * (8 + 1 + 1 + 8 + 4);  // key, flags, list, slot
  return rings + per_tile + slots * grid.tile_cells() * 16 + batch * (s * s * (16 + scratch) + grid.tile_cells()) +
         3 * batch * 16 + (64ull << 20);
}

std::uint64_t resident_sssp_paged_host_bytes(const ResidentSsspOptions& options) {
  const ResidentLayout grid(options);
  return grid.tiles() * (grid.tile_cells() * 16 + 8) + 3 * options.batch_tiles * 16;  // backing, list, moves
}

std::uint64_t resident_sssp_paged_slots(ResidentSsspOptions options, std::uint64_t room) {
  const ResidentLayout grid(options);
  if (resident_sssp_paged_device_bytes(options, 2) > room) return 0;
  std::uint64_t low = 2, high = grid.tiles();  // the most slots that fit: low fits, high + 1 is never needed
  while (low < high) {
    const std::uint64_t mid = low + (high - low + 1) / 2;
    if (resident_sssp_paged_device_bytes(options, mid) <= room) low = mid;
    else high = mid - 1;
  }
  return low;
}

std::unique_ptr<ResidentSsspSolver> make_resident_sssp_solver(Device device, const ResidentSsspOptions& options,
                                                              WorkerPool& pool) {
  if (device == Device::Cuda) return make_resident_sssp_cuda(options);
  return std::make_unique<ResidentSsspCpu>(options, pool);
}

}  // namespace terrazo
