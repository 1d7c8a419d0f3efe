// engine/sssp/exchange.h: phases 1-2 of the SSSP pipeline: block-local solves and boundary
// exchange through a tile-level priority queue, out of core (docs/sssp.md).
//
// Source: [Gerritsen2012, ch. 4-5] for the block decomposition; here without the
// dense boundary graph: exact label-correcting at tile granularity (docs/sssp.md).
//
// State: the labels of every cell (dist, and with labels also source and hops, kernels/sssp/block_sssp.h)
// live in a DistanceStore; a tile cache (LRU, pinned while in use) holds tiles in the block
// solver's (t+2h)^2 layout: values and labels of the tile and of its halo ring (h = 1; 2 with 16
// neighbours, whose knight's moves reach two cells into a neighbouring tile: kernels/sssp/knight.h).
// Algorithm:
//   1. Sources: each source cell gets label (0, id, 0) (lowest id when a cell is given twice), its
//      tile is queued with key 0 and source cells on the tile's border are pushed (step 3).
//   2. Pop the tiles of smallest key (a batch of up to `batch` tiles), solve each with the block
//      solver (CPU Dijkstra, or the CUDA solver for distance-only runs).
//   3. Push every border cell (within h of the border) whose label changed to the ring of each
//      neighbouring tile it touches (4 or 8 neighbours): ring label = min(ring label, pushed label). The neighbour is queued only
//      if the pushed cell improves one of the neighbour's cells next to it: checked on the
//      neighbour's own labels when it is cached, else on this tile's ring, which holds the
//      neighbour's border labels as last pushed (never lower than current, so the check never
//      misses an improvement). An uncached neighbour's ring is updated on disk (read-modify-write of
//      one ring side). Queue key = min over pending pushed distances (decrease-key).
//   4. Repeat 2-3 until the queue is empty. Then every edge satisfies dist(v) <= dist(u) + w(u, v)
//      (within tiles by the solver, across tiles because every change was pushed and re-solved),
//      sources are 0 and every finite label is the label of a real path: the labels are the exact
//      lexicographic shortest-path labels. Tiles no source reaches are never loaded.
// Memory (reserved from the budget before use):
//   cache      capacity x entry, entry = (t+2)^2 x (8 value + 8 dist [+ 8 source/hops]) + t*t changed
//   queue      tile_count x 8 (keys) + 48 per queued tile (ordered set node)
//   solver     per thread ~ (t+2)^2 x 40 (radix heap entries, valid mask), plus its load scratch
//              t*t x 16 (24 with labels) and a ring (a round's tiles load on every thread)
//   store      tile_count / 4 + t*t x 8 (engine/sssp/distance_store.h)
//   GPU batch  2 x batch x ((t+2)^2 x 16 + t*t) pinned host memory (two slots of the CUDA batch solver)
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/run/communicator.h"
#include "engine/run/memory_plan.h"
#include "engine/run/tile_ownership.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/page_arena.h"
#include "kernels/common/progress.h"
#include "engine/sssp/border_mail.h"
#include "engine/sssp/distance_store.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/tile_store.h"
#include "kernels/common/worker_pool.h"
#include "kernels/sssp/block_sssp_solver.h"
#include "kernels/common/edge_weight.h"

namespace terrazo {

// A source inside one tile: local cell index ly * t + lx and its id (allocation label).
struct TileSource {
  std::uint32_t local = 0;
  std::uint32_t id = 0;
  PathLength start = 0;  // initial distance (fixed point): the source's label is (start, id, 0)
};

using SsspSolverDevice = Device;  // kernels/common/batch_solver.h

struct SsspExchangeOptions {
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;  // labels with a larger dist are unreached
  bool track_source = false;         // allocation output
  bool track_hops = false;           // backlink output (kernels/sssp/backlink.h needs hops)
  SsspSolverDevice device = SsspSolverDevice::Cpu;
  unsigned threads = 1;              // CPU solver threads (tiles of one batch in parallel)
  std::uint32_t batch = 1;           // tiles popped per round (>= threads; the GPU batch, capped by GPU memory)
  std::uint64_t gpu_memory_bytes = 0;  // CUDA: device memory for the batch solver; 0: its default share
  bool frontier_bfs = false;         // unit model: the frontier BFS block solvers (kernels/sssp/block_bfs.h)
  std::uint64_t cache_bytes = 0;     // tile cache; 0: planned (below), or all the budget has left
  // With cache_bytes 0: the tile cache is the last part of phase `plan_phase` of `plan`, whose other
  // parts the caller declared (what must stay unreserved beside the cache: the source mask's reader,
  // the allocator's margin, the write phase's room, served in that order before the cache grows);
  // the phase is planned once the exchange's fixed structures are reserved. No plan: the rest.
  MemoryPlan* plan = nullptr;
  std::string plan_phase;
  // A distributed run (docs/distributed.md "sssp"): the ranks and the tiles each owns; null: one
  // process. Each rank solves only its own tiles; pushes to another rank's tiles go through the
  // border mail (engine/sssp/border_mail.h), and the rounds are agreed (run_rounds).
  Communicator* comm = nullptr;
  const TileOwnership* ownership = nullptr;
  bool distributed() const { return comm && ownership && comm->distributed(); }
};

struct SsspExchangeStats {
  std::uint64_t solves = 0;          // block solver calls
  std::uint64_t tiles_solved = 0;    // distinct tiles solved at least once
  std::uint64_t resolves = 0;        // solves - tiles_solved
  std::uint64_t rounds = 0;          // batches
  std::uint64_t cache_capacity = 0;  // tiles
  std::uint64_t cache_loads = 0, cache_evictions = 0;
  std::uint64_t cells_improved = 0;  // sum of the solver's changed counts
  std::uint64_t memory_bytes = 0;    // reserved for cache, queue, solver and staging
  // Distributed: this rank's border mail (engine/sssp/border_mail.h).
  std::uint64_t bytes_sent = 0, bytes_received = 0, pushes_sent = 0;
  std::uint32_t neighbour_ranks = 0;
  // Distributed: seconds this rank spent trading borders with its neighbours, and in the rounds'
  // agreements (all-reduces, waiting for the slowest rank among them).
  double trade_seconds = 0, agree_seconds = 0;
};

// The error of a solve whose edge weight overflowed (both exchanges).
[[noreturn]] void throw_weight_overflow(const WeightParams& params);

// What the pipeline (engine/commands/sssp_pass.cpp) drives: this streamed exchange, or the resident one
// (engine/sssp/resident_exchange.h). Both leave the exact labels in the DistanceStore.
class SsspExchangeRun {
 public:
  virtual ~SsspExchangeRun() = default;
  // Step 1 for one tile. Sources on nodata cells are not set; their local indices are returned.
  virtual std::vector<std::uint32_t> add_sources(std::uint32_t tx, std::uint32_t ty,
                                                 const std::vector<TileSource>& sources) = 0;
  // Steps 2-4. Progress phase "sssp: exchange" (done = solves; total unknown).
  virtual void run(Progress& progress) = 0;
  // Leaves every label in the store (the streamed exchange: writes every dirty cached tile and
  // empties the cache).
  virtual void flush() = 0;
  virtual const SsspExchangeStats& stats() const = 0;
};

// The streamed exchange is also a label source for the write phase (engine/sssp/output.h): cached
// tiles are read from the cache, the others from the store, so the pipeline writes its outputs
// without first flushing the cache to the store and reading it back (the cache's reservations
// stay held meanwhile). release(tile) drops the tile from the cache and the store.
class SsspExchange final : public SsspExchangeRun, public SsspLabelSource {
 public:
  SsspExchange(const TileInput& input, DistanceStore& store, const SsspExchangeOptions& options, MemoryBudget& budget);
  ~SsspExchange() override;
  SsspExchange(const SsspExchange&) = delete;
  SsspExchange& operator=(const SsspExchange&) = delete;

  bool labelled() const override { return labelled_; }
  std::uint32_t halo() const override { return h_; }
  // Distributed: a tile of another rank is only checked (its sources on nodata returned, nothing
  // set: its owner sets them), so every rank refuses the same sources.
  std::vector<std::uint32_t> add_sources(std::uint32_t tx, std::uint32_t ty,
                                         const std::vector<TileSource>& sources) override;
  // Distributed: run_rounds.
  void run(Progress& progress) override;
  void flush() override;
  const SsspExchangeStats& stats() const override { return stats_; }

  // SsspLabelSource, after run(): the final labels, from the cache or the store.
  const TileGrid& grid() const override { return grid_; }
  bool interior_present(std::uint64_t tile) const override;
  void read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source, std::uint32_t* hops) override;
  void read_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, RingCell* out) override;
  void release(std::uint64_t tile) override;
  std::uint64_t bytes_read() const override { return store_.bytes_read(); }

  struct Entry;

 private:
  struct LoadScratch;
  // A tile's entry, pinned: claim() finds it in the cache or makes room and takes a piece for it
  // (*load_it true: its cells are still to be read by load()); acquire() is both.
  Entry& acquire(std::uint64_t tile);
  Entry& claim(std::uint64_t tile, bool* load_it);
  void load(Entry& entry, LoadScratch& scratch);
  void unpin(Entry& entry);
  void evict_one();
  void write_back(Entry& entry);
  void enqueue(std::uint64_t tile, PathLength key);
  void push_borders(Entry& entry, const std::uint8_t* changed);
  void push_to_neighbour(std::uint64_t tile, std::uint32_t first, const std::vector<RingCell>& cells,
                         const std::vector<char>& improves);
  // The weight parameters of one tile's window (its step-length table row origin).
  WeightParams tile_params(const Entry& entry) const;
  Weight window_step_weight(const Entry& entry, const WeightParams& params, std::int64_t ux, std::int64_t uy, int d,
                            bool* overflow) const;
  // Whether the step from window cell u to cell v of weight `w` (kNoEdge: none) gives v a label below
  // its own, within --max-cost.
  bool step_improves(const Entry& entry, std::size_t u, std::size_t v, Weight w) const;
  bool halo_improves_interior(const Entry& entry, std::uint32_t hx, std::uint32_t hy) const;
  bool improves_across(const Entry& entry, std::uint32_t lx, std::uint32_t ly, int dx, int dy) const;
  void solve_batch(const std::vector<Entry*>& batch);
  // Pops up to `batch` queued tiles of key at most `bound` (smallest first), loads, solves and
  // pushes them; returns how many.
  std::size_t solve_round(PathLength bound);
  // The distributed rounds (engine/sssp/exchange_ranks.cpp, docs/distributed.md "sssp"): the
  // border mail delivered, the round's bound agreed (all-reduce), this rank's tiles under it solved,
  // until no rank has a tile queued.
  void run_rounds(Progress& progress);
  // The sources of another rank's tile: which are on nodata (nothing is set).
  std::vector<std::uint32_t> check_foreign_sources(std::uint32_t tx, std::uint32_t ty,
                                                   const std::vector<TileSource>& sources);
  std::uint64_t entry_piece_bytes() const;
  void carve_entry(Entry& entry) const;  // points the entry's arrays into its piece

  const TileInput& input_;
  DistanceStore& store_;
  SsspExchangeOptions options_;
  TileGrid grid_;
  bool labelled_;
  std::uint32_t t_;
  std::uint32_t h_;  // the halo's width: 2 with 16 neighbours, else 1 (kernels/sssp/knight.h)
  std::uint64_t halo_cells_;
  double knight_lengths_[16] = {};
  // Cache.
  std::uint64_t capacity_ = 0;
  std::unordered_map<std::uint64_t, std::unique_ptr<Entry>> cache_;
  std::list<std::uint64_t> lru_;  // front = most recently used
  std::vector<std::unique_ptr<Entry>> free_entries_;
  std::unique_ptr<PageArena> arena_;  // the entries' arrays (kernels/common/page_arena.h), capacity_ pieces
  std::vector<LoadScratch> load_scratch_;  // one per thread; [0] also for write_back
  // Queue.
  std::vector<PathLength> queued_key_;  // kUnreached: not queued
  std::set<std::pair<PathLength, std::uint64_t>> queue_;
  std::vector<bool> solved_once_;
  std::vector<bool> full_scan_;  // interior labels set outside the solver (sources) since its last solve
  // The tile solver of options.device (kernels/sssp/block_sssp_solver.h) and the pool of the CPU one.
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<SsspTileBatchSolver> solver_;
  std::vector<MemoryBudget::Reservation> reservations_;
  std::unique_ptr<BorderMail> mail_;  // distributed runs only
  SsspExchangeStats stats_;
};

}  // namespace terrazo
