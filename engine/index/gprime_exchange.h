// engine/index/gprime_exchange.h: the tile-level exchange over G' that every index query runs
// (docs/index.md "Queries"): label vectors of a batch of sources on the rings of the tiles they reach.
//
// Source: [Gerritsen2012, ch. 4] (G'); [Malison2012, sec. 4.1] (min-plus products).
// Contract: seeds give, per source v of the batch (0 <= v < kb), labels on the ring of one tile
// (several seeds may share a tile or a source). Out: for every tile reached, kb x B labels
// (source-major): label[v][r] = min over seeds of v and G' paths from the seed's ring cell to ring
// cell r of seed + path length, i.e. the exact grid distance from v's seeds when the seeds are exact
// in-tile distances (kUnreached where none, or beyond max_cost).
// Algorithm: a tile's re-solve is the min-plus product of its matrix with the labels improved since
// its last solve (only the sources with pending labels); its improved ring labels cross the grid
// edges (diagonals included) to the neighbouring tiles' rings; tiles are solved in the order of
// their smallest pending label until none is pending (label-correcting).
// Memory: per tile reached 2 x kb x B x 8 bytes plus 2 bits per source (the caller reserves it),
// and the cache's matrices.
#pragma once
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/common/edge_weight.h"
#include "engine/index/lru_tile_cache.h"
#include "kernels/index/boundary_ring.h"
#include "io/store/index_file.h"

namespace terrazo {

// The LRU cache of index tiles (ring values and expanded matrices), `capacity` tiles.
class IndexTileCache {
 public:
  struct Entry {
    std::vector<double> ring;
    std::vector<PathLength> matrix;
  };
  IndexTileCache(const IndexFile& index, std::uint64_t capacity) : index_(index), cache_(capacity) {}
  // The tile's entry; valid until the next get().
  const Entry& get(std::uint64_t tile) {
    return cache_.get(tile, [this](std::uint64_t t, Entry& entry) {
      const std::uint32_t b = ring_size(index_.header().tile);
      entry.ring.resize(b);
      entry.matrix.resize(static_cast<std::uint64_t>(b) * b);
      index_.read_tile(t, entry.ring.data(), entry.matrix.data());
    });
  }
  std::uint64_t loads() const { return cache_.loads(); }
  std::uint64_t capacity() const { return cache_.capacity(); }

 private:
  const IndexFile& index_;
  LruTileCache<Entry> cache_;
};

// The tiles of G' as the exchange sees them: which tiles take labels, their ring values (for the
// grid edges between rings), and a tile's re-solve. Implementations (engine/index/gprime_tiles.h):
// the index's matrices (min-plus products, CPU or CUDA) and, without an index, in-tile solves.
class GPrimeTiles {
 public:
  virtual ~GPrimeTiles() = default;
  // False where no label can enter (no valid ring cell).
  virtual bool present(std::uint64_t tile) = 0;
  // The tile's ring values (B doubles, NaN = nodata), copied into `out`.
  virtual void ring_values(std::uint64_t tile, std::vector<double>* out) = 0;
  // The re-solves of a round: for e < n, y[e][q] = min(y[e][q], min over ring cells p of x[e][p] +
  // d_tile(p, q)) with tile = tiles[e] (vectors of one tile adjacent; B entries each, back to back),
  // d_tile the in-tile distance (the index matrix). Exact integer min-plus: every implementation gives
  // the same y.
  virtual void relax(const std::uint64_t* tiles, std::uint64_t n, const PathLength* x, PathLength* y) = 0;
  // Tiles solved together in one round (1: the tile-level Dijkstra order, one tile at a time).
  virtual std::uint64_t round_tiles() const { return 1; }
};

struct GPrimeSeed {
  std::uint64_t tile = 0;        // row-major tile index
  std::uint32_t source = 0;      // v, 0..kb-1
  std::vector<PathLength> ring;  // B labels
};

struct GPrimeExchangeOptions {
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;
};

struct GPrimeStats {
  std::uint64_t tile_solves = 0;
  std::uint64_t rounds = 0;
};

using GPrimeLabels = std::unordered_map<std::uint64_t, std::vector<PathLength>>;

// The grid edges leaving a tile's ring, the same for every tile of side t: for ring position p, the
// steps [first[p], first[p + 1]), each in direction dir to ring position q of the neighbouring tile
// (dx, dy) (edges inside the tile are the matrix's, not steps).
struct RingStep {
  int dir = 0, dx = 0, dy = 0;
  std::uint32_t q = 0;
  std::uint32_t neighbour() const { return static_cast<std::uint32_t>((dy + 1) * 3 + dx + 1); }  // of the 3 x 3
};
struct RingSteps {
  std::vector<std::uint32_t> first;  // b + 1
  std::vector<RingStep> steps;
};
RingSteps ring_out_steps(std::uint32_t t, Connectivity connectivity);

// UsageError unless the index was built for a raster of `grid`'s size and tile with these weights.
void check_index_fits(const IndexFile& index, const TileGrid& grid, const WeightParams& params, Connectivity connectivity);

// UsageError unless tile `tile`'s cells (t*t, NaN = nodata) are those the index was built from
// (the tile's values CRC, part of the fingerprint); `what` names the site or source in the message.
void check_index_tile(const IndexFile& index, std::uint64_t tile, const double* values, const std::string& what);

// Rounds: each pops up to tiles.round_tiles() tiles in the order of their smallest pending label,
// re-solves them in one relax() call, then pushes their improved ring labels to the neighbours. The
// labels' fixed point (the exact distances) does not depend on the round size; with one tile a round
// the order is the tile-level Dijkstra order (fewest re-solves). Memory per round: 3 x 8 x B bytes
// per vector (x, y and the labels before), at most round_tiles x kb vectors (the caller reserves it).
GPrimeLabels gprime_exchange(GPrimeTiles& tiles, const TileGrid& grid, std::uint64_t kb,
                             const std::vector<GPrimeSeed>& seeds, const GPrimeExchangeOptions& options,
                             GPrimeStats* stats);

}  // namespace terrazo
