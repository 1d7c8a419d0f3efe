// kernels/clump/label_tile_solver.cpp: make_clump_tile_solver, the CPU and CUDA per-tile labellers
// of clump (kernels/clump/label_tile_solver.h).
#include "kernels/clump/label_tile_solver.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/union_find.h"
#include "kernels/clump/label_tile.h"

namespace terrazo {
namespace {

// label_tile_cpu, one pool iteration per tile (read, label).
class CpuClumpTileSolver : public CpuBatchSolver<ClumpTileBatchSolver, ClumpTileBatch, ClumpTileSolved> {
 public:
  CpuClumpTileSolver(const ClumpTileSolverOptions& options, WorkerPool& pool, MemoryBudget& budget)
      : CpuBatchSolver("the CPU clump tile solver"), options_(options), pool_(pool), cells_(static_cast<std::uint64_t>(options.t) * options.t) {
    batch_ = pool.threads();
    if (options.max_tiles) batch_ = std::min<std::uint64_t>(batch_, options.max_tiles);
    batch_ = std::max<std::uint64_t>(batch_, 1);
    reservation_ = budget.reserve(batch_ * kClumpCpuSolverCellBytes * cells_, "clump tile solver");
    keys_.resize(batch_ * cells_);
    labels_.resize(batch_ * cells_);
    regions_.resize(batch_);
    scratch_.resize(batch_);
  }
  std::uint64_t batch_tiles() const override { return batch_; }

 private:
  void solve_now(const ClumpTileBatch& batch) override {
    if (batch.tiles > batch_) throw Error("internal error: a tile batch exceeds the CPU clump tile solver's slot");
    pool_.run(batch.tiles, [&](std::uint64_t i) {
      double* k = keys_.data() + i * cells_;
      batch.read(i, k);
      regions_[i] = label_tile_cpu(k, options_.t, options_.connectivity, labels_.data() + i * cells_, scratch_[i]);
    });
    solved_.tiles = batch.tiles;
    solved_.keys = keys_.data();
    solved_.key_code = ClumpKeyCode::Float64;
    solved_.labels = labels_.data();
    solved_.regions = regions_.data();
  }

  ClumpTileSolverOptions options_;
  WorkerPool& pool_;
  std::uint64_t cells_, batch_ = 0;
  MemoryBudget::Reservation reservation_;
  std::vector<double> keys_;
  std::vector<std::uint32_t> labels_, regions_;
  std::vector<UnionFind> scratch_;
};

// CudaClumpBatchSolver: tiles read on the pool straight into the free slot's pinned keys (doubles),
// or into a thread's scratch and coded from there (ClumpKeyCode).
class CudaClumpTileSolver : public ClumpTileBatchSolver {
 public:
  CudaClumpTileSolver(const ClumpTileSolverOptions& options, WorkerPool& pool, MemoryBudget& budget)
      : pool_(pool), cells_(static_cast<std::uint64_t>(options.t) * options.t),
        solver_(options.t, options.connectivity, options.key_code, batch_limit(options, budget), options.gpu_memory_bytes),
        pinned_(budget.reserve(solver_.pinned_bytes(), "clump GPU pinned buffers")) {
    if (options.key_code != ClumpKeyCode::Float64) {
      scratch_reservation_ = budget.reserve(pool.threads() * cells_ * sizeof(double), "clump GPU key scratch");
      scratch_.resize(pool.threads());
      for (unsigned i = 0; i < pool.threads(); ++i) free_scratch_.push_back(i);
    }
  }
  Device device() const override { return Device::Cuda; }
  std::size_t slots() const override { return 2; }
  std::size_t pending() const override { return solver_.pending(); }
  std::uint64_t batch_tiles() const override { return solver_.batch_tiles(); }

  void submit(const ClumpTileBatch& batch) override {
    if (batch.tiles > solver_.batch_tiles()) throw Error("internal error: a tile batch exceeds the GPU clump solver's slot");
    void* keys = solver_.keys();
    const ClumpKeyCode code = solver_.key_code();
    if (code == ClumpKeyCode::Float64) {
      pool_.run(batch.tiles, [&](std::uint64_t i) { batch.read(i, static_cast<double*>(keys) + i * cells_); });
    } else {
      const std::size_t bytes = clump_key_bytes(code);
      pool_.run(batch.tiles, [&](std::uint64_t i) {
        ScratchLease lease(*this);
        batch.read(i, lease.cells);
        encode_clump_keys(code, lease.cells, cells_, static_cast<unsigned char*>(keys) + i * cells_ * bytes);
      });
    }
    solver_.submit(batch.tiles, batch.summaries_suffice);
  }
  const ClumpTileSolved& wait() override {
    const CudaClumpBatchSolver::Batch& b = solver_.wait();
    solved_.tiles = b.tiles;
    solved_.keys = b.keys;
    solved_.labels = b.labels;
    solved_.summaries = b.summaries;
    solved_.regions = b.regions;
    solved_.key_code = solver_.key_code();
    solved_.device_ms = b.total_ms;
    return solved_;
  }

 private:
  // Pinned host bytes per tile in flight: keys 8 t^2 + labels 4 t^2, two slots. At most 256 tiles a
  // slot (400 MB pinned at t = 256): pinning is slow, and at 1.07 G cells on the H200 slots of 1,024
  // tiles (1.6 GB) made the run 0.5-0.7 s longer (3.71-3.89 s against 3.03-3.33 s, peak RSS 2.9 GB
  // against 1.7 GB) with the same tile-labels phase (0.58-0.65 s; docs/benchmarks.md).
  static std::uint64_t batch_limit(const ClumpTileSolverOptions& options, MemoryBudget& budget) {
    const std::uint64_t per_tile =
        2 * ((clump_key_bytes(options.key_code) + 4) * options.t * options.t + 4 * ClumpSummaryLayout{options.t}.words()) + 8;
    std::uint64_t limit = std::max<std::uint64_t>(1, std::min<std::uint64_t>(256, budget.available() / 4 / per_tile));
    if (options.max_tiles) limit = std::min(limit, options.max_tiles);
    return limit;
  }

  // One tile's doubles before coding, one buffer per pool thread, lent for one read.
  struct ScratchLease {
    explicit ScratchLease(CudaClumpTileSolver& owner) : owner_(owner) {
      {
        std::lock_guard<std::mutex> lock(owner_.scratch_mutex_);
        index_ = owner_.free_scratch_.back();
        owner_.free_scratch_.pop_back();
      }
      std::vector<double>& buffer = owner_.scratch_[index_];
      buffer.resize(owner_.cells_);
      cells = buffer.data();
    }
    ~ScratchLease() {
      std::lock_guard<std::mutex> lock(owner_.scratch_mutex_);
      owner_.free_scratch_.push_back(index_);
    }
    ScratchLease(const ScratchLease&) = delete;
    ScratchLease& operator=(const ScratchLease&) = delete;
    double* cells = nullptr;

   private:
    CudaClumpTileSolver& owner_;
    unsigned index_ = 0;
  };

  WorkerPool& pool_;
  std::uint64_t cells_;
  CudaClumpBatchSolver solver_;
  MemoryBudget::Reservation pinned_;
  MemoryBudget::Reservation scratch_reservation_;
  std::vector<std::vector<double>> scratch_;  // pool.threads() buffers (coded keys only)
  std::vector<unsigned> free_scratch_;
  std::mutex scratch_mutex_;
  ClumpTileSolved solved_;
};

}  // namespace

std::unique_ptr<ClumpTileBatchSolver> make_clump_tile_solver(Device device, const ClumpTileSolverOptions& options,
                                                             WorkerPool& pool, MemoryBudget& budget) {
  if (device == Device::Cuda) return std::make_unique<CudaClumpTileSolver>(options, pool, budget);
  return std::make_unique<CpuClumpTileSolver>(options, pool, budget);
}

}  // namespace terrazo
