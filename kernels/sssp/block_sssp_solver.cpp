// kernels/sssp/block_sssp_solver.cpp: the CPU and CUDA tile solvers of the exchange
// (kernels/sssp/block_sssp_solver.h).
#include "kernels/sssp/block_sssp_solver.h"
#include "kernels/sssp/knight.h"

#include <algorithm>
#include <cstring>

#include "kernels/common/error.h"
#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp.h"

namespace terrazo {
namespace {

class CpuSsspTileSolver : public CpuBatchSolver<SsspTileBatchSolver, SsspTileBatch, SsspTileSolved> {
 public:
  CpuSsspTileSolver(const SsspTileSolverOptions& options, WorkerPool& pool)
      : CpuBatchSolver("the CPU SSSP tile solver"), options_(options), pool_(pool) {
    Weight step = 0;
    bfs_ = options.frontier_bfs && !options.labelled && block_bfs_step(options.params, &step);
  }
  std::uint64_t batch_tiles() const override { return options_.batch; }
  std::uint64_t reserved_bytes() const override { return 0; }

 private:
  void solve_now(const SsspTileBatch& batch) override {
    const std::size_t n = batch.tiles.size();
    std::vector<std::uint64_t> improved(n, 0);
    std::vector<char> overflows(n, 0);
    pool_.run(n, [&](std::uint64_t k) {
      const SsspTile& tile = batch.tiles[k];
      bool overflow = false;
      SsspLabels labels;
      labels.interior_consistent = tile.interior_consistent;
      labels.source = tile.source;
      labels.hops = tile.hops;
      WeightParams params = options_.params;
      params.steps.row0 = tile.row0;
      if (bfs_ && !tile.source && !tile.hops) {
        improved[k] = block_bfs_cpu(tile.values, options_.t, params, options_.connectivity, options_.max_cost, tile.dist,
                                    tile.changed);
        return;
      }
      improved[k] = block_sssp_cpu_labelled(tile.values, options_.t, params, options_.connectivity,
                                            options_.max_cost, tile.dist, labels, tile.changed, &overflow);
      overflows[k] = overflow ? 1 : 0;
    });
    solved_ = SsspTileSolved();
    solved_.tiles = n;
    for (std::size_t k = 0; k < n; ++k) {
      solved_.changed_cells += improved[k];
      solved_.overflow = solved_.overflow || overflows[k];
    }
  }

  SsspTileSolverOptions options_;
  WorkerPool& pool_;
  bool bfs_ = false;  // the unit model's frontier BFS twin
};

class CudaSsspTileSolver : public SsspTileBatchSolver {
 public:
  CudaSsspTileSolver(const SsspTileSolverOptions& options, MemoryBudget& budget)
      : halo_cells_(static_cast<std::uint64_t>(options.t + 2 * halo_width(options.connectivity)) *
                    (options.t + 2 * halo_width(options.connectivity))),
        cells_(static_cast<std::uint64_t>(options.t) * options.t),
        pinned_(reserve_pinned(options, budget)),
        solver_(batch_options(options), options.max_cost) {}
  Device device() const override { return Device::Cuda; }
  std::size_t slots() const override { return 2; }
  std::size_t pending() const override { return solver_.pending(); }
  std::uint64_t batch_tiles() const override { return solver_.batch_tiles(); }
  std::uint64_t reserved_bytes() const override { return pinned_.bytes(); }
  void submit(const SsspTileBatch& batch) override {
    double* values = solver_.values();
    PathLength* dist = solver_.dist();
    std::int64_t* row0 = solver_.row0();
    for (std::size_t k = 0; k < batch.tiles.size(); ++k) {
      row0[k] = batch.tiles[k].row0;
      std::memcpy(values + k * halo_cells_, batch.tiles[k].values, halo_cells_ * sizeof(double));
      std::memcpy(dist + k * halo_cells_, batch.tiles[k].dist, halo_cells_ * sizeof(PathLength));
    }
    solver_.submit(batch.tiles.size());
    submitted_.push_back(batch.tiles);
  }
  const SsspTileSolved& wait() override {
    const CudaSsspBatchSolver::Batch& solved = solver_.wait();
    const std::vector<SsspTile> tiles = std::move(submitted_.front());
    submitted_.erase(submitted_.begin());
    for (std::size_t k = 0; k < tiles.size(); ++k) {
      std::memcpy(tiles[k].dist, solved.dist + k * halo_cells_, halo_cells_ * sizeof(PathLength));
      std::memcpy(tiles[k].changed, solved.changed + k * cells_, cells_);
    }
    solved_ = SsspTileSolved();
    solved_.tiles = tiles.size();
    solved_.changed_cells = solved.changed_cells;
    solved_.overflow = solved.overflow;
    solved_.kernel_ms = solved.kernel_ms;
    return solved_;
  }

 private:
  static MemoryBudget::Reservation reserve_pinned(const SsspTileSolverOptions& options, MemoryBudget& budget) {
    if (options.labelled)
      throw Error("internal: the CUDA block solver computes distances only; labelled runs use the CPU solver");
    const std::uint64_t halo = static_cast<std::uint64_t>(options.t + 2 * halo_width(options.connectivity)) *
                               (options.t + 2 * halo_width(options.connectivity));
    const std::uint64_t cells = static_cast<std::uint64_t>(options.t) * options.t;
    return budget.reserve(2ull * options.batch * (halo * 16 + cells), "sssp GPU pinned batch buffers");
  }
  static SsspBatchOptions batch_options(const SsspTileSolverOptions& options) {
    SsspBatchOptions gpu;
    gpu.t = options.t;
    gpu.params = options.params;
    gpu.connectivity = options.connectivity;
    gpu.gpu_memory_bytes = options.gpu_memory_bytes;
    gpu.max_batch_tiles = options.batch;
    gpu.sweep = options.frontier_bfs ? SsspSweep::FrontierBfs : SsspSweep::Auto;
    return gpu;
  }

  std::uint64_t halo_cells_, cells_;
  MemoryBudget::Reservation pinned_;
  CudaSsspBatchSolver solver_;
  std::vector<std::vector<SsspTile>> submitted_;  // the submitted batches' tiles, oldest first
  SsspTileSolved solved_;
};

}  // namespace

std::unique_ptr<SsspTileBatchSolver> make_sssp_tile_solver(Device device, const SsspTileSolverOptions& options,
                                                           WorkerPool& pool, MemoryBudget& budget) {
  if (device == Device::Cuda) return std::make_unique<CudaSsspTileSolver>(options, budget);
  return std::make_unique<CpuSsspTileSolver>(options, pool);
}

}  // namespace terrazo
