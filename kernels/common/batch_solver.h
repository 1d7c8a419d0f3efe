// kernels/common/batch_solver.h: the one CPU/GPU dispatch of the pipelines: a solver of batches of
// independent items (tiles, merge graphs), made once per run for a Device by the pipeline's
// make_*_solver (kernels/mst/block_mst_solver.h, kernels/mst/graph_msf_solver.h,
// kernels/sssp/block_sssp_solver.h); the pipelines never branch on the device again.
//
// Up to slots() batches are in flight. submit(batch) fills the free slot through the batch's own
// fill function (the tiles read, the graphs packed) and starts solving it; wait() hands back the
// oldest submitted batch, finished, in submission order; its results stay valid until the slot is
// submitted again (the next-but-one submit on the GPU, the next one on the CPU).
//   Device::Cpu   slots() == 1: submit() solves at once with the CPU twin on the WorkerPool
//                 (kernels/common/worker_pool.h), one pool iteration per item or per run of items, the
//                 filling of an item in the same iteration as its solve, so one thread's reads
//                 overlap the others' solves; wait() returns the results (the single slot:
//                 CpuBatchSolver below).
//   Device::Cuda  slots() == 2: the streamed Cuda*BatchSolver (kernels/mst/block_mst_batch.h,
//                 kernels/sssp/block_sssp_batch.h, kernels/mst/graph_msf.h): submit() fills its
//                 pinned input (on the pool where the batch allows) and returns while the GPU solves,
//                 so the caller prepares the next batch meanwhile.
// Results are bit-identical across devices (the CPU twins' contracts). Memory: each make_*_solver
// reserves from the MemoryBudget what its slots hold, under the names its header lists.
//
//   auto solver = make_..._solver(device, options, pool, budget);
//   for (each batch) {
//     while (solver->pending() == solver->slots()) consume(solver->wait());
//     solver->submit(batch);
//   }
//   while (solver->pending()) consume(solver->wait());
//   // or, one batch at a time: consume(solver->solve(batch));
#pragma once
#include <cstddef>
#include <string>

#include "kernels/common/error.h"

namespace terrazo {

enum class Device { Cpu, Cuda };

// Batch: what one submit() solves and how its slot is filled; Solved: a finished batch's results.
template <class Batch, class Solved>
class BatchSolver {
 public:
  virtual ~BatchSolver() = default;
  virtual Device device() const = 0;
  virtual std::size_t slots() const = 0;    // batches in flight at most
  virtual std::size_t pending() const = 0;  // submitted, not yet waited for (0..slots())
  // Fills the free slot from `batch` and starts it; throws terrazo::Error when no slot is free.
  virtual void submit(const Batch& batch) = 0;
  virtual const Solved& wait() = 0;  // the oldest submitted batch, finished
  // submit + wait, with nothing else pending.
  const Solved& solve(const Batch& batch) {
    submit(batch);
    return wait();
  }
};

// The CPU side of a family's solver interface (Interface: a BatchSolver<Batch, Solved> with the
// family's own queries): one slot; submit() solves the batch at once through solve_now(), which
// fills solved_, and wait() hands solved_ back. `owner` names the solver in the internal errors.
template <class Interface, class Batch, class Solved>
class CpuBatchSolver : public Interface {
 public:
  explicit CpuBatchSolver(const char* owner) : owner_(owner) {}
  Device device() const override { return Device::Cpu; }
  std::size_t slots() const override { return 1; }
  std::size_t pending() const override { return pending_ ? 1 : 0; }
  void submit(const Batch& batch) override {
    if (pending_) throw Error(std::string("internal error: ") + owner_ + " has no free slot");
    solve_now(batch);
    pending_ = true;
  }
  const Solved& wait() override {
    if (!pending_) throw Error(std::string("internal error: ") + owner_ + " has no batch to wait for");
    pending_ = false;
    return solved_;
  }

 protected:
  virtual void solve_now(const Batch& batch) = 0;  // solves `batch` into solved_
  Solved solved_;

 private:
  const char* owner_;
  bool pending_ = false;
};

}  // namespace terrazo
