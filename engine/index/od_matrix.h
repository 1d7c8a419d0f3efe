// engine/index/od_matrix.h: origin-destination cost matrices between K sites, exactly, two ways
// (docs/index.md "Queries"), both over G' (engine/index/gprime_exchange.h):
//   - od_matrix_by_index: the tiles' re-solves are min-plus products with the index's matrices, on
//     the CPU (the sweep over the index read into memory, engine/index/gprime_sweep.h, when the
//     budget holds it; else the queue, one tile a round) or on the GPU (many tiles a launch);
//     od_matrix_by_memory_index the sweep over an index built in memory (the CPU's transient index).
//   - od_matrix_by_exchange: no index; a tile's re-solve is an in-tile Dijkstra per pending source
//     (BlockSolveTiles), the sources in batches carrying a label vector each on every ring: tiles
//     are read about once per batch, not once per site.
// Steps: (1) sites: per (site, tile it touches) one in-tile solve from the site's cells in the tile
// (block_sssp_cpu, empty halo): the site's distances to the tile's ring, and to the other sites'
// cells in the tile (the in-tile term); (2) per batch of sources the G' exchange seeded with those
// ring vectors; (3) targets: cost(s, j) = min( in-tile term, min over the tiles U of j and ring cells
// r of U of D_s(r) + d_U(r, j) ), d_U(r, j) = j's ring vector in U (the weights are symmetric).
// A site is a point (one cell) or a region (a set of cells: the distance between regions is the
// minimum over their cell pairs; the same formula with every tile a region touches).
// Exactness: a path from s to a cell u of j either stays in one tile (the in-tile term) or leaves
// it; then its last entry into u's tile passes a ring cell r and continues inside the tile; the prefix
// s -> r is a G' path whose in-tile pieces are bounded below by the tiles' in-tile distances
// ([Gerritsen2012, ch. 4]). Every re-solve is exact integer arithmetic, so the matrix does not depend
// on the method, device or round size.
// Result: entry [i * K + j] = the shortest distance from site i to site j (fixed point), kUnreached
// when no path or beyond max_cost; the diagonal 0.
// The exchange: OdQueryOptions::exchange; OdQueryStats::exchange says which ran.
// Memory (the sweep: the index's records, GPrimeSweep::bytes, the results; otherwise): per batch of
// sources, G' labels and pending labels, 16 bytes per ring cell of the grid and
// source (tiles x (4t - 4) x 16 per source; the batch is half of the budget's rest over that) and the
// round's vectors (24 B bytes per vector); then the index tile cache ((4t - 4)^2 x 8 each) or, without
// the index, the tile cache (block_solve_tiles_bytes) from the rest; per (site, tile) its ring vector.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/edge_weight.h"
#include "engine/index/gprime_exchange.h"
#include "engine/index/index_in_memory.h"
#include "engine/run/memory_plan.h"
#include "io/store/index_file.h"

namespace terrazo {

struct OdSite {
  std::vector<std::uint64_t> cells;  // global ids y * W + x: one for a point, a region's cells
  std::string text;                  // for messages
};

// How the index's G' exchange runs (docs/index.md "The exchange in rounds"): Queue, the label-correcting
// exchange (tile-level Dijkstra order on the CPU; on the GPU, rounds of tiles gathered by the host);
// Rounds, Bellman-Ford rounds with the labels resident (CPU threads over tiles, or everything on
// the GPU); Auto: on the GPU Rounds when the matrices and one source's labels fit in its memory,
// else Queue; on the CPU Sweep when the index's records and the sweep fit in the budget, else Queue.
// Sweep (the CPU's default when the index fits in the budget): the index held in memory, each source
// alone on a thread in tile-level Dijkstra order, tiles settled and freed behind its front, stopped
// once its targets are settled (engine/index/gprime_sweep.h).
enum class OdExchange { Auto, Queue, Rounds, Sweep };

// The exchange's own options (params, connectivity, max_cost: GPrimeExchangeOptions), and the query's.
struct OdQueryOptions : GPrimeExchangeOptions {
  std::uint64_t cache_bytes = 0;  // index matrix cache; 0: what the budget leaves (1 MiB kept free)
  Device device = Device::Cpu;    // with the index: the min-plus products on the CPU or the GPU
  unsigned threads = 1;           // CPU threads: the products of a round of this many tiles (index), the in-tile solves (without)
  std::uint64_t round_tiles = 0;  // CUDA: tiles per launch (0: 512)
  std::uint64_t gpu_memory_bytes = 0;  // CUDA: matrix slots on the GPU (0: 60% of the free memory)
  std::uint64_t max_batch = 0;    // tests: at most this many sources per batch (0: what the budget holds)
  OdExchange exchange = OdExchange::Auto;  // with the index (without: the queue, always)
  double round_window = 4;        // rounds: label window in tile crossings (0: none; GPrimeRounds); 4 measured best (docs/benchmarks.md)
};

struct OdQueryStats {
  std::uint64_t site_tiles = 0;      // distinct tiles holding sites (in-tile solves)
  std::uint64_t batch_sources = 0;   // sources per batch of the G' exchange
  std::uint64_t tile_solves = 0;     // tile re-solves (min-plus products), all batches
  std::uint64_t matrix_loads = 0;    // index tiles read (cache misses)
  std::uint64_t cache_tiles = 0;     // cache capacity
  std::uint64_t exchange_solves = 0; // od_matrix_by_exchange: in-tile solves of the G' exchange
  std::uint64_t rounds = 0;          // exchange rounds (CUDA: launches)
  std::uint64_t gpu_uploads = 0;     // CUDA: matrices uploaded to the GPU
  std::uint64_t site_parts = 0;      // (site, tile) pairs: in-tile solves of the sites
  double kernel_ms = 0;              // CUDA: kernel time
  double kernel_ms_select = 0, kernel_ms_solve = 0, kernel_ms_push = 0;  // GPU rounds: kernel_ms by stage
  std::uint64_t due_sources = 0;     // GPU rounds: (tile, source) pairs with a due label, all solves
  std::string exchange;              // "queue", "rounds-cpu" or "rounds-gpu" (the dispatch's choice)
  std::uint64_t max_active = 0;      // rounds: the most tiles active in one round
  std::uint64_t settled = 0;         // sweep: tiles settled (label blocks freed), all sources
  std::uint64_t stopped_early = 0;   // sweep: sources stopped once their targets' tiles were settled
  std::uint64_t max_live = 0;        // sweep: the most label blocks one source held at once
  std::uint64_t index_bytes = 0;     // sweep: the index's records in memory
  double seconds_sites = 0, seconds_queries = 0;
  double seconds_index = 0, index_kernel_ms = 0;  // od_matrix_by_gpu_index: the matrices built on the GPU
};

// Throws UsageError naming the site when a point site is on a nodata cell (a region's nodata cells
// are left out; a region with none valid is an error), and when the index does not
// fit the raster (size, tile, weights; a site tile whose values differ from those indexed: the
// fingerprint).
std::vector<PathLength> od_matrix_by_index(const TileInput& input, const IndexFile& index, const std::vector<OdSite>& sites,
                                           const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                           OdQueryStats* stats);

std::vector<PathLength> od_matrix_by_exchange(const TileInput& input, const std::vector<OdSite>& sites,
                                              const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                              OdQueryStats* stats);

// od_matrix_by_gpu_index: the index's matrices built on the GPU straight into the rounds' device
// memory (no .tzi written, nothing read back: GPrimeRounds' second constructor), then the exchange in
// rounds there; the same matrix as od_matrix_by_index with an index of the same weights (leaf
// kDefaultIndexLeaf). options.device must be Cuda. gpu_index_fits: whether the GPU memory
// (options.gpu_memory_bytes, or 60% of the free memory) holds every matrix, one source's labels and
// the build's launches (else the caller builds an index file).
std::vector<PathLength> od_matrix_by_gpu_index(const TileInput& input, const std::vector<OdSite>& sites,
                                               const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                               OdQueryStats* stats);
bool gpu_index_fits(const TileInput& input, const OdQueryOptions& options);

// od_matrix_by_memory_index: the sweep over an index held in memory (od-matrix's transient index on
// the CPU: built by build_index into an IndexInMemory, no file). The same matrix as
// od_matrix_by_index with a file of the same index. memory_index_fits: whether three quarters of the
// budget's available bytes hold an index of `input` with 4-byte entries (the IndexInMemory reserves
// its bytes as they come: a tile of 8-byte entries may exceed it, a BudgetError), the sweep of
// `threads` threads and the index build's batch.
std::vector<PathLength> od_matrix_by_memory_index(const TileInput& input, const IndexInMemory& index,
                                                  const std::vector<OdSite>& sites, const OdQueryOptions& options,
                                                  MemoryBudget& budget, Progress& progress, OdQueryStats* stats);
bool memory_index_fits(const TileInput& input, unsigned threads, const MemoryBudget& budget);
// The tiles of `input` holding a valid cell (an index of it has at most these with a boundary).
std::uint64_t input_present_tiles(const TileInput& input);
// What a CPU query needs free at its start, as the parts of a phase of the command's memory plan
// (engine/run/memory_plan.h; od-matrix, network): lower bounds, so a budget below them surely fails
// and one at them may still choose smaller batches and caches. `sites` sites in `parts` (site, tile)
// parts (a point site is one part), `site_tiles` distinct tiles holding them; `present`: the tiles
// with a boundary (an index's present tiles; 0 without an index).
//   Exchange (no index) and Queue (over an index): the sites' vectors and the results
//   (query_fixed_bytes), then the labels of one source, which must fit in half of what is left (the
//   batch is half of the rest over them), then the least tile cache (2 tiles) beside those labels:
//   fixed + per_source + max(per_source, least cache).
//   Rounds (over an index, on the CPU): fixed, the rounds' in-edges, then the same for its labels.
//   Sweep (over an index held in memory, `records` its bytes): the records and the sweep fit in three
//   quarters of what is left, the fixed part beside them.
enum class OdQueryKind { Exchange, Queue, Rounds, Sweep };
std::vector<MemoryPlan::Part> od_query_needs(OdQueryKind kind, const TileGrid& grid, std::uint64_t present,
                                             std::uint64_t records, std::uint64_t sites, std::uint64_t parts,
                                             std::uint64_t site_tiles, unsigned threads);

// The bytes memory_index_fits counts (the records with 4-byte entries, the sweep, the build's batch).
std::uint64_t memory_index_bytes(const TileInput& input, unsigned threads);


}  // namespace terrazo
