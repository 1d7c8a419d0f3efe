// kernels/flow/resident_fill_cpu.cpp: the CPU twin of the resident fill (kernels/flow/resident_fill.h):
// the same start and rounds on arrays in RAM, each round processed in groups of at most batch_tiles
// tiles: the group's windows gathered and swept on the WorkerPool, then stored back and checked for
// activations by the calling thread (a later group sees the earlier ones' levels, as on the GPU,
// kernels/flow/resident_fill.cu). The steps are those of kernels/flow/resident_fill_steps.h.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/flow/resident_fill.h"
#include "kernels/flow/resident_fill_steps.h"

namespace terrazo {
namespace {

// Step 1 on one window: sweeps, alternately forwards and backwards over the tile's cells, until one
// lowers nothing. Returns the sweeps.
std::uint64_t sweep_window(const std::uint64_t* elev, std::uint64_t* level, std::uint32_t g, Connectivity connectivity) {
  const std::uint32_t s = g + 2, cells = g * g;
  for (std::uint64_t sweeps = 1;; ++sweeps) {
    bool lowered = false;
    for (std::uint32_t k = 0; k < cells; ++k) {
      const std::uint32_t i = fill_window_index(sweeps % 2 ? k : cells - 1 - k, g);
      const std::uint64_t next = fill_relax(elev, level, s, i, connectivity);
      if (next != level[i]) {
        level[i] = next;
        lowered = true;
      }
    }
    if (!lowered) return sweeps;
  }
}

class ResidentFillCpu final : public ResidentFillSolver {
 public:
  ResidentFillCpu(const ResidentFillOptions& options, WorkerPool& pool)
      : options_(options), layout_(options.width, options.height, options.g, 1), pool_(pool),
        rules_(options) {
    if (options.g < 2) throw Error("resident fill: tile side " + std::to_string(options.g) + " is below 2");
    const std::uint64_t cells = layout_.tiles() * layout_.tile_cells();
    elev_.assign(cells, kNodataKey);
    level_.assign(cells, kNoLevel);
    key_.assign(layout_.tiles(), kNoLevel);
    ever_.assign(layout_.tiles(), 0);
    group_ = std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.batch_tiles, 4ull * pool.threads()));
    const std::uint64_t s = layout_.window_side();
    window_elev_.resize(group_ * s * s);
    window_level_.resize(group_ * s * s);
    sweeps_.resize(group_);
  }

  Device device() const override { return Device::Cpu; }

  void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const double* values) override {
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x)
        elev_[layout_.index(x0 + x, y0 + y)] = fill_key(values[static_cast<std::size_t>(y) * w + x]);
  }

  ResidentFillStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) override {
    ResidentFillStats stats;
    start();
    std::vector<std::uint64_t> active;
    NearFarSchedule schedule;
    schedule.target = std::max<std::uint64_t>(1, options_.round_tiles);
    while (schedule.select(key_, &active)) {  // kNoLevel is kUnreached: not pending
      ++stats.rounds;
      stats.max_active = std::max<std::uint64_t>(stats.max_active, active.size());
      for (std::uint64_t first = 0; first < active.size(); first += group_) {
        const std::uint64_t count = std::min<std::uint64_t>(group_, active.size() - first);
        solve_group(&active[first], count, stats);
      }
      round_done(stats.rounds, stats.solves);
    }
    return stats;
  }

  void read_filled(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* filled,
                   ResidentFillCounts* counts) override {
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) {
        const std::uint64_t k = layout_.index(x0 + x, y0 + y);
        FillCellKind kind;
        filled[static_cast<std::size_t>(y) * w + x] = fill_output(elev_[k], level_[k], &kind);
        counts->valid += kind != FillCellKind::Nodata;
        counts->raised += kind == FillCellKind::Raised;
        counts->closed += kind == FillCellKind::Closed;
      }
  }

 private:
  FillCells cells() { return FillCells{layout_, elev_.data(), level_.data()}; }

  // The start: the outlets' levels, then every tile's key, the least candidate of its cells.
  void start() {
    const std::uint64_t tile_cells = layout_.tile_cells();
    pool_.run(layout_.tiles(), [&](std::uint64_t tile) {
      for (std::uint64_t k = tile * tile_cells; k < (tile + 1) * tile_cells; ++k) level_[k] = fill_start_level(cells(), rules_, k);
    });
    pool_.run(layout_.tiles(), [&](std::uint64_t tile) {
      for (std::uint64_t k = tile * tile_cells; k < (tile + 1) * tile_cells; ++k)
        key_[tile] = std::min(key_[tile], fill_start_candidate(cells(), rules_, k));
    });
  }

  // Steps 1-3 for `count` tiles of the round's list.
  void solve_group(const std::uint64_t* list, std::uint64_t count, ResidentFillStats& stats) {
    const std::uint32_t g = layout_.g, s = layout_.window_side();
    const std::uint64_t window = static_cast<std::uint64_t>(s) * s, tile_cells = layout_.tile_cells();
    // 1. Gather and sweep the group's windows.
    pool_.run(count, [&](std::uint64_t i) {
      std::uint64_t* we = &window_elev_[i * window];
      std::uint64_t* wl = &window_level_[i * window];
      for (std::uint32_t c = 0; c < window; ++c) fill_window_cell(cells(), list[i], c, &we[c], &wl[c]);
      sweeps_[i] = sweep_window(we, wl, g, options_.connectivity);
    });
    // 2. Lowered cells back; 3. activations.
    changed_.assign(count * tile_cells, 0);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t tile = list[i];
      if (!ever_[tile]) {
        ever_[tile] = 1;
        ++stats.tiles_solved;
      }
      stats.sweeps += sweeps_[i];
      const std::uint64_t* wl = &window_level_[i * window];
      for (std::uint32_t c = 0; c < tile_cells; ++c) {
        const std::uint64_t next = wl[fill_window_index(c, g)];
        if (next == level_[tile * tile_cells + c]) continue;
        level_[tile * tile_cells + c] = next;
        changed_[i * tile_cells + c] = 1;
        ++stats.cells_lowered;
      }
    }
    for (std::uint64_t i = 0; i < count; ++i) activate(list[i], &changed_[i * tile_cells]);
    stats.solves += count;
  }

  // Step 3 for one solved tile: its lowered border-band cells activate the neighbouring tiles they lower.
  void activate(std::uint64_t tile, const std::uint8_t* changed) {
    activate_band(
        layout_, changed, 0, 1, 8,
        [&](std::uint32_t lx, std::uint32_t ly, int start, int* dir, std::uint64_t* candidate) {
          return fill_improved_neighbour(cells(), tile, lx, ly, start, dir, options_.connectivity, candidate);
        },
        [&](std::uint64_t n, std::uint64_t candidate) { key_[n] = std::min(key_[n], candidate); });
  }

  ResidentFillOptions options_;
  ResidentLayout layout_;
  WorkerPool& pool_;
  FillRules rules_;
  std::vector<std::uint64_t> elev_, level_;  // per padded cell: the elevation's key, the level
  std::vector<std::uint64_t> key_;           // per tile: the least candidate pushed in; kNoLevel: not pending
  std::vector<std::uint8_t> ever_;
  std::uint64_t group_ = 1;
  std::vector<std::uint64_t> window_elev_, window_level_, sweeps_;
  std::vector<std::uint8_t> changed_;
};

}  // namespace

std::uint64_t resident_fill_bytes(const ResidentFillOptions& options, Device device, unsigned threads) {
  const ResidentLayout grid(options.width, options.height, options.g, 1);
  const std::uint64_t s = grid.window_side();
  const std::uint64_t arrays = grid.tiles() * grid.tile_cells() * 16 + grid.tiles() * 10;
  if (device == Device::Cuda) {
    // + the list and flags, the batch's solved levels and lowered flags (9 bytes a cell), CUB's temporary.
    const std::uint64_t batch = std::max<std::uint64_t>(1, std::min(options.batch_tiles, grid.tiles()));
    return arrays + grid.tiles() * 10 + batch * grid.tile_cells() * 9 + (64ull << 20);
  }
  const std::uint64_t group = std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.batch_tiles, 4ull * threads));
  return arrays + group * (s * s * 16 + grid.tile_cells() + 8);
}

std::uint64_t resident_fill_pinned_bytes(std::uint64_t window_cells) {
  return window_cells * 8 * 3 + 64;  // two upload slots and one read-back of doubles, the counts
}

std::uint32_t resident_fill_max_g(std::uint64_t shared_bytes) {
  std::uint32_t g = 2;
  while (static_cast<std::uint64_t>(g + 3) * (g + 3) * 16 <= shared_bytes) ++g;
  return g;
}

std::unique_ptr<ResidentFillSolver> make_resident_fill_solver(Device device, const ResidentFillOptions& options,
                                                              WorkerPool& pool) {
  if (device == Device::Cuda) return make_resident_fill_cuda(options);
  return std::make_unique<ResidentFillCpu>(options, pool);
}

}  // namespace terrazo
