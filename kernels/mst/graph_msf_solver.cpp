// kernels/mst/graph_msf_solver.cpp: the CPU and CUDA merge-graph batch solvers (kernels/mst/graph_msf_solver.h).
#include "kernels/mst/graph_msf_solver.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

// graph_msf_cpu over one slot, the graphs split into runs of about equal edge counts, one pool
// iteration each; submit() solves at once.
class CpuGraphMsfSolver : public CpuBatchSolver<GraphMsfBatchSolver, GraphMsfBatch, GraphMsfSolved> {
 public:
  CpuGraphMsfSolver(std::uint64_t capacity, MemoryBudget& budget, WorkerPool& pool)
      : CpuBatchSolver("the CPU merge batch solver"), pool_(pool), capacity_(capacity),
        reservation_(budget.reserve(capacity * kCpuGraphSlotBytesPerEdge, "MST merge batch slot")),
        edges_(capacity), boundary_(2 * capacity), spans_(capacity), in_forest_(capacity), summary_(capacity),
        summary_count_(capacity) {}
  std::uint64_t edge_capacity() const override { return capacity_; }
  std::uint64_t vertex_capacity() const override { return 2 * capacity_; }
  std::uint64_t graph_capacity() const override { return capacity_; }

 private:
  void solve_now(const GraphMsfBatch& batch) override {
    batch.pack(GraphMsfSlot{edges_.data(), boundary_.data(), spans_.data()});
    const std::uint64_t graphs = batch.graphs, edges = batch.edges;
    const std::uint64_t runs_wanted = 4ull * pool_.threads();
    const std::uint64_t per_run = std::max<std::uint64_t>(1, (edges + runs_wanted - 1) / runs_wanted);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;  // first graph, graph count
    for (std::uint64_t g = 0; g < graphs;) {
      std::uint64_t end = g, run_edges = 0;
      while (end < graphs && (end == g || run_edges + spans_[end].edges <= per_run)) run_edges += spans_[end++].edges;
      runs.push_back({g, end - g});
      g = end;
    }
    pool_.run(runs.size(), [&](std::uint64_t i) {
      graph_msf_cpu(edges_.data(), boundary_.data(), spans_.data() + runs[i].first, runs[i].second, in_forest_.data(),
                    summary_.data(), summary_count_.data() + runs[i].first);
    });
    solved_ = GraphMsfSolved{in_forest_.data(), summary_.data(), summary_count_.data(), 0.0};
  }

  WorkerPool& pool_;
  std::uint64_t capacity_;
  MemoryBudget::Reservation reservation_;
  std::vector<GraphEdge> edges_;
  std::vector<std::uint8_t> boundary_;
  std::vector<GraphSpan> spans_;
  std::vector<std::uint8_t> in_forest_;
  std::vector<GraphSummaryEdge> summary_;
  std::vector<std::uint32_t> summary_count_;
};

// CudaGraphMsfBatchSolver (kernels/mst/graph_msf.h), its pinned slots reserved from the budget.
class CudaGraphMsfSolver : public GraphMsfBatchSolver {
 public:
  CudaGraphMsfSolver(std::uint64_t capacity, std::uint64_t gpu_memory_bytes, MemoryBudget& budget)
      : solver_(options(capacity, gpu_memory_bytes)),
        reservation_(budget.reserve(solver_.pinned_bytes(), "MST merge GPU pinned slots")) {}
  Device device() const override { return Device::Cuda; }
  std::uint64_t edge_capacity() const override { return solver_.edge_capacity(); }
  std::uint64_t vertex_capacity() const override { return solver_.vertex_capacity(); }
  std::uint64_t graph_capacity() const override { return solver_.graph_capacity(); }
  std::size_t slots() const override { return 2; }
  std::size_t pending() const override { return solver_.pending(); }
  void submit(const GraphMsfBatch& batch) override {
    batch.pack(GraphMsfSlot{solver_.edges(), solver_.boundary(), solver_.graphs()});
    solver_.submit(batch.graphs, batch.edges, batch.vertices);
  }
  const GraphMsfSolved& wait() override {
    const CudaGraphMsfBatchSolver::Batch& b = solver_.wait();
    solved_ = GraphMsfSolved{b.in_forest, b.summary, b.summary_count, b.kernel_ms};
    return solved_;
  }

 private:
  static GraphBatchOptions options(std::uint64_t capacity, std::uint64_t gpu_memory_bytes) {
    GraphBatchOptions o;
    o.gpu_memory_bytes = gpu_memory_bytes;
    o.max_edges = capacity;
    return o;
  }
  CudaGraphMsfBatchSolver solver_;
  MemoryBudget::Reservation reservation_;
  GraphMsfSolved solved_;
};

}  // namespace

std::unique_ptr<GraphMsfBatchSolver> make_graph_msf_solver(Device device, std::uint64_t capacity,
                                                           std::uint64_t gpu_memory_bytes, WorkerPool& pool,
                                                           MemoryBudget& budget) {
  if (device == Device::Cuda) return std::make_unique<CudaGraphMsfSolver>(capacity, gpu_memory_bytes, budget);
  return std::make_unique<CpuGraphMsfSolver>(capacity, budget, pool);
}

}  // namespace terrazo
