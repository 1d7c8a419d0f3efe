// kernels/mst/graph_msf_solver.h: batches of merge graphs (kernels/mst/graph_msf.h) as a BatchSolver
// (kernels/common/batch_solver.h): graph_msf_cpu on the WorkerPool, or the streamed
// CudaGraphMsfBatchSolver (two slots). Used by the level merge (engine/mst/phase2_merge_levels.h).
//
// A batch is up to graph_capacity() graphs with up to edge_capacity() edges and vertex_capacity()
// vertices in all; its pack function fills the free slot (edges, boundary bytes, spans with offsets
// relative to the slot) once, on the calling thread (it may use the pool itself).
// CPU: submit() solves at once, the graphs split into runs of about equal edge counts, one pool
// iteration each.
// Memory (reserved by make_graph_msf_solver, held as long as the solver):
//   CPU   "MST merge batch slot"        capacity x kCpuGraphSlotBytesPerEdge
//   CUDA  "MST merge GPU pinned slots"  the solver's pinned_bytes()
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "kernels/common/memory_budget.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/batch_solver.h"
#include "kernels/mst/graph_msf.h"

namespace terrazo {

// CPU slot arrays per edge of capacity: edge, in_forest byte, summary edge, two vertices' boundary
// bytes, a span and a summary count (at most one graph per edge: graphs without edges are not sent).
constexpr std::uint64_t kCpuGraphSlotBytesPerEdge =
    sizeof(GraphEdge) + 1 + sizeof(GraphSummaryEdge) + 2 + sizeof(GraphSpan) + sizeof(std::uint32_t);

struct GraphMsfSlot {
  GraphEdge* edges = nullptr;
  std::uint8_t* boundary = nullptr;
  GraphSpan* spans = nullptr;
};

struct GraphMsfBatch {
  std::uint64_t graphs = 0, edges = 0, vertices = 0;
  std::function<void(const GraphMsfSlot& slot)> pack;
};

struct GraphMsfSolved {
  const std::uint8_t* in_forest = nullptr;       // per edge (slot-relative index)
  const GraphSummaryEdge* summary = nullptr;     // graph g's summary at summary + spans[g].first_edge
  const std::uint32_t* summary_count = nullptr;  // per graph
  double kernel_ms = 0;                          // CUDA: GPU time of the kernels (0 on the CPU)
};

class GraphMsfBatchSolver : public BatchSolver<GraphMsfBatch, GraphMsfSolved> {
 public:
  virtual std::uint64_t edge_capacity() const = 0;    // per slot
  virtual std::uint64_t vertex_capacity() const = 0;  // per slot
  virtual std::uint64_t graph_capacity() const = 0;   // per slot
};

// `capacity`: edges per slot (CPU: exactly; CUDA: at most, also bounded by gpu_memory_bytes).
// Throws terrazo::Error (CUDA) when built without CUDA or on a CUDA failure.
std::unique_ptr<GraphMsfBatchSolver> make_graph_msf_solver(Device device, std::uint64_t capacity,
                                                           std::uint64_t gpu_memory_bytes, WorkerPool& pool,
                                                           MemoryBudget& budget);

}  // namespace terrazo
