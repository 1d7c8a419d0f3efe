// engine/index/gprime_tiles.h: the tiles of G' for the exchange (engine/index/gprime_exchange.h), three
// ways, all exact and giving the same labels (docs/index.md "Queries"):
//   - IndexMatrixTiles: the index's matrices on the CPU, a tile's re-solve the min-plus product of
//     its B x B matrix with the pending labels (kernels/index/min_plus.h), one tile a round.
//   - IndexMatrixTilesCuda: the same products on the GPU, many tiles a round in one launch
//     (MinPlusCuda::gather), the matrices kept in GPU slots (LRU) so each is uploaded about once.
//   - BlockSolveTiles: no index; a tile's re-solve is one in-tile Dijkstra (block_sssp_cpu, empty
//     halo) per pending source, seeded with its pending ring labels: the same in-tile distances the
//     matrix holds ([Gerritsen2012, ch. 4]), computed on demand; tiles come through an LRU cache, so
//     a batch of sources reads each tile about once (od-matrix without --index).
// Source: [Gerritsen2012, ch. 4]; [Malison2012, sec. 4.1] (min-plus products).
// Memory: IndexMatrixTiles and the CUDA twin: the caller's IndexTileCache; the CUDA twin also
// MinPlusCuda's slots on the GPU (slot_bytes each) and its round's vectors there. BlockSolveTiles:
// cache_tiles x ((t+2)^2 x 8 + B x 8) bytes, plus per thread (t+2)^2 x 8 + t^2 bytes (the caller
// reserves both: block_solve_tiles_bytes).
#pragma once
#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/index/gprime_exchange.h"
#include "engine/index/lru_tile_cache.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/worker_pool.h"
#include "kernels/index/min_plus.h"

namespace terrazo {

class IndexMatrixTiles : public GPrimeTiles {
 public:
  // threads > 1: rounds of `threads` tiles (at most the cache's capacity), their products on that
  // many threads; 1: one tile a round.
  IndexMatrixTiles(const IndexFile& index, IndexTileCache& cache, unsigned threads = 1)
      : index_(index), cache_(cache),
        threads_(static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, cache.capacity())))),
        pool_(threads_) {}
  bool present(std::uint64_t tile) override { return index_.entry(tile).offset != 0; }
  void ring_values(std::uint64_t tile, std::vector<double>* out) override { *out = cache_.get(tile).ring; }
  void relax(const std::uint64_t* tiles, std::uint64_t n, const PathLength* x, PathLength* y) override;
  std::uint64_t round_tiles() const override { return threads_; }

 protected:
  const IndexFile& index_;
  IndexTileCache& cache_;
  unsigned threads_ = 1;
  WorkerPool pool_;  // the products' threads, kept for every round (a thread started per round cost more than its work)
};

class IndexMatrixTilesCuda : public IndexMatrixTiles {
 public:
  // slots: matrices held on the GPU (>= round_tiles); round_tiles: tiles re-solved per launch.
  IndexMatrixTilesCuda(const IndexFile& index, IndexTileCache& cache, std::uint64_t slots, std::uint64_t round_tiles);
  // the GPU's rounds (the base's are the CPU threads')
  void relax(const std::uint64_t* tiles, std::uint64_t n, const PathLength* x, PathLength* y) override;
  std::uint64_t round_tiles() const override { return round_tiles_; }
  double kernel_ms() const { return kernel_ms_; }
  std::uint64_t uploads() const { return gpu_.uploads(); }
  std::uint64_t launches() const { return launches_; }

 private:
  MinPlusCuda gpu_;
  std::uint64_t slots_, round_tiles_;
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::list<std::uint64_t>::iterator>> slot_of_tile_;
  std::list<std::uint64_t> lru_;  // tiles, most recent first
  std::vector<std::uint32_t> slot_of_;
  double kernel_ms_ = 0;
  std::uint64_t launches_ = 0;
};

// Bytes BlockSolveTiles needs for `cache_tiles` tiles of side t and `threads` solver threads.
std::uint64_t block_solve_tiles_bytes(std::uint32_t t, std::uint64_t cache_tiles, unsigned threads);

class BlockSolveTiles : public GPrimeTiles {
 public:
  BlockSolveTiles(const TileInput& input, const GPrimeExchangeOptions& options, std::uint64_t cache_tiles, unsigned threads);
  bool present(std::uint64_t tile) override;
  void ring_values(std::uint64_t tile, std::vector<double>* out) override { *out = get(tile).ring; }
  void relax(const std::uint64_t* tiles, std::uint64_t n, const PathLength* x, PathLength* y) override;
  std::uint64_t loads() const { return cache_.loads(); }
  std::uint64_t solves() const { return solves_; }

 private:
  struct Entry {
    std::vector<double> values;  // (t+2)^2, empty (NaN) halo
    std::vector<double> ring;
  };
  const Entry& get(std::uint64_t tile);
  void load(std::uint64_t tile, Entry& entry);
  const TileInput& input_;
  GPrimeExchangeOptions options_;
  LruTileCache<Entry> cache_;
  unsigned threads_;
  WorkerPool pool_;  // the solves' threads, kept for every tile's vectors
  std::vector<double> read_buffer_;
  std::uint64_t solves_ = 0;
};

}  // namespace terrazo
