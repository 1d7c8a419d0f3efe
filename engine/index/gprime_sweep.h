// engine/index/gprime_sweep.h: od-matrix's G' exchange on the CPU, one source at a time on each thread,
// over an index held in memory (engine/index/index_in_memory.h): a tile-level Dijkstra per source
// (docs/index.md "The sweep on the CPU").
//
// Source: [Gerritsen2012, ch. 4] (G': tile rings joined by in-tile distances, the exchange between
// tiles); [Malison2012, sec. 4.1] (a tile's re-solve is a min-plus product).
// Contract: for each source v with seeds (ring labels of the tiles it touches, exact in-tile
// distances), and each target (site j, the tile U it touches, j's in-tile distances to U's ring):
// best[v * k + j] = min(best[v * k + j], min over ring cells r of U of D_v(r) + ring_j(r)), D_v the
// exact G' distance from v's seeds (as gprime_exchange; kUnreached beyond max_cost). With a rank (a
// permutation of the sources), source v serves only the targets j ranked after it (the weights are
// symmetric: the caller mirrors the matrix) and the sources run in rank order; empty: every target.
// Algorithm, per source: tiles are solved in the order of their least pending label (a priority
// queue); a solve is the min-plus product of the tile's stored triangle with its pending labels
// (kernels/index/min_plus_triangle.h), then the improved ring labels cross the grid edges to the
// neighbouring rings (weights precomputed per ring cell). The popped keys never decrease, so once
// every valid ring cell of a tile has a label no larger than the key being popped, no later offer
// can improve it: the tile is settled, its targets harvested and its label block freed. The source
// stops when every tile holding one of its targets is settled. Labels are exact integers: the
// result does not depend on the order, the threads or the tile size.
// Memory (GPrimeSweep::bytes, reserved by the caller): the grid edges' weights (4 bytes each, up to
// 5 per ring cell) and 80 bytes per present tile; per thread, a label block (B x 8 bytes and the
// pending bits) per present tile at most, and 12 bytes per present tile.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kernels/common/progress.h"
#include "engine/index/gprime_exchange.h"
#include "engine/index/index_in_memory.h"

namespace terrazo {

struct SweepSeed {
  std::uint64_t tile = 0;            // grid tile (row-major)
  const PathLength* ring = nullptr;  // B labels
};

struct SweepTarget {
  std::uint32_t site = 0;            // j
  const PathLength* ring = nullptr;  // B in-tile distances from j's cells in the tile to its ring
};

struct GPrimeSweepStats {
  std::uint64_t tile_solves = 0;    // tiles popped and solved, all sources
  std::uint64_t settled = 0;        // tiles settled (their blocks freed), all sources
  std::uint64_t stopped_early = 0;  // sources stopped once their targets' tiles were settled
  std::uint64_t max_live = 0;       // the most label blocks one source held at once
};

class GPrimeSweep {
 public:
  GPrimeSweep(const IndexInMemory& index, const GPrimeExchangeOptions& options, unsigned threads);
  static std::uint64_t bytes(std::uint32_t t, std::uint64_t present, unsigned threads);
  // sources[v]: v's seeds; targets: per grid tile the targets in it. best: k x k, k = sources.size().
  // Progress phase "od-matrix: queries" (done = sources).
  void run(const std::vector<std::vector<SweepSeed>>& sources,
           const std::unordered_map<std::uint64_t, std::vector<SweepTarget>>& targets,
           const std::vector<std::uint32_t>& rank, PathLength* best, Progress& progress,
           GPrimeSweepStats* stats) const;

 private:
  struct Step {
    std::uint8_t slot = 0;  // neighbour (dy + 1) * 3 + dx + 1
    std::uint16_t r = 0;    // ring position there
  };
  struct Source;
  void prefetch_triangle(std::uint64_t dense) const;
  const IndexInMemory& index_;
  GPrimeExchangeOptions options_;
  unsigned threads_ = 1;
  std::uint32_t b_ = 0, words_ = 0, steps_total_ = 0;
  std::vector<std::uint32_t> step_first_;  // b + 1
  std::vector<Step> steps_;
  std::vector<std::int64_t> dense_;        // per grid tile, -1: absent
  std::vector<std::uint64_t> tile_of_;     // per dense tile
  std::vector<std::int64_t> neighbours_;   // per dense tile x 9
  std::vector<Weight> weights_;            // per dense tile x steps_total_ (kNoEdge: none)
  std::vector<std::uint16_t> valid_;       // per dense tile: its valid ring cells
};

}  // namespace terrazo
