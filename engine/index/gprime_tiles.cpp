// engine/index/gprime_tiles.cpp: IndexMatrixTiles, IndexMatrixTilesCuda, BlockSolveTiles
// (engine/index/gprime_tiles.h).
#include "engine/index/gprime_tiles.h"

#include <algorithm>
#include <limits>
#include <string>
#include <atomic>

#include "kernels/common/error.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/sssp/block_sssp.h"

namespace terrazo {

void IndexMatrixTiles::relax(const std::uint64_t* tiles, std::uint64_t n, const PathLength* x, PathLength* y) {
  const std::uint32_t b = ring_size(index_.header().tile);
  // The runs of vectors of one tile, each with its matrix: a round holds at most threads_ <= the
  // cache's capacity distinct tiles, so no get() of the round evicts another's entry.
  struct Run {
    std::uint64_t first = 0, count = 0;
    const PathLength* matrix = nullptr;
  };
  std::vector<Run> runs;
  for (std::uint64_t e = 0; e < n;) {
    std::uint64_t end = e + 1;
    while (end < n && tiles[end] == tiles[e]) ++end;
    runs.push_back(Run{e, end - e, cache_.get(tiles[e]).matrix.data()});
    e = end;
  }
  pool_.run(runs.size(), [&](std::uint64_t r) {
    min_plus_product_cpu(runs[r].matrix, b, x + runs[r].first * b, static_cast<std::uint32_t>(runs[r].count),
                         y + runs[r].first * b);
  });
}

IndexMatrixTilesCuda::IndexMatrixTilesCuda(const IndexFile& index, IndexTileCache& cache, std::uint64_t slots,
                                           std::uint64_t round_tiles)
    : IndexMatrixTiles(index, cache),
      gpu_(ring_size(index.header().tile), slots),
      slots_(slots),
      round_tiles_(std::max<std::uint64_t>(1, std::min(round_tiles, slots))) {}

void IndexMatrixTilesCuda::relax(const std::uint64_t* tiles, std::uint64_t n, const PathLength* x, PathLength* y) {
  slot_of_.resize(n);
  for (std::uint64_t e = 0; e < n; ++e) {
    if (e > 0 && tiles[e] == tiles[e - 1]) {
      slot_of_[e] = slot_of_[e - 1];
      continue;
    }
    auto it = slot_of_tile_.find(tiles[e]);
    if (it != slot_of_tile_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.second);
      slot_of_[e] = it->second.first;
      continue;
    }
    // A round holds at most round_tiles <= slots distinct tiles, all moved to the front of the LRU
    // list as they come: the back is never one of this round's.
    std::uint32_t slot;
    if (slot_of_tile_.size() < slots_) {
      slot = static_cast<std::uint32_t>(slot_of_tile_.size());
    } else {
      const std::uint64_t victim = lru_.back();
      lru_.pop_back();
      auto v = slot_of_tile_.find(victim);
      slot = v->second.first;
      slot_of_tile_.erase(v);
    }
    gpu_.upload(slot, cache_.get(tiles[e]).matrix.data());
    lru_.push_front(tiles[e]);
    slot_of_tile_[tiles[e]] = {slot, lru_.begin()};
    slot_of_[e] = slot;
  }
  kernel_ms_ += gpu_.gather(slot_of_.data(), n, x, y);
  ++launches_;
}

std::uint64_t block_solve_tiles_bytes(std::uint32_t t, std::uint64_t cache_tiles, unsigned threads) {
  const std::uint64_t halo = static_cast<std::uint64_t>(t + 2) * (t + 2), b = ring_size(t);
  return cache_tiles * (halo * 8 + b * 8 + 128) + static_cast<std::uint64_t>(t) * t * 8 +
         std::max(1u, threads) * (halo * 8 + static_cast<std::uint64_t>(t) * t);
}

BlockSolveTiles::BlockSolveTiles(const TileInput& input, const GPrimeExchangeOptions& options, std::uint64_t cache_tiles,
                                 unsigned threads)
    : input_(input), options_(options), cache_(cache_tiles), threads_(std::max(1u, threads)), pool_(threads_) {}

bool BlockSolveTiles::present(std::uint64_t tile) {
  const std::uint32_t tiles_x = input_.grid().tiles_x();
  return input_.tile_present(static_cast<std::uint32_t>(tile % tiles_x), static_cast<std::uint32_t>(tile / tiles_x));
}

const BlockSolveTiles::Entry& BlockSolveTiles::get(std::uint64_t tile) {
  return cache_.get(tile, [this](std::uint64_t t, Entry& entry) { load(t, entry); });
}

void BlockSolveTiles::load(std::uint64_t tile, Entry& entry) {
  const std::uint32_t t = input_.grid().tile, tiles_x = input_.grid().tiles_x();
  const std::uint32_t b = ring_size(t);
  const auto tx = static_cast<std::uint32_t>(tile % tiles_x), ty = static_cast<std::uint32_t>(tile / tiles_x);
  read_buffer_.resize(static_cast<std::uint64_t>(t) * t);
  if (input_.tile_present(tx, ty)) input_.read_tile(tx, ty, read_buffer_.data());
  else std::fill(read_buffer_.begin(), read_buffer_.end(), std::numeric_limits<double>::quiet_NaN());
  entry.values.assign(static_cast<std::uint64_t>(t + 2) * (t + 2), std::numeric_limits<double>::quiet_NaN());
  for (std::uint32_t y = 0; y < t; ++y)
    std::copy(read_buffer_.begin() + static_cast<std::ptrdiff_t>(y) * t, read_buffer_.begin() + static_cast<std::ptrdiff_t>(y + 1) * t,
              entry.values.begin() + static_cast<std::ptrdiff_t>(y + 1) * (t + 2) + 1);
  entry.ring.resize(b);
  gather_ring_values(read_buffer_.data(), t, entry.ring.data());
}

void BlockSolveTiles::relax(const std::uint64_t* tiles, std::uint64_t n, const PathLength* x, PathLength* y) {
  const std::uint32_t t = input_.grid().tile;
  const std::uint32_t b = ring_size(t);
  const std::uint64_t halo = static_cast<std::uint64_t>(t + 2) * (t + 2);
  std::vector<std::uint32_t> ring_at(b);
  for (std::uint32_t p = 0; p < b; ++p) {
    std::uint32_t cx, cy;
    ring_cell_of(t, p, &cx, &cy);
    ring_at[p] = (cy + 1) * (t + 2) + cx + 1;
  }
  for (std::uint64_t e0 = 0; e0 < n;) {
    std::uint64_t e1 = e0 + 1;
    while (e1 < n && tiles[e1] == tiles[e0]) ++e1;
    const double* values = get(tiles[e0]).values.data();
    // Step lengths by global row (--distance geodesic): the tile's local row 0 is its halo row.
    WeightParams params = options_.params;
    params.steps.row0 = static_cast<std::int64_t>(tiles[e0] / input_.grid().tiles_x()) * t - 1;
    // One in-tile solve per vector, the vectors of the tile split over the pool's threads (each
    // with its own window, block_solve_tiles_bytes' per-thread scratch).
    std::atomic<bool> overflow{false};
    pool_.run(e1 - e0, [&](std::uint64_t i) {
      thread_local std::vector<PathLength> dist;
      thread_local std::vector<std::uint8_t> changed;
      dist.assign(halo, kUnreached);
      changed.resize(static_cast<std::uint64_t>(t) * t);
      const std::uint64_t e = e0 + i;
      const PathLength* xe = x + e * b;
      for (std::uint32_t p = 0; p < b; ++p) dist[ring_at[p]] = std::min(dist[ring_at[p]], xe[p]);
      bool over = false;
      block_sssp_cpu(values, t, params, options_.connectivity, options_.max_cost, dist.data(), changed.data(), &over);
      if (over) overflow = true;
      PathLength* ye = y + e * b;
      for (std::uint32_t p = 0; p < b; ++p) ye[p] = std::min(ye[p], dist[ring_at[p]]);
    });
    if (overflow) throw UsageError("an edge weight overflows at --scale " + std::to_string(options_.params.scale));
    solves_ += e1 - e0;
    e0 = e1;
  }
}

}  // namespace terrazo
