// engine/sssp/resident_exchange.cpp: the resident SSSP exchange (engine/sssp/resident_exchange.h).
#include "engine/sssp/resident_exchange.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace terrazo {

namespace {

ResidentSsspOptions resident_options(const TileGrid& grid, const SsspExchangeOptions& options, std::uint32_t g) {
  ResidentSsspOptions ro;
  ro.width = grid.width;
  ro.height = grid.height;
  ro.g = g;
  ro.params = options.params;
  ro.connectivity = options.connectivity;
  ro.max_cost = options.max_cost;
  ro.batch_tiles = options.device == Device::Cuda ? 8192 : 64;
  // A round as wide as the device: on a GPU some thousands of tiles (132 SMs x 2 resident blocks,
  // several waves), on the CPU a few tiles per thread.
  ro.round_tiles = options.device == Device::Cuda ? 2048 : 4ull * std::max(1u, options.threads);
  return ro;
}

}  // namespace

std::uint64_t ResidentSsspExchange::device_bytes(std::uint64_t width, std::uint64_t height, std::uint32_t g,
                                                 Device device, unsigned threads) {
  SsspExchangeOptions options;
  options.device = device;
  TileGrid grid;
  grid.width = width;
  grid.height = height;
  grid.tile = g;
  return resident_sssp_bytes(resident_options(grid, options, g), device, threads);
}

ResidentSsspExchange::ResidentSsspExchange(const TileInput& input, DistanceStore& store,
                                           const SsspExchangeOptions& options, std::uint32_t g, MemoryBudget& budget,
                                           Progress& progress)
    : input_(input), store_(store), options_(options), grid_(input.grid()) {
  if (options.track_source || options.track_hops)
    throw Error("internal: the resident SSSP exchange computes distances only (no backlinks or allocation)");
  const std::uint32_t t = grid_.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const unsigned threads = std::max(1u, options.threads);
  const ResidentSsspOptions ro = resident_options(grid_, options, g);
  if (options.device == Device::Cpu)
    reservations_.push_back(budget.reserve(resident_sssp_bytes(ro, Device::Cpu, threads), "sssp resident arrays"));
  reservations_.push_back(budget.reserve(tile_cells * 32, "sssp resident staging"));
  pool_ = std::make_unique<WorkerPool>(options.device == Device::Cpu ? threads : 1);
  solver_ = make_resident_sssp_solver(options.device, ro, *pool_);
  for (const auto& r : reservations_) stats_.memory_bytes += r.bytes();

  // Every present tile of the input crosses to the device once.
  values_.resize(tile_cells);
  dist_.resize(tile_cells);
  std::vector<double> window(tile_cells);
  const std::string phase = "sssp: load";
  const std::uint64_t tiles = grid_.tile_count();
  for (std::uint64_t tile = 0; tile < tiles; ++tile) {
    const auto tx = static_cast<std::uint32_t>(tile % grid_.tiles_x()), ty = static_cast<std::uint32_t>(tile / grid_.tiles_x());
    if (input.tile_present(tx, ty)) {
      const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t, y0 = static_cast<std::uint64_t>(ty) * t;
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.width - x0));
      const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.height - y0));
      input.read_tile(tx, ty, values_.data());
      for (std::uint32_t y = 0; y < h; ++y)
        std::copy_n(&values_[static_cast<std::size_t>(y) * t], w, &window[static_cast<std::size_t>(y) * w]);
      solver_->write_values(x0, y0, w, h, window.data());
    }
    if ((tile & 63) == 63 || tile + 1 == tiles) progress.update(phase, tile + 1, tiles);
  }
}

ResidentSsspExchange::~ResidentSsspExchange() = default;

std::vector<std::uint32_t> ResidentSsspExchange::add_sources(std::uint32_t tx, std::uint32_t ty,
                                                             const std::vector<TileSource>& sources) {
  std::vector<std::uint32_t> on_nodata;
  const std::uint32_t t = grid_.tile;
  const bool present = input_.tile_present(tx, ty);
  if (present) input_.read_tile(tx, ty, values_.data());
  for (const TileSource& source : sources) {
    if (!present || values_[source.local] != values_[source.local]) {
      on_nodata.push_back(source.local);
      continue;
    }
    solver_->set_source(static_cast<std::uint64_t>(tx) * t + source.local % t,
                        static_cast<std::uint64_t>(ty) * t + source.local / t);
  }
  return on_nodata;
}

void ResidentSsspExchange::run(Progress& progress) {
  const std::string phase = "sssp: exchange";
  progress.update(phase, 0, 0);
  resident_stats_ = solver_->solve([&](std::uint64_t, std::uint64_t solves) { progress.update(phase, solves, 0); });
  if (resident_stats_.overflow)
    throw Error("an edge weight does not fit in 32 bits at this --scale (" + std::to_string(options_.params.scale) +
                "); lower --scale");
  stats_.solves = resident_stats_.solves;
  stats_.tiles_solved = resident_stats_.tiles_solved;
  stats_.resolves = resident_stats_.solves - resident_stats_.tiles_solved;
  stats_.rounds = resident_stats_.rounds;
  stats_.cells_improved = resident_stats_.cells_improved;
  progress.update(phase, stats_.solves, stats_.solves);
}

void ResidentSsspExchange::flush() {
  const std::uint32_t t = grid_.tile;
  const std::uint64_t tiles = grid_.tile_count();
  std::vector<PathLength> window(static_cast<std::size_t>(t) * t);
  for (std::uint64_t tile = 0; tile < tiles; ++tile) {
    const auto tx = static_cast<std::uint32_t>(tile % grid_.tiles_x()), ty = static_cast<std::uint32_t>(tile / grid_.tiles_x());
    const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t, y0 = static_cast<std::uint64_t>(ty) * t;
    const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.width - x0));
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.height - y0));
    solver_->read_distances(x0, y0, w, h, window.data());
    std::fill(dist_.begin(), dist_.end(), kUnreached);
    bool any = false;
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) {
        const PathLength d = window[static_cast<std::size_t>(y) * w + x];
        dist_[static_cast<std::size_t>(y) * t + x] = d;
        any = any || d != kUnreached;
      }
    if (any) store_.write_interior(tile, dist_.data(), nullptr, nullptr);
  }
  solver_.reset();
}

}  // namespace terrazo
