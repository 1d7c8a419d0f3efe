// engine/sssp/resident_exchange.cpp: the resident SSSP exchange (engine/sssp/resident_exchange.h).
#include "engine/sssp/resident_exchange.h"

#include <algorithm>
#include <string>

#include "kernels/common/error.h"

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
  ro.frontier_bfs = options.frontier_bfs;
  ro.batch_tiles = options.device == Device::Cuda ? 8192 : 64;
  // Rounds about one wave of the device wide: on a GPU ~256 tiles (an H100 runs 132 SMs x 2 blocks
  // of 64^2 at once; wider rounds re-solve more: docs/benchmarks.md "Resident exchange"), on the
  // CPU a few tiles per thread.
  ro.round_tiles = options.device == Device::Cuda ? 256 : 4ull * std::max(1u, options.threads);
  return ro;
}

// The options of a solver covering `window`: its size, and the per-row step lengths from its first
// row (the solvers count rows from the window's top; edge_weight.h).
ResidentSsspOptions window_options(const TileGrid& grid, const RankWindow& window, const SsspExchangeOptions& options,
                                   std::uint32_t g) {
  ResidentSsspOptions ro = resident_options(grid, options, g);
  ro.width = window.width;
  ro.height = window.height;
  StepLengths& steps = ro.params.steps;
  if (steps.rows && window.y0) {
    steps.rows += 3 * window.y0;
    steps.row_count -= static_cast<std::int64_t>(window.y0);
  }
  return ro;
}

}  // namespace

RankWindow ResidentSsspExchange::window_of(const TileInput& input, const SsspExchangeOptions& options) {
  const TileGrid& grid = input.grid();
  const bool ranks = options.comm && options.comm->distributed();
  return rank_window(grid, ranks ? options.ownership : nullptr, ranks ? options.comm->rank() : 0,
                     halo_width(options.connectivity), [&](std::uint64_t tile) {
                       return input.tile_present(static_cast<std::uint32_t>(tile % grid.tiles_x()),
                                                 static_cast<std::uint32_t>(tile / grid.tiles_x()));
                     });
}

std::uint64_t ResidentSsspExchange::device_bytes(std::uint64_t width, std::uint64_t height, std::uint32_t g,
                                                 Device device, unsigned threads, Connectivity connectivity) {
  SsspExchangeOptions options;
  options.device = device;
  options.connectivity = connectivity;
  TileGrid grid;
  grid.width = width;
  grid.height = height;
  grid.tile = g;
  return resident_sssp_bytes(resident_options(grid, options, g), device, threads);
}

namespace {

ResidentSsspOptions cuda_options(std::uint64_t width, std::uint64_t height, std::uint32_t g, Connectivity connectivity) {
  SsspExchangeOptions options;
  options.device = Device::Cuda;
  options.connectivity = connectivity;
  TileGrid grid;
  grid.width = width;
  grid.height = height;
  grid.tile = g;
  return resident_options(grid, options, g);
}

}  // namespace

std::uint64_t ResidentSsspExchange::paged_slots(std::uint64_t width, std::uint64_t height, std::uint32_t g,
                                                Connectivity connectivity, std::uint64_t room) {
  return resident_sssp_paged_slots(cuda_options(width, height, g, connectivity), room);
}

std::uint64_t ResidentSsspExchange::paged_host_bytes(std::uint64_t width, std::uint64_t height, std::uint32_t g,
                                                     Connectivity connectivity) {
  return resident_sssp_paged_host_bytes(cuda_options(width, height, g, connectivity));
}

ResidentSsspExchange::ResidentSsspExchange(const TileInput& input, DistanceStore& store,
                                           const SsspExchangeOptions& options, std::uint32_t g,
                                           std::uint64_t round_tiles, std::uint64_t device_slots,
                                           MemoryBudget& budget, Progress& progress)
    : input_(input), store_(store), options_(options), grid_(input.grid()), window_(window_of(input, options)) {
  if (options.track_source || options.track_hops)
    throw Error("internal: the resident SSSP exchange computes distances only (no backlinks or allocation)");
  if (device_slots && window_.neighbours.size())
    throw Error("internal: the paged resident SSSP solver does not run on several ranks");
  const std::uint32_t t = grid_.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const unsigned threads = std::max(1u, options.threads);
  ResidentSsspOptions ro = window_options(grid_, window_, options, g);
  if (round_tiles) ro.round_tiles = round_tiles;
  round_tiles_ = ro.round_tiles;
  const bool solving = window_.width > 0;
  if (options.device == Device::Cpu && solving)
    reservations_.push_back(budget.reserve(resident_sssp_bytes(ro, Device::Cpu, threads), "sssp resident arrays"));
  if (options.device == Device::Cuda && device_slots) {
    ro.device_slots = device_slots;
    reservations_.push_back(budget.reserve(resident_sssp_paged_host_bytes(ro), "sssp paged resident host cells"));
  }
  // Distributed: the shared cells' list, this rank's three copies (current, last sent, last
  // received) and a round's messages both ways (resident_ranks.cpp): 96 bytes a cell at most.
  if (window_.shared_cells())
    reservations_.push_back(budget.reserve(window_.shared_cells() * 96, "sssp resident cells shared with other ranks"));
  // Loading reads 2 tiles per thread at once: 2 x threads tiles of doubles, plus the solver's
  // staging (two windows of values, pinned on a GPU) and this object's tile buffers.
  reservations_.push_back(budget.reserve(tile_cells * 8 * (2ull * threads + 4), "sssp resident staging"));
  pool_ = std::make_unique<WorkerPool>(threads);
  if (solving) solver_ = make_resident_sssp_solver(options.device, ro, *pool_);
  for (const auto& r : reservations_) stats_.memory_bytes += r.bytes();
  values_.resize(tile_cells);
  dist_.resize(tile_cells);
  load_tiles(progress);
  load_halo_strips();
}

// Every own present tile of the input crosses to the device once: read by the pool, a group at a
// time, each tile handed to the solver as a window of its cells inside the raster.
void ResidentSsspExchange::load_tiles(Progress& progress) {
  if (!solver_) return;
  const std::uint32_t t = grid_.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t group = 2ull * pool_->threads();
  const std::vector<std::uint64_t>& tiles = window_.own_tiles;
  std::vector<double> windows(group * tile_cells);
  const std::string phase = "sssp: load";
  const bool concurrent = solver_->concurrent_writes();
  auto hand_over = [&](std::uint64_t tile, const double* window) {
    const TileWindow in = grid_.window(tile);
    solver_->write_values(in.x0 - window_.x0, in.y0 - window_.y0, in.w, in.h, window);
  };
  for (std::uint64_t first = 0; first < tiles.size(); first += group) {
    const std::uint64_t count = std::min<std::uint64_t>(group, tiles.size() - first);
    pool_->run(count, [&](std::uint64_t i) {
      const std::uint64_t tile = tiles[first + i];
      double* window = &windows[i * tile_cells];
      input_.read_tile(static_cast<std::uint32_t>(tile % grid_.tiles_x()), static_cast<std::uint32_t>(tile / grid_.tiles_x()),
                       window);
      const TileWindow in = grid_.window(tile);
      for (std::uint32_t y = 1; y < in.h && in.w < t; ++y)  // rows of w cells, packed in place
        std::copy_n(&window[static_cast<std::size_t>(y) * t], in.w, &window[static_cast<std::size_t>(y) * in.w]);
      if (concurrent) hand_over(tile, window);
    });
    for (std::uint64_t i = 0; i < count && !concurrent; ++i) hand_over(tiles[first + i], &windows[i * tile_cells]);
    progress.update(phase, first + count, tiles.size());
  }
}

// Distributed: the values of other ranks' cells within the halo of this rank's tiles, each of
// their tiles read once.
void ResidentSsspExchange::load_halo_strips() {
  if (!solver_) return;
  std::vector<double> strip;
  for (const auto& [tile, rects] : window_.halo_strips) {
    const TileWindow in = grid_.window(tile);
    input_.read_tile(static_cast<std::uint32_t>(tile % grid_.tiles_x()), static_cast<std::uint32_t>(tile / grid_.tiles_x()),
                     values_.data());
    for (const TileWindow& r : rects) {
      strip.resize(static_cast<std::size_t>(r.w) * r.h);
      for (std::uint32_t y = 0; y < r.h; ++y)
        std::copy_n(&values_[(r.y0 - in.y0 + y) * grid_.tile + (r.x0 - in.x0)], r.w, &strip[static_cast<std::size_t>(y) * r.w]);
      solver_->write_values(r.x0 - window_.x0, r.y0 - window_.y0, r.w, r.h, strip.data());
    }
  }
}

ResidentSsspExchange::~ResidentSsspExchange() = default;

std::vector<std::uint32_t> ResidentSsspExchange::add_sources(std::uint32_t tx, std::uint32_t ty,
                                                             const std::vector<TileSource>& sources) {
  std::vector<std::uint32_t> on_nodata;
  const std::uint32_t t = grid_.tile;
  const bool present = input_.tile_present(tx, ty);
  if (present) input_.read_tile(tx, ty, values_.data());
  // Distributed: a tile of another rank is only checked; its owner sets its sources.
  const bool own = interior_present(grid_.tile_index(tx, ty)) && solver_;
  for (const TileSource& source : sources) {
    if (!present || values_[source.local] != values_[source.local]) {
      on_nodata.push_back(source.local);
      continue;
    }
    if (source.start > options_.max_cost || !own) continue;  // beyond --max-cost from the start: reaches nothing
    solver_->set_source(static_cast<std::uint64_t>(tx) * t + source.local % t - window_.x0,
                        static_cast<std::uint64_t>(ty) * t + source.local / t - window_.y0, source.start);
  }
  return on_nodata;
}

void ResidentSsspExchange::run(Progress& progress) {
  if (options_.comm && options_.comm->distributed()) return run_rank_rounds(progress);
  const std::string phase = "sssp: exchange";
  progress.update(phase, 0, 0);
  resident_stats_ = solver_->solve([&](std::uint64_t, std::uint64_t solves) { progress.update(phase, solves, 0); });
  if (resident_stats_.overflow) throw_weight_overflow(options_.params);
  stats_.solves = resident_stats_.solves;
  stats_.tiles_solved = resident_stats_.tiles_solved;
  stats_.resolves = resident_stats_.solves - resident_stats_.tiles_solved;
  stats_.rounds = resident_stats_.rounds;
  stats_.cells_improved = resident_stats_.cells_improved;
  progress.update(phase, stats_.solves, stats_.solves);
}

void ResidentSsspExchange::read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source,
                                         std::uint32_t* hops) {
  const std::uint32_t t = grid_.tile;
  const TileWindow in = grid_.window(tile);
  const std::uint32_t w = in.w, h = in.h;
  if (interior_present(tile) && solver_) {
    solver_->read_distances(in.x0 - window_.x0, in.y0 - window_.y0, w, h, dist);
    // Rows of w cells to rows of t, from the last row back (in place), padding unreached.
    for (std::uint32_t y = h; y-- > 0;) {
      std::copy_backward(dist + static_cast<std::size_t>(y) * w, dist + static_cast<std::size_t>(y) * w + w,
                         dist + static_cast<std::size_t>(y) * t + w);
      std::fill(dist + static_cast<std::size_t>(y) * t + w, dist + static_cast<std::size_t>(y + 1) * t, kUnreached);
    }
    std::fill(dist + static_cast<std::size_t>(h) * t, dist + static_cast<std::size_t>(t) * t, kUnreached);
  } else {
    std::fill(dist, dist + static_cast<std::size_t>(t) * t, kUnreached);
  }
  if (source) std::fill(source, source + static_cast<std::size_t>(t) * t, 0u);
  if (hops) std::fill(hops, hops + static_cast<std::size_t>(t) * t, 0u);
}

void ResidentSsspExchange::read_ring(std::uint64_t, std::uint32_t, std::uint32_t, RingCell*) {
  throw Error("internal: the resident SSSP exchange keeps no rings (distances only)");
}

void ResidentSsspExchange::flush() {
  for (const std::uint64_t tile : window_.own_tiles) {
    read_interior(tile, dist_.data(), nullptr, nullptr);
    const bool any = std::any_of(dist_.begin(), dist_.end(), [](PathLength d) { return d != kUnreached; });
    if (any) store_.write_interior(tile, dist_.data(), nullptr, nullptr);
  }
  solver_.reset();
}

}  // namespace terrazo
