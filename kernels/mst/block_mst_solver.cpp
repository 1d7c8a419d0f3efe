// kernels/mst/block_mst_solver.cpp: the CPU and CUDA phase-1 tile solvers (kernels/mst/block_mst_solver.h).
#include "kernels/mst/block_mst_solver.h"

#include <algorithm>
#include <deque>

#include "kernels/common/error.h"
#include "kernels/common/huge_buffer.h"
#include "kernels/mst/block_mst_batch.h"
#include "kernels/mst/block_mst.h"

namespace terrazo {
namespace {

// Scratch of the CPU block solvers per thread (kernels/mst/block_mst_cpu.cpp: 72 t^2, block_reduce_cpu:
// 6 t^2), rounded up.
constexpr std::uint64_t kSolverScratchPerCell = 80;

// block_mst_cpu + block_reduce_cpu, one pool iteration per tile (read, solve, reduce).
class CpuMstTileSolver : public CpuBatchSolver<MstTileBatchSolver, MstTileBatch, MstTileSolved> {
 public:
  CpuMstTileSolver(const MstTileSolverOptions& options, WorkerPool& pool, MemoryBudget& budget)
      : CpuBatchSolver("the CPU MST tile solver"), options_(options), pool_(pool), cells_(static_cast<std::uint64_t>(options.t) * options.t) {
    const std::uint32_t t = options.t;
    scratch_ = budget.reserve(pool.threads() * kSolverScratchPerCell * cells_, "MST block solver scratch");
    const std::uint64_t per_tile = cells_ * (sizeof(double) + 1) + 64 * t * sizeof(double);
    batch_ = std::max<std::uint64_t>(1, budget.available() / 8 / per_tile);
    batch_ = std::min<std::uint64_t>(batch_, 4 * pool.threads());
    batch_ = std::min<std::uint64_t>(batch_, options.max_tiles);
    batches_ = budget.reserve(2 * batch_ * per_tile, "MST tile batches");
    values_.allocate(batch_ * cells_);  // every tile read in full, every bit set by block_mst_cpu
    bits_.allocate(batch_ * cells_);
    summaries_.resize(batch_);
  }
  std::uint64_t batch_tiles() const override { return batch_; }

 private:
  void solve_now(const MstTileBatch& batch) override {
    if (batch.tiles > batch_) throw Error("internal error: a tile batch exceeds the CPU tile solver's slot");
    std::vector<char> overflow(batch.tiles, 0);
    pool_.run(batch.tiles, [&](std::uint64_t i) {
      double* v = values_.data() + i * cells_;
      std::uint8_t* bits = bits_.data() + i * cells_;
      batch.read(i, v);
      bool tile_overflow = false;
      block_mst_cpu(v, options_.t, options_.params, options_.connectivity, bits, &tile_overflow);
      summaries_[i].clear();
      if (tile_overflow) {
        overflow[i] = 1;
        return;
      }
      block_reduce_cpu(bits, v, options_.t, options_.params, options_.connectivity, &summaries_[i]);
    });
    solved_.tiles = batch.tiles;
    solved_.values = values_.data();
    solved_.forest_bits = bits_.data();
    solved_.summary.resize(batch.tiles);
    solved_.summary_count.resize(batch.tiles);
    solved_.overflow = false;
    for (std::uint64_t i = 0; i < batch.tiles; ++i) {
      solved_.summary[i] = summaries_[i].data();
      solved_.summary_count[i] = static_cast<std::uint32_t>(summaries_[i].size());
      solved_.overflow = solved_.overflow || overflow[i];
    }
  }

  MstTileSolverOptions options_;
  WorkerPool& pool_;
  std::uint64_t cells_, batch_ = 0;
  MemoryBudget::Reservation scratch_, batches_;
  HugeBuffer<double> values_;
  HugeBuffer<std::uint8_t> bits_;
  std::vector<std::vector<TileSummaryEdge>> summaries_;
};

// CudaMstBatchSolver: tiles read on the pool straight into the free slot's pinned input.
class CudaMstTileSolver : public MstTileBatchSolver {
 public:
  CudaMstTileSolver(const MstTileSolverOptions& options, WorkerPool& pool, MemoryBudget& budget)
      : pool_(pool), cells_(static_cast<std::uint64_t>(options.t) * options.t),
        solver_(batch_options(options, budget)),
        pinned_(budget.reserve(solver_.pinned_bytes(), "MST GPU pinned buffers")),
        results_(budget.reserve(2 * solver_.batch_tiles() * (cells_ + options.caller_summary_bytes_per_tile),
                                "MST GPU batch results")) {}
  Device device() const override { return Device::Cuda; }
  std::size_t slots() const override { return 2; }
  std::size_t pending() const override { return solver_.pending(); }
  std::uint64_t batch_tiles() const override { return solver_.batch_tiles(); }

  void submit(const MstTileBatch& batch) override {
    double* input = solver_.input();
    pool_.run(batch.tiles, [&](std::uint64_t i) { batch.read(i, input + i * cells_); });
    solver_.submit(batch.tiles);
    inputs_.push_back(input);
  }
  const MstTileSolved& wait() override {
    const CudaMstBatchSolver::Batch& b = solver_.wait();
    solved_.tiles = b.tiles;
    solved_.values = inputs_.front();
    inputs_.pop_front();
    solved_.forest_bits = b.forest_bits;
    solved_.summary.resize(b.tiles);
    solved_.summary_count.resize(b.tiles);
    for (std::uint64_t i = 0; i < b.tiles; ++i) {
      solved_.summary[i] = b.summary(i);
      solved_.summary_count[i] = b.summary_count(i);
    }
    solved_.overflow = b.overflow;
    solved_.kernel_ms = b.kernel_ms;
    return solved_;
  }

 private:
  // Host memory per tile in flight: pinned input and bits, the bits copy, the caller's summaries.
  static MstBatchOptions batch_options(const MstTileSolverOptions& options, MemoryBudget& budget) {
    const std::uint64_t t = options.t, cells = t * t;
    MstBatchOptions o;
    o.t = options.t;
    o.params = options.params;
    o.connectivity = options.connectivity;
    o.reduce = true;
    o.gpu_memory_bytes = options.gpu_memory_bytes;
    const std::uint64_t host_per_tile = cells * (sizeof(double) + 2) + kMaxSummaryEdgesPerSide * t * sizeof(TileSummaryEdge) +
                                        options.caller_summary_bytes_per_tile;
    o.max_batch_tiles =
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(1024, budget.available() / 4 / (2 * host_per_tile)));
    return o;
  }

  WorkerPool& pool_;
  std::uint64_t cells_;
  CudaMstBatchSolver solver_;
  MemoryBudget::Reservation pinned_, results_;
  std::deque<const double*> inputs_;  // the submitted slots' inputs, oldest first
  MstTileSolved solved_;
};

}  // namespace

std::unique_ptr<MstTileBatchSolver> make_mst_tile_solver(Device device, const MstTileSolverOptions& options,
                                                         WorkerPool& pool, MemoryBudget& budget) {
  if (device == Device::Cuda) return std::make_unique<CudaMstTileSolver>(options, pool, budget);
  return std::make_unique<CpuMstTileSolver>(options, pool, budget);
}

}  // namespace terrazo
