// engine/index/gprime_round_loop.h: the G' exchange of an index query in Bellman-Ford rounds over tiles
// (docs/index.md "The exchange in rounds"), on the CPU (threads over tiles) or with everything
// resident on the GPU (kernels/index/gprime_rounds.h: labels of the batch on every tile's ring, the
// matrices, the in-edges between rings; the host sees the count of active tiles per round).
//
// Source: [Malison2012, sec. 4.1] (Bellman-Ford with min-plus products); [Gerritsen2012, ch. 4] (G').
// Contract: as gprime_exchange (engine/index/gprime_exchange.h) for the same seeds, but only the
// labels of the tiles in `wanted` are returned (present tiles; absent ones are left out, as their
// labels are all kUnreached): bit-identical, the fixed point being the unique shortest distances.
// Memory: host: the in-edges (B x kGPrimeInEdges x 8 bytes per present tile) and 9 x 8 bytes per
// tile; CPU: 3 x kb x B x 8 bytes per present tile (label, pending, out) and the caller's
// IndexTileCache; CUDA: GPrimeRoundsCuda::device_bytes on the GPU (every matrix resident) and, while
// uploading, gprime_rounds_load_plan's host bytes. The caller reserves both.
// Loading (CUDA): every present tile's record read, checked and decoded by `threads` threads into
// page-locked chunks, copied to the GPU asynchronously in tile order while the next chunks are read
// (engine/index/index_loader.h); the same matrices as one read_tile after another.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/progress.h"
#include "engine/index/gprime_exchange.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/worker_pool.h"
#include "kernels/index/gprime_rounds.h"

namespace terrazo {

// Host bytes of GPrimeRounds for `tiles` present tiles (tile side t) and batches of kb sources on
// the CPU (kb = 0: the CUDA twin, whose labels live on the GPU).
std::uint64_t gprime_rounds_host_bytes(std::uint32_t t, std::uint64_t tiles, std::uint64_t grid_tiles, std::uint64_t kb);

// The CUDA load's staging: chunks of about 4 MiB of matrices (one tile at least), two slots per
// thread; host_bytes = slots x chunk x (B^2 + B) x 8 (the page-locked matrices and their rings).
struct GPrimeLoadPlan {
  std::uint64_t chunk = 1;
  unsigned slots = 2;
  std::uint64_t host_bytes = 0;
};
GPrimeLoadPlan gprime_rounds_load_plan(std::uint32_t t, unsigned threads);

// The index built on the GPU straight into the rounds' memory (the second constructor): its phases.
struct GPrimeBuildStats {
  std::uint64_t tiles = 0;  // matrices built
  double read_seconds = 0, matrix_seconds = 0, kernel_ms = 0;
};
// Tiles per launch of that build (tile_boundary_matrix_cuda_to_device): up to 1024, within an eighth
// of the GPU's memory.
std::uint64_t gprime_build_batch_tiles(std::uint32_t t, std::uint32_t leaf);

class GPrimeRounds {
 public:
  // device Cuda: GPrimeRoundsCuda for batches of up to kb_max sources, every present tile's matrix
  // uploaded now (read by `threads` threads, gprime_rounds_load_plan); Cpu: `threads` threads over
  // the tiles of a round, the matrices read through `cache`.
  // window: the rounds' label window in tile crossings (0: none, plain Bellman-Ford; else
  // window x the largest finite entry of the first present tile's matrix, kernels/index/gprime_rounds.h).
  GPrimeRounds(const IndexFile& index, IndexTileCache& cache, const GPrimeExchangeOptions& options, Device device,
               std::uint64_t kb_max, unsigned threads, double window = 0);
  // CUDA only, no index file: every tile of `input` (a slot per tile the input holds) gets its matrix
  // built on the GPU by the index build's kernels (tile_boundary_matrix_cuda_to_device, leaf `leaf`),
  // written straight into the rounds' device memory: the same matrices as an index of the same
  // weights gives, none written to a file or read back. The tiles are read on `threads` threads.
  // Progress phase "od-matrix: index on the GPU" (done = tiles).
  GPrimeRounds(const TileInput& input, const GPrimeExchangeOptions& options, std::uint32_t leaf, std::uint64_t kb_max,
               unsigned threads, double window, Progress& progress, GPrimeBuildStats* build);
  GPrimeLabels run(std::uint64_t kb, const std::vector<GPrimeSeed>& seeds, const std::vector<std::uint64_t>& wanted,
                   GPrimeStats* stats);
  double kernel_ms() const { return gpu_ ? gpu_->kernel_ms() : 0.0; }
  double select_ms() const { return gpu_ ? gpu_->select_ms() : 0.0; }
  double solve_ms() const { return gpu_ ? gpu_->solve_ms() : 0.0; }
  double push_ms() const { return gpu_ ? gpu_->push_ms() : 0.0; }
  std::uint64_t due_sources() const { return gpu_ ? gpu_->due_sources() : 0; }
  std::uint64_t uploads() const { return uploads_; }
  std::uint64_t max_active() const { return max_active_; }

 private:
  void link_neighbours(const TileGrid& grid);
  // The in-edges from the rings' values; on the GPU uploaded, on the CPU the label arrays sized.
  void link_rings(const TileGrid& grid, const std::vector<double>& rings, std::uint64_t kb_max);
  // run on the GPU: the seeded tiles' labels (`seed_labels`, a block of kb x B per tile of
  // `seeded`) seeded, the rounds run there, the wanted tiles' labels downloaded.
  GPrimeLabels run_gpu(std::uint64_t kb, const std::vector<std::int64_t>& seeded,
                       const std::vector<PathLength>& seed_labels, const std::vector<std::uint64_t>& wanted,
                       GPrimeStats& st);
  // run on the CPU: the rounds from the seeded tiles' labels until no tile is active; the labels
  // stay in label_.
  void run_cpu_rounds(std::uint64_t kb, const std::vector<std::int64_t>& seeded,
                      const std::vector<PathLength>& seed_labels, GPrimeStats& st);
  // One CPU round's solves of the active tiles `list` (dense ids), in chunks of at most the cache's
  // capacity (no get() of a chunk evicts another's matrix); each tile's next key into key_.
  void solve_active(const std::vector<std::uint64_t>& list, std::uint64_t block, std::uint32_t kb32,
                    PathLength threshold);

  IndexTileCache* cache_ = nullptr;  // CPU rounds: the matrices
  GPrimeExchangeOptions options_;
  unsigned threads_ = 1;
  WorkerPool pool_{threads_};  // the CPU rounds' and the set-up's threads, kept for every round
  std::uint32_t b_ = 0;
  std::vector<std::int64_t> dense_;       // per grid tile its dense id, -1 when absent
  std::vector<std::uint64_t> tile_of_;    // per dense id its grid tile
  std::vector<std::int64_t> neighbours_;  // per dense id the dense ids of the 3 x 3 around it
  std::vector<GPrimeInEdge> edges_;       // per dense id B x kGPrimeInEdges
  std::unique_ptr<GPrimeRoundsCuda> gpu_;
  std::vector<PathLength> label_, pending_, out_;  // CPU
  std::vector<std::uint8_t> active_;               // CPU
  std::vector<PathLength> key_;                    // CPU
  PathLength window_ = 0;
  std::uint64_t uploads_ = 0, max_active_ = 0;
};

}  // namespace terrazo
