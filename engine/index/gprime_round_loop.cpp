// engine/index/gprime_round_loop.cpp: GPrimeRounds (engine/index/gprime_round_loop.h).
#include "engine/index/gprime_round_loop.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "engine/index/index_loader.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/index/tile_boundary_matrix.h"

namespace terrazo {
namespace {

// The rounds' label window: `window` tile crossings, a crossing being the largest finite in-tile
// distance of one tile's matrix (b x b).
PathLength window_in_crossings(double window, const PathLength* m, std::uint32_t b) {
  PathLength crossing = 0;
  for (std::uint64_t e = 0; e < static_cast<std::uint64_t>(b) * b; ++e)
    if (m[e] != kUnreached) crossing = std::max(crossing, m[e]);
  return static_cast<PathLength>(std::max(1.0, window * static_cast<double>(std::max<PathLength>(crossing, 1))));
}

// The CUDA load's sink: page-locked chunks of matrices copied to the GPU as they come, the rings
// kept for the in-edges, the window taken from the first tile.
class StagedUpload : public IndexLoadSink {
 public:
  StagedUpload(GPrimeRoundsCuda& gpu, std::uint32_t b, const GPrimeLoadPlan& plan, std::vector<double>& rings, double window)
      : gpu_(gpu), b_(b), rings_(rings), window_(window), ring_slots_(plan.slots, std::vector<double>(plan.chunk * b)) {}
  PathLength* matrices(unsigned slot) override { return gpu_.staging(slot); }
  double* rings(unsigned slot) override { return ring_slots_[slot].data(); }
  void reuse(unsigned slot) override { gpu_.wait_staging(slot); }
  void consume(unsigned slot, std::uint64_t first, std::uint64_t count) override {
    std::copy_n(ring_slots_[slot].begin(), count * b_, rings_.begin() + static_cast<std::ptrdiff_t>(first * b_));
    if (first == 0 && window_ > 0) window_fixed = window_in_crossings(window_, gpu_.staging(slot), b_);
    gpu_.upload_staged(slot, first, count);
    uploads += count;
  }
  PathLength window_fixed = 0;
  std::uint64_t uploads = 0;

 private:
  GPrimeRoundsCuda& gpu_;
  std::uint32_t b_;
  std::vector<double>& rings_;
  double window_;
  std::vector<std::vector<double>> ring_slots_;
};

}  // namespace

GPrimeLoadPlan gprime_rounds_load_plan(std::uint32_t t, unsigned threads) {
  const std::uint64_t b = ring_size(t);
  GPrimeLoadPlan plan;
  plan.chunk = std::max<std::uint64_t>(1, (4ull << 20) / (b * b * 8));
  plan.slots = 2 * std::max(1u, threads);
  plan.host_bytes = plan.slots * plan.chunk * (b * b + b) * 8;
  return plan;
}

std::uint64_t gprime_rounds_host_bytes(std::uint32_t t, std::uint64_t tiles, std::uint64_t grid_tiles, std::uint64_t kb) {
  const std::uint64_t b = ring_size(t);
  // in-edges, neighbours, dense ids, flags, the ring values while building; labels on the CPU
  return tiles * (b * kGPrimeInEdges * sizeof(GPrimeInEdge) + 9 * 8 + 8 + 2 + b * 8 + 3 * kb * b * 8) + grid_tiles * 8 + 4096;
}

GPrimeRounds::GPrimeRounds(const IndexFile& index, IndexTileCache& cache, const GPrimeExchangeOptions& options, Device device,
                           std::uint64_t kb_max, unsigned threads, double window)
    : cache_(&cache), options_(options), threads_(std::max(1u, threads)) {
  const TileGrid grid = index.header().grid();
  const std::uint32_t t = grid.tile;
  b_ = ring_size(t);
  dense_.assign(grid.tile_count(), -1);
  for (std::uint64_t tile = 0; tile < grid.tile_count(); ++tile)
    if (index.entry(tile).offset != 0) {
      dense_[tile] = static_cast<std::int64_t>(tile_of_.size());
      tile_of_.push_back(tile);
    }
  link_neighbours(grid);
  const std::uint64_t n = tile_of_.size();
  // Every present tile's ring values (and, on the GPU, its matrix uploaded) in one pass over the index.
  std::vector<double> rings(n * b_);
  if (device == Device::Cuda && n > 0) {
    gpu_ = std::make_unique<GPrimeRoundsCuda>(b_, n, kb_max);
    const GPrimeLoadPlan plan = gprime_rounds_load_plan(t, threads_);
    gpu_->begin_staging(plan.slots, plan.chunk);
    StagedUpload sink(*gpu_, b_, plan, rings, window);
    load_index_tiles(index, tile_of_, plan.chunk, plan.slots, threads_, sink);
    gpu_->finish_staging();
    uploads_ = sink.uploads;
    window_ = sink.window_fixed;
  } else {
    for (std::uint64_t d = 0; d < n; ++d) {
      const IndexTileCache::Entry& entry = cache.get(tile_of_[d]);
      std::copy(entry.ring.begin(), entry.ring.end(), rings.begin() + static_cast<std::ptrdiff_t>(d * b_));
      if (d == 0 && window > 0) window_ = window_in_crossings(window, entry.matrix.data(), b_);
    }
  }
  link_rings(grid, rings, kb_max);
}

GPrimeRounds::GPrimeRounds(const TileInput& input, const GPrimeExchangeOptions& options, std::uint32_t leaf,
                           std::uint64_t kb_max, unsigned threads, double window, Progress& progress,
                           GPrimeBuildStats* build)
    : options_(options), threads_(std::max(1u, threads)) {
  GPrimeBuildStats local;
  GPrimeBuildStats& bs = build ? *build : local;
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  b_ = ring_size(t);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  // Every tile the input holds takes a slot: one whose ring is all nodata (the index leaves it out)
  // gets no in-edge and no seed, so it is never active, and every label stays as with the index.
  dense_.assign(grid.tile_count(), -1);
  for (std::uint64_t tile = 0; tile < grid.tile_count(); ++tile)
    if (input.tile_present(static_cast<std::uint32_t>(tile % grid.tiles_x()), static_cast<std::uint32_t>(tile / grid.tiles_x()))) {
      dense_[tile] = static_cast<std::int64_t>(tile_of_.size());
      tile_of_.push_back(tile);
    }
  link_neighbours(grid);
  const std::uint64_t n = tile_of_.size();
  std::vector<double> rings(n * b_);
  if (n > 0) {
    gpu_ = std::make_unique<GPrimeRoundsCuda>(b_, n, kb_max);
    // Batches of tiles in dense order, so a batch's matrices are consecutive slots on the GPU.
    const std::uint64_t batch = gprime_build_batch_tiles(t, leaf);
    // The values in its page-locked buffer (reserved by the caller, reserve_rounds in od_matrix.cpp);
    // the matrices go straight to the rounds' device memory, so no host buffer of them (1024 tiles
    // of 64: 520 MB page-locked that no budget held, never written).
    TileBoundaryCuda matrices(t, leaf, std::min(batch, n), PinnedHost::Values);
    double* values = matrices.host_values();
    std::int64_t first_ring = -1;  // the first tile with a valid ring cell: the window's tile, as with the index
    progress.update("od-matrix: index on the GPU", 0, n);
    for (std::uint64_t first = 0; first < n; first += batch) {
      const std::uint64_t count = std::min<std::uint64_t>(batch, n - first);
      Stopwatch watch;
      pool_.run(count, [&](std::uint64_t i) {
        const std::uint64_t tile = tile_of_[first + i];
        double* v = values + i * cells;
        input.read_tile(static_cast<std::uint32_t>(tile % grid.tiles_x()), static_cast<std::uint32_t>(tile / grid.tiles_x()), v);
        gather_ring_values(v, t, rings.data() + (first + i) * b_);
      });
      bs.read_seconds += watch.seconds();
      watch.restart();
      bool overflow = false;
      bs.kernel_ms += matrices.build(values, count, options.params, options.connectivity, gpu_->device_matrices(first),
                                     true, &overflow);
      bs.matrix_seconds += watch.seconds();
      if (overflow) throw Error("index build: an edge weight overflows at --scale " + std::to_string(options.params.scale));
      for (std::uint64_t i = 0; i < count && first_ring < 0; ++i)
        for (std::uint32_t p = 0; p < b_ && first_ring < 0; ++p)
          if (!std::isnan(rings[(first + i) * b_ + p])) first_ring = static_cast<std::int64_t>(first + i);
      progress.update("od-matrix: index on the GPU", first + count, n, (first + count) * cells);
    }
    bs.tiles = n;
    uploads_ = n;
    if (window > 0 && first_ring >= 0) {
      std::vector<PathLength> matrix(static_cast<std::uint64_t>(b_) * b_);
      gpu_->download_matrix(static_cast<std::uint64_t>(first_ring), matrix.data());
      window_ = window_in_crossings(window, matrix.data(), b_);
    }
  }
  link_rings(grid, rings, kb_max);
}

std::uint64_t gprime_build_batch_tiles(std::uint32_t t, std::uint32_t leaf) {
  // Up to 1024 tiles, within an eighth of the GPU's memory (the rest holds the rounds' arrays).
  const std::uint64_t per_tile = tile_boundary_cuda_bytes(t, leaf, 1);
  return std::max<std::uint64_t>(1, std::min<std::uint64_t>(1024, cuda_device().global_memory / 8 / per_tile));
}

void GPrimeRounds::link_neighbours(const TileGrid& grid) {
  const std::uint32_t tiles_x = grid.tiles_x(), tiles_y = grid.tiles_y();
  const std::uint64_t n = tile_of_.size();
  neighbours_.assign(n * 9, -1);
  for (std::uint64_t d = 0; d < n; ++d) {
    const std::int64_t tx = static_cast<std::int64_t>(tile_of_[d] % tiles_x), ty = static_cast<std::int64_t>(tile_of_[d] / tiles_x);
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0) continue;
        const std::int64_t nx = tx + dx, ny = ty + dy;
        if (nx < 0 || ny < 0 || nx >= tiles_x || ny >= tiles_y) continue;
        neighbours_[d * 9 + static_cast<std::uint64_t>((dy + 1) * 3 + dx + 1)] = dense_[static_cast<std::uint64_t>(ny) * tiles_x + static_cast<std::uint64_t>(nx)];
      }
  }
}

void GPrimeRounds::link_rings(const TileGrid& grid, const std::vector<double>& rings, std::uint64_t kb_max) {
  const std::uint32_t t = grid.tile, tiles_x = grid.tiles_x();
  const std::uint64_t n = tile_of_.size();
  const GPrimeExchangeOptions& options = options_;
  // The in-edges of every ring cell: the grid edges from ring cells of the neighbouring tiles, with the
  // label-correcting exchange's weights (step_weight from the source cell, at its global row).
  // Tiles on `threads_` threads (each writes its own tiles' slots).
  edges_.assign(n * b_ * kGPrimeInEdges, GPrimeInEdge{});
  std::atomic<int> broken{0};  // 1: an edge from an interior cell, 2: too many in-edges (neither can happen)
  pool_.run(n, [&](std::uint64_t d) {
    const std::int64_t ty = static_cast<std::int64_t>(tile_of_[d] / tiles_x);
    const double* here = rings.data() + d * b_;
    for (std::uint32_t q = 0; q < b_; ++q) {
      std::uint32_t qx, qy;
      ring_cell_of(t, q, &qx, &qy);
      unsigned slot = 0;
      for (int dir = 0; dir < 8; ++dir) {
        if (!direction_used(dir, options.connectivity)) continue;
        // The source cell s with s + step(dir) = q, in q's tile's local coordinates.
        const std::int64_t sx = static_cast<std::int64_t>(qx) - kDirDx[dir], sy = static_cast<std::int64_t>(qy) - kDirDy[dir];
        const int dx = sx < 0 ? -1 : sx >= static_cast<std::int64_t>(t) ? 1 : 0;
        const int dy = sy < 0 ? -1 : sy >= static_cast<std::int64_t>(t) ? 1 : 0;
        if (dx == 0 && dy == 0) continue;  // inside the tile: the matrix covers it
        const std::int64_t from = neighbours_[d * 9 + static_cast<std::uint64_t>((dy + 1) * 3 + dx + 1)];
        if (from < 0) continue;
        const auto lx = static_cast<std::uint32_t>(sx - dx * static_cast<std::int64_t>(t));
        const auto ly = static_cast<std::uint32_t>(sy - dy * static_cast<std::int64_t>(t));
        const std::int32_t p = ring_position(t, lx, ly);
        if (p < 0) {
          broken = 1;
          return;
        }
        bool overflow = false;  // as the label-correcting exchange: an overflowing step is no edge
        const Weight w = step_weight(options.params, rings[static_cast<std::uint64_t>(from) * b_ + static_cast<std::uint32_t>(p)],
                                     here[q], dir, (ty + dy) * static_cast<std::int64_t>(t) + ly - options.params.steps.row0,
                                     &overflow);
        if (w == kNoEdge) continue;
        if (slot >= kGPrimeInEdges) {
          broken = 2;
          return;
        }
        edges_[(d * b_ + q) * kGPrimeInEdges + slot++] =
            GPrimeInEdge{w, static_cast<std::uint16_t>(p), static_cast<std::uint8_t>((dy + 1) * 3 + dx + 1), 0};
      }
    }
  });
  if (broken == 1) throw Error("GPrimeRounds: an edge between tiles from an interior cell");
  if (broken == 2) throw Error("GPrimeRounds: more in-edges than a ring cell can have");
  if (gpu_) {
    gpu_->upload_edges(edges_.data(), neighbours_.data());
    std::vector<GPrimeInEdge>().swap(edges_);
  } else {
    label_.assign(n * kb_max * b_, kUnreached);
    pending_.assign(n * kb_max * b_, kUnreached);
    out_.assign(n * kb_max * b_, kUnreached);
    active_.assign(n, 0);
    key_.assign(n, kUnreached);
  }
}

namespace {

// The seeds per tile: the least label per (source, ring cell) within max_cost, a block of kb x B
// labels per seeded tile (dense ids in `seeded`, in the order first seeded).
struct SeedBlocks {
  std::vector<std::int64_t> seeded;
  std::vector<PathLength> labels;  // seeded.size() blocks
};

SeedBlocks seed_blocks(const std::vector<GPrimeSeed>& seeds, const std::vector<std::int64_t>& dense, std::uint64_t n,
                       std::uint64_t kb, std::uint32_t b, PathLength max_cost) {
  const std::uint64_t block = kb * b;
  SeedBlocks blocks;
  std::vector<std::int64_t> seed_at(n, -1);
  for (const GPrimeSeed& seed : seeds) {
    if (seed.source >= kb) throw Error("GPrimeRounds::run: a seed's source is outside the batch");
    const std::int64_t d = dense.at(seed.tile);
    if (d < 0) continue;  // no valid ring cell: no label leaves the tile
    if (seed_at[d] < 0) {
      seed_at[d] = static_cast<std::int64_t>(blocks.seeded.size());
      blocks.seeded.push_back(d);
      blocks.labels.resize(blocks.labels.size() + block, kUnreached);
    }
    PathLength* l = blocks.labels.data() + static_cast<std::uint64_t>(seed_at[d]) * block + static_cast<std::uint64_t>(seed.source) * b;
    for (std::uint32_t p = 0; p < b; ++p)
      if (seed.ring[p] <= max_cost && seed.ring[p] < l[p]) l[p] = seed.ring[p];
  }
  return blocks;
}

bool any_finite(const PathLength* l, std::uint64_t block) {
  for (std::uint64_t e = 0; e < block; ++e)
    if (l[e] != kUnreached) return true;
  return false;
}

}  // namespace

GPrimeLabels GPrimeRounds::run(std::uint64_t kb, const std::vector<GPrimeSeed>& seeds, const std::vector<std::uint64_t>& wanted,
                               GPrimeStats* stats) {
  GPrimeStats local;
  GPrimeStats& st = stats ? *stats : local;
  const std::uint64_t n = tile_of_.size(), block = kb * b_;
  const SeedBlocks blocks = seed_blocks(seeds, dense_, n, kb, b_, options_.max_cost);
  if (gpu_) return run_gpu(kb, blocks.seeded, blocks.labels, wanted, st);
  GPrimeLabels result;
  if (n == 0) return result;  // no present tile: no label crosses a ring
  run_cpu_rounds(kb, blocks.seeded, blocks.labels, st);
  for (std::uint64_t tile : wanted) {
    const std::int64_t d = dense_.at(tile);
    if (d < 0) continue;
    const auto first = label_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::uint64_t>(d) * block);
    result[tile].assign(first, first + static_cast<std::ptrdiff_t>(block));
  }
  return result;
}

GPrimeLabels GPrimeRounds::run_gpu(std::uint64_t kb, const std::vector<std::int64_t>& seeded,
                                   const std::vector<PathLength>& seed_labels, const std::vector<std::uint64_t>& wanted,
                                   GPrimeStats& st) {
  const std::uint64_t block = kb * b_;
  GPrimeLabels result;
  gpu_->reset(kb);
  for (std::uint64_t s = 0; s < seeded.size(); ++s)
    if (any_finite(seed_labels.data() + s * block, block))
      gpu_->seed(static_cast<std::uint64_t>(seeded[s]), seed_labels.data() + s * block);
  std::vector<std::uint64_t> active;
  st.tile_solves += gpu_->run(options_.max_cost, window_, &active);
  st.rounds += active.size();
  for (std::uint64_t a : active) max_active_ = std::max(max_active_, a);
  for (std::uint64_t tile : wanted) {
    const std::int64_t d = dense_.at(tile);
    if (d < 0) continue;
    std::vector<PathLength>& out = result[tile];
    out.resize(block);
    gpu_->download(static_cast<std::uint64_t>(d), out.data());
  }
  return result;
}

void GPrimeRounds::run_cpu_rounds(std::uint64_t kb, const std::vector<std::int64_t>& seeded,
                                  const std::vector<PathLength>& seed_labels, GPrimeStats& st) {
  const std::uint64_t n = tile_of_.size(), block = kb * b_;
  const PathLength max_cost = options_.max_cost;
  if (block * n > label_.size()) throw Error("GPrimeRounds::run: batch larger than the one reserved");
  std::fill(label_.begin(), label_.begin() + static_cast<std::ptrdiff_t>(n * block), kUnreached);
  std::fill(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n * block), kUnreached);
  std::fill(active_.begin(), active_.end(), 0);
  std::fill(key_.begin(), key_.end(), kUnreached);
  for (std::uint64_t s = 0; s < seeded.size(); ++s) {
    const PathLength* l = seed_labels.data() + s * block;
    if (!any_finite(l, block)) continue;
    const std::uint64_t d = static_cast<std::uint64_t>(seeded[s]);
    std::copy(l, l + block, label_.begin() + static_cast<std::ptrdiff_t>(d * block));
    std::copy(l, l + block, pending_.begin() + static_cast<std::ptrdiff_t>(d * block));
    key_[d] = *std::min_element(l, l + block);
  }
  const auto kb32 = static_cast<std::uint32_t>(kb);
  std::vector<std::uint64_t> list;
  for (;;) {
    list.clear();
    const PathLength threshold = gprime_round_threshold(*std::min_element(key_.begin(), key_.end()), window_);
    for (std::uint64_t d = 0; d < n; ++d) {
      active_[d] = key_[d] != kUnreached && key_[d] <= threshold;
      if (active_[d]) {
        list.push_back(d);
        key_[d] = kUnreached;
      }
    }
    if (list.empty()) break;
    ++st.rounds;
    st.tile_solves += list.size();
    max_active_ = std::max<std::uint64_t>(max_active_, list.size());
    solve_active(list, block, kb32, threshold);
    // Pushes into every tile (those with no active neighbour return at once).
    pool_.run(n, [&](std::uint64_t d) {
      key_[d] = std::min(key_[d], gprime_round_push_cpu(d, b_, kb32, max_cost, edges_.data() + d * b_ * kGPrimeInEdges,
                                                        neighbours_.data() + d * 9, active_.data(), out_.data(), label_.data(),
                                                        pending_.data()));
    });
  }
}

void GPrimeRounds::solve_active(const std::vector<std::uint64_t>& list, std::uint64_t block, std::uint32_t kb32,
                                PathLength threshold) {
  std::vector<const PathLength*> matrix;
  const std::uint64_t chunk = std::max<std::uint64_t>(1, cache_->capacity());
  for (std::uint64_t c0 = 0; c0 < list.size(); c0 += chunk) {
    const std::uint64_t c1 = std::min<std::uint64_t>(list.size(), c0 + chunk);
    matrix.resize(c1 - c0);
    for (std::uint64_t i = c0; i < c1; ++i) matrix[i - c0] = cache_->get(tile_of_[list[i]]).matrix.data();
    pool_.run(c1 - c0, [&](std::uint64_t i) {
      const std::uint64_t d = list[c0 + i];
      key_[d] = gprime_round_solve_cpu(matrix[i], b_, kb32, options_.max_cost, threshold, label_.data() + d * block,
                                       pending_.data() + d * block, out_.data() + d * block);
    });
  }
}

}  // namespace terrazo
