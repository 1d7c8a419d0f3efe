// kernels/flow/resident_flowdir_cpu.cpp: the CPU twin of the resident flow directions
// (kernels/flow/resident_flowdir.h): the per-cell steps of resident_flowdir_steps.h over chunks of
// cells on a worker pool (the union-find concurrent, with atomics, as on the GPU), and the BFS rounds
// in groups of tiles: the group's windows gathered and swept on the pool, then stored back tile by
// tile (each tile its own cells), so no window is read while another tile's cells are written; a later
// group sees the earlier ones' distances, as the GPU's blocks may. And make_resident_flowdir.
#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/resident_nodata.h"
#include "kernels/flow/resident_flowdir.h"
#include "kernels/flow/resident_flowdir_steps.h"
#include "kernels/flow/resident_window.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kChunk = 1ull << 16;  // cells per pool iteration of a per-cell step

// The CPU twin's tiles per group: group_tiles, or 4 per pool thread.
std::uint64_t resident_flowdir_group(const ResidentFlowdirOptions& options, unsigned threads) {
  return options.group_tiles ? options.group_tiles : 4ull * std::max(1u, threads);
}

class ResidentFlowdirCpu final : public ResidentFlowdir {
 public:
  ResidentFlowdirCpu(const ResidentFlowdirOptions& options, WorkerPool& pool)
      : options_(options), pool_(pool), windows_{"resident flowdir", options.width, options.height, options.tile},
        tiles_{options.width, options.height, options.g} {
    if (options.g < 2 || options.g > 64) throw Error("resident flowdir: tile side " + std::to_string(options.g) + " is not 2 to 64");
    const std::uint64_t n = options.width * options.height;
    elev_.assign(n, resident_nodata());
    code_.assign(n, kD8Nodata);
    kind_.assign(n, 0);
    low_.assign(n, 0);
    towards_.assign(n, kFlatUnreached);
    away_.assign(n, kFlatUnreached);
    top_.assign(n, 0);
    parent_.assign(n, kNoFlatParent);
    cells_ = FlowdirCells{options.width, options.height, elev_.data(), code_.data(), kind_.data(), low_.data(),
                          towards_.data(), away_.data(), top_.data(), parent_.data()};
    group_ = resident_flowdir_group(options, pool.threads());
  }

  Device device() const override { return Device::Cpu; }

  void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                    const double* values) override {
    windows_.check(x0, y0, w, h);
    for (std::uint32_t y = 0; y < h; ++y)
      std::copy_n(values + std::size_t{y} * pitch, w, &elev_[(y0 + y) * options_.width + x0]);
  }

  ResidentFlowdirStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) override {
    ResidentFlowdirStats stats;
    const FlowdirRules rules{options_.edge_outlets, options_.nodata_outlets};
    FlowdirCount counts = count_cells([&](std::uint64_t i) { return flowdir_classify(cells_, rules, i); });
    for_cells([&](std::uint64_t i) { flowdir_seed(cells_, i); });
    for_cells([&](std::uint64_t i) { flowdir_unite(cells_, i); });
    for_cells([&](std::uint64_t i) { flowdir_compress(cells_, i); });
    relax_rounds(stats, round_done);
    for_cells([&](std::uint64_t i) { flowdir_raise_top(cells_, i); });
    counts.add(count_cells([&](std::uint64_t i) { return flowdir_flat_code(cells_, i); }));
    flowdir_record_counts(counts, stats);
    return stats;
  }

  void read_codes(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                  std::uint8_t* out) override {
    windows_.check(x0, y0, w, h);
    for (std::uint32_t y = 0; y < h; ++y) std::copy_n(&code_[(y0 + y) * options_.width + x0], w, out + std::size_t{y} * pitch);
  }

 private:
  std::uint64_t cells() const { return options_.width * options_.height; }

  template <class Body>
  void for_cells(Body&& body) {
    const std::uint64_t n = cells();
    pool_.run((n + kChunk - 1) / kChunk, [&](std::uint64_t chunk) {
      for (std::uint64_t i = chunk * kChunk; i < std::min(n, (chunk + 1) * kChunk); ++i) body(i);
    });
  }

  // body(i) -> FlowdirCount for every cell, summed.
  template <class Body>
  FlowdirCount count_cells(Body&& body) {
    std::vector<FlowdirCount> counts((cells() + kChunk - 1) / kChunk);
    const std::uint64_t n = cells();
    pool_.run(counts.size(), [&](std::uint64_t chunk) {
      for (std::uint64_t i = chunk * kChunk; i < std::min(n, (chunk + 1) * kChunk); ++i) counts[chunk].add(body(i));
    });
    FlowdirCount total;
    for (const FlowdirCount& c : counts) total.add(c);
    return total;
  }

  // Step 4: the first round lists every tile with a flat cell; each round's tiles solved in groups.
  void relax_rounds(ResidentFlowdirStats& stats, const std::function<void(std::uint64_t, std::uint64_t)>& round_done) {
    std::vector<std::uint64_t> list;
    std::vector<std::uint8_t> listed(tiles_.tiles(), 0);
    for (std::uint64_t i = 0; i < cells(); ++i)
      if (kind_[i] & kDirFlat) {
        const std::uint64_t tile = (i / options_.width / tiles_.g) * tiles_.tiles_x() + (i % options_.width) / tiles_.g;
        if (!listed[tile]) listed[tile] = 1, list.push_back(tile);
      }
    std::sort(list.begin(), list.end());
    while (!list.empty()) {
      stats.max_active = std::max<std::uint64_t>(stats.max_active, list.size());
      std::fill(listed.begin(), listed.end(), 0);
      std::vector<std::uint64_t> next;
      for (std::uint64_t first = 0; first < list.size(); first += group_)
        solve_group(&list[first], std::min<std::uint64_t>(group_, list.size() - first), listed, next, stats);
      std::sort(next.begin(), next.end());
      list.swap(next);
      ++stats.rounds;
      round_done(stats.rounds, stats.solves);
    }
  }

  // The windows of `count` listed tiles gathered and swept on the pool, stored back, and the tiles
  // across the sides where a border cell lowered listed in `next`.
  void solve_group(const std::uint64_t* list, std::uint64_t count, std::vector<std::uint8_t>& listed,
                   std::vector<std::uint64_t>& next, ResidentFlowdirStats& stats) {
    const std::uint32_t s = tiles_.side(), window = s * s;
    flat_.resize(count * window);
    wt_.resize(count * window);
    wa_.resize(count * window);
    leaving_.assign(count, 0);
    sweeps_.assign(count, 0);
    pool_.run(count, [&](std::uint64_t k) {
      std::uint8_t* flat = &flat_[k * window];
      std::uint32_t *t = &wt_[k * window], *a = &wa_[k * window];
      for (std::uint32_t i = 0; i < window; ++i) flowdir_window_load(cells_, tiles_, list[k], i, &flat[i], &t[i], &a[i]);
      sweeps_[k] = sweep(flat, t, a);
    });
    pool_.run(count, [&](std::uint64_t k) { leaving_[k] = store_tile(list[k], &wt_[k * window], &wa_[k * window]); });
    for (std::uint64_t k = 0; k < count; ++k) {
      stats.sweeps += sweeps_[k];
      for (int d = 0; d < 8; ++d) {
        const std::uint64_t n = (leaving_[k] >> d) & 1u ? tiles_.next_tile(list[k], d) : kNoFlatParent;
        if (n != kNoFlatParent && !listed[n]) listed[n] = 1, next.push_back(n);
      }
    }
    stats.solves += count;
  }

  // Sweeps over the tile's cells, alternately forwards and backwards, until one lowers nothing.
  std::uint64_t sweep(const std::uint8_t* flat, std::uint32_t* t, std::uint32_t* a) const {
    const std::uint32_t g = tiles_.g, s = tiles_.side(), n = g * g;
    for (std::uint64_t sweeps = 1;; ++sweeps) {
      bool lowered = false;
      for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t c = sweeps % 2 ? k : n - 1 - k;
        lowered |= flowdir_relax(flat, t, a, s, tiles_.window_index(c % g, c / g));
      }
      if (!lowered) return sweeps;
    }
  }

  // The tile's lowered cells stored back; the directions (bit d) of the tiles a lowered border cell
  // faces.
  unsigned store_tile(std::uint64_t tile, const std::uint32_t* t, const std::uint32_t* a) {
    const std::uint32_t g = tiles_.g;
    unsigned leaving = 0;
    for (std::uint32_t ly = 0; ly < g; ++ly)
      for (std::uint32_t lx = 0; lx < g; ++lx) {
        const std::uint64_t n = tiles_.window_cell(tile, tiles_.window_index(lx, ly));
        const std::uint32_t w = tiles_.window_index(lx, ly);
        if (n == kNoFlatParent || (t[w] == towards_[n] && a[w] == away_[n])) continue;
        towards_[n] = t[w];
        away_[n] = a[w];
        leaving |= flowdir_leaving(lx, ly, g);
      }
    return leaving;
  }

  ResidentFlowdirOptions options_;
  WorkerPool& pool_;
  ResidentWindows windows_;
  FlowdirTiles tiles_;
  std::vector<double> elev_;
  std::vector<std::uint8_t> code_, kind_, low_;
  std::vector<std::uint32_t> towards_, away_, top_;
  std::vector<std::uint64_t> parent_;
  FlowdirCells cells_;
  std::uint64_t group_ = 1;
  std::vector<std::uint8_t> flat_;
  std::vector<std::uint32_t> wt_, wa_;
  std::vector<unsigned> leaving_;
  std::vector<std::uint64_t> sweeps_;
};

}  // namespace

std::uint64_t resident_flowdir_bytes(const ResidentFlowdirOptions& options, Device device, unsigned threads) {
  const FlowdirTiles tiles{options.width, options.height, options.g};
  const std::uint64_t cells = options.width * options.height * kResidentFlowdirBytesPerCell;
  if (device == Device::Cuda) return cells + tiles.tiles() * 20 + (1ull << 20);  // and the counters, rounded up
  // The CPU twin: a group's windows (flags and two distances) and, per round, its lists and flags.
  const std::uint64_t window = std::uint64_t{tiles.side()} * tiles.side() * 9;
  return cells + tiles.tiles() * 17 + resident_flowdir_group(options, threads) * (window + 16);
}

std::uint64_t resident_flowdir_cuda_host_bytes(const ResidentFlowdirOptions& options) {
  return std::uint64_t{options.tile} * options.tile * 9;  // the page-locked staging: a tile of doubles, one of codes
}

std::unique_ptr<ResidentFlowdir> make_resident_flowdir(Device device, const ResidentFlowdirOptions& options,
                                                       WorkerPool& pool) {
  if (device == Device::Cuda) return make_resident_flowdir_cuda(options);
  return std::make_unique<ResidentFlowdirCpu>(options, pool);
}

}  // namespace terrazo
