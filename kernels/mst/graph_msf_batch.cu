// kernels/mst/graph_msf_batch.cu: the host side of the CUDA batched MSF + reduction (contract:
// kernels/mst/graph_msf.h; kernel and launch: kernels/mst/graph_msf.cu): checking and planning a
// batch, device buffers, copies in and out, the one-shot graph_msf_cuda and the streamed
// CudaGraphMsfBatchSolver (the two-slot loop of kernels/common/two_slot_batch.cuh). Every CUDA
// call is checked (TERRAZO_CUDA_CHECK); kernel failures surface as the status the kernel writes,
// turned into terrazo::Error after the batch's copies are done.
//
// Device memory of one slot (the plain formula of device_bytes_for below):
//   per edge   24 (GraphEdge) + 1 (in_forest) + 12 (summary slot) + 8 (two edge lists, reused as the
//              incidence entries) + 1/8 (removed bit)                    = 45.125 bytes
//   per vertex 1 (boundary) + 28 (best_id 8, parent, best_w, chosen, other, choosing-root list 4
//              each; reused by the reduction)                           = 29 bytes
//   per graph  24 (GraphSpan) + 8 (tier order) + 4 (summary count)        = 36 bytes
//   plus 16 bytes of status and one padding word of removed bits.
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/block_solvers.cuh"
#include "kernels/common/two_slot_batch.cuh"
#include "kernels/mst/graph_msf_launch.cuh"

namespace terrazo {
namespace cuda {
namespace {

// Checks the spans against the batch (edge_count edges, vertex_count vertices), against each other
// (edge spans and vertex spans must not overlap: the kernel's scratch is indexed by them) and the
// per-graph limit; fills order[graph_count] and the plan. Throws terrazo::Error naming the graph.
GraphMsfPlan plan_graphs(const char* what, const GraphSpan* spans, std::uint64_t graph_count,
                         std::uint64_t edge_count, std::uint64_t vertex_count, std::uint64_t* order) {
  std::array<std::uint64_t, kGraphTiers> sizes{};
  for (std::uint64_t g = 0; g < graph_count; ++g) {
    const GraphSpan& s = spans[g];
    if (s.first_edge > edge_count || s.edges > edge_count - s.first_edge) {
      throw Error(std::string(what) + ": graph " + std::to_string(g) + " has edges [" + std::to_string(s.first_edge) +
                  ", " + std::to_string(s.first_edge + s.edges) + ") outside the batch's " +
                  std::to_string(edge_count) + " edges");
    }
    if (s.first_vertex > vertex_count || s.vertices > vertex_count - s.first_vertex) {
      throw Error(std::string(what) + ": graph " + std::to_string(g) + " has vertices [" +
                  std::to_string(s.first_vertex) + ", " + std::to_string(s.first_vertex + s.vertices) +
                  ") outside the batch's " + std::to_string(vertex_count) + " vertices");
    }
    if (s.edges > kMaxGraphEdges) {
      throw Error(std::string(what) + ": graph " + std::to_string(g) + " has " + std::to_string(s.edges) +
                  " edges, more than the limit of " + std::to_string(kMaxGraphEdges) + " per graph");
    }
    ++sizes[graph_tier_of(s.edges)];
  }
  auto check_disjoint = [&](bool edges_not_vertices) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // (first, graph) of the non-empty spans
    for (std::uint64_t g = 0; g < graph_count; ++g) {
      const GraphSpan& s = spans[g];
      const std::uint64_t length = edges_not_vertices ? s.edges : s.vertices;
      if (length) ranges.emplace_back(edges_not_vertices ? s.first_edge : s.first_vertex, g);
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t k = 1; k < ranges.size(); ++k) {
      const GraphSpan& p = spans[ranges[k - 1].second];
      const std::uint64_t p_end = edges_not_vertices ? p.first_edge + p.edges : p.first_vertex + p.vertices;
      if (p_end > ranges[k].first) {
        throw Error(std::string(what) + ": the " + (edges_not_vertices ? "edge" : "vertex") + " spans of graphs " +
                    std::to_string(ranges[k - 1].second) + " and " + std::to_string(ranges[k].second) +
                    " overlap; every graph needs its own edges and vertices");
      }
    }
  };
  check_disjoint(true);
  check_disjoint(false);
  GraphMsfPlan plan;
  for (int k = 0; k < kGraphTiers; ++k) plan.begin[k + 1] = plan.begin[k] + sizes[k];
  std::array<std::uint64_t, kGraphTiers> fill{};
  for (int k = 0; k < kGraphTiers; ++k) fill[k] = plan.begin[k];
  for (std::uint64_t g = 0; g < graph_count; ++g) order[fill[graph_tier_of(spans[g].edges)]++] = g;
  return plan;
}

// Device bytes of a batch holding these capacities (the formula in the header comment).
std::uint64_t device_bytes_for(std::uint64_t edges, std::uint64_t vertices, std::uint64_t graphs) {
  return edges * (sizeof(GraphEdge) + 1 + sizeof(GraphSummaryEdge) + 8) + 4 * graph_removed_words(edges) +
         vertices * (1 + 8 + 5 * 4) + graphs * (sizeof(GraphSpan) + 8 + 4) + sizeof(GraphMsfStatus);
}

void throw_on_status(const char* what, const GraphMsfStatus& status) {
  if (status.flags == 0) return;
  const std::string graph = "graph " + std::to_string(status.graph) + " of the batch";
  if (status.flags & kGraphBadEdge) {
    throw Error(std::string(what) + ": " + graph + " has an edge with a == b or an end not below its vertex count");
  }
  if (status.flags & kGraphDuplicateKey) {
    throw Error(std::string(what) + ": " + graph +
                " has two edges with the same key (weight, id); keys must be distinct within a graph");
  }
  throw Error(std::string(what) + ": " + graph +
              " met a cycle, a broken forest path or no convergence (internal error)");
}

// Carves the device pointers of a batch out of its buffers.
struct GraphMsfBuffers {
  DeviceBuffer<GraphEdge> edges;
  DeviceBuffer<std::uint8_t> boundary;
  DeviceBuffer<GraphSpan> spans;
  DeviceBuffer<std::uint64_t> order;
  DeviceBuffer<std::uint8_t> in_forest;
  DeviceBuffer<GraphSummaryEdge> summary;
  DeviceBuffer<std::uint32_t> counts;
  DeviceBuffer<std::uint32_t> edge_scratch;
  DeviceBuffer<unsigned int> removed;
  DeviceBuffer<unsigned long long> best_id;
  DeviceBuffer<std::uint32_t> vertex_words;  // parent, best_w, chosen, other, roots
  DeviceBuffer<GraphMsfStatus> status;

  void allocate(std::uint64_t e, std::uint64_t v, std::uint64_t g) {
    edges.resize(e);
    boundary.resize(v);
    spans.resize(g);
    order.resize(g);
    in_forest.resize(e);
    summary.resize(e);
    counts.resize(g);
    edge_scratch.resize(2 * e);
    removed.resize(graph_removed_words(e));
    best_id.resize(v);
    vertex_words.resize(5 * v);
    status.resize(1);
  }

  GraphMsfDevice device(std::uint64_t vertex_capacity) const {
    GraphMsfDevice d;
    d.edges = edges.get();
    d.boundary = boundary.get();
    d.spans = spans.get();
    d.order = order.get();
    d.in_forest = in_forest.get();
    d.summary = summary.get();
    d.counts = counts.get();
    d.edge_scratch = edge_scratch.get();
    d.removed = removed.get();
    d.vertices.best_id = best_id.get();
    std::uint32_t* words = vertex_words.get();
    d.vertices.parent = words;
    d.vertices.best_w = words + vertex_capacity;
    d.vertices.chosen = words + 2 * vertex_capacity;
    d.vertices.other = words + 3 * vertex_capacity;
    d.vertices.roots = words + 4 * vertex_capacity;
    d.status = status.get();
    return d;
  }
};

}  // namespace
}  // namespace cuda

// ---- one shot ----------------------------------------------------------------------------------

void graph_msf_cuda(const GraphEdge* edges, const std::uint8_t* boundary, const GraphSpan* graphs,
                    std::uint64_t graph_count, std::uint8_t* in_forest, GraphSummaryEdge* summary,
                    std::uint32_t* summary_count) {
  const char* what = "graph_msf_cuda";
  cuda::require_cuda_device(what);
  if (graph_count == 0) return;
  // The batch is the union of the spans: [0, max end) edges and vertices, empty spans included (an
  // empty graph after the last edges, past a gap, starts beyond every non-empty span's end).
  std::uint64_t edge_count = 0, vertex_count = 0;
  for (std::uint64_t g = 0; g < graph_count; ++g) {
    const GraphSpan& s = graphs[g];
    if (s.first_edge > std::numeric_limits<std::uint64_t>::max() - s.edges ||
        s.first_vertex > std::numeric_limits<std::uint64_t>::max() - s.vertices) {
      throw Error(std::string(what) + ": graph " + std::to_string(g) + "'s span overflows 64 bits");
    }
    edge_count = std::max<std::uint64_t>(edge_count, s.first_edge + s.edges);
    vertex_count = std::max<std::uint64_t>(vertex_count, s.first_vertex + s.vertices);
  }
  std::vector<std::uint64_t> order(graph_count);
  const cuda::GraphMsfPlan plan = cuda::plan_graphs(what, graphs, graph_count, edge_count, vertex_count, order.data());
  cuda::GraphMsfBuffers buffers;
  buffers.allocate(edge_count, vertex_count, graph_count);
  cuda::GraphTierStreams tiers;
  const cuda::GraphMsfDevice d = buffers.device(vertex_count);
  TERRAZO_CUDA_CHECK(cudaMemcpy(buffers.edges.get(), edges, edge_count * sizeof(GraphEdge), cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(cudaMemcpy(buffers.boundary.get(), boundary, vertex_count, cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(cudaMemcpy(buffers.spans.get(), graphs, graph_count * sizeof(GraphSpan), cudaMemcpyHostToDevice));
  TERRAZO_CUDA_CHECK(
      cudaMemcpy(buffers.order.get(), order.data(), graph_count * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  cuda::launch_graph_msf(d, plan, edge_count, nullptr, tiers);
  cuda::GraphMsfStatus status{};
  TERRAZO_CUDA_CHECK(cudaMemcpy(&status, d.status, sizeof(status), cudaMemcpyDeviceToHost));
  cuda::throw_on_status(what, status);
  // Copy back only the spans' bytes: the caller's arrays may hold other data between them.
  std::vector<std::uint8_t> forest(edge_count);
  std::vector<GraphSummaryEdge> slots(edge_count);
  TERRAZO_CUDA_CHECK(cudaMemcpy(forest.data(), d.in_forest, edge_count, cudaMemcpyDeviceToHost));
  TERRAZO_CUDA_CHECK(
      cudaMemcpy(slots.data(), d.summary, edge_count * sizeof(GraphSummaryEdge), cudaMemcpyDeviceToHost));
  TERRAZO_CUDA_CHECK(
      cudaMemcpy(summary_count, d.counts, graph_count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (std::uint64_t g = 0; g < graph_count; ++g) {
    const GraphSpan& s = graphs[g];
    std::copy(forest.begin() + static_cast<std::ptrdiff_t>(s.first_edge),
              forest.begin() + static_cast<std::ptrdiff_t>(s.first_edge + s.edges), in_forest + s.first_edge);
    std::copy(slots.begin() + static_cast<std::ptrdiff_t>(s.first_edge),
              slots.begin() + static_cast<std::ptrdiff_t>(s.first_edge + summary_count[g]), summary + s.first_edge);
  }
}

// ---- streamed batches --------------------------------------------------------------------------

struct CudaGraphMsfBatchSolver::Impl {
  struct Slot : cuda::StreamedSlot {
    cuda::PinnedBuffer<GraphEdge> edges;
    cuda::PinnedBuffer<std::uint8_t> boundary;
    cuda::PinnedBuffer<GraphSpan> spans;
    cuda::PinnedBuffer<std::uint64_t> order;
    cuda::PinnedBuffer<std::uint8_t> in_forest;
    cuda::PinnedBuffer<GraphSummaryEdge> summary;
    cuda::PinnedBuffer<std::uint32_t> counts;
    cuda::PinnedBuffer<cuda::GraphMsfStatus> status;
    cuda::GraphMsfBuffers device;
    cuda::GraphTierStreams tiers;
    cuda::GraphMsfPlan plan;
    std::uint64_t graphs = 0, edges_used = 0, vertices_used = 0;
    Batch batch;
  };

  std::uint64_t edge_capacity = 0, vertex_capacity = 0, graph_capacity = 0, device_bytes = 0, pinned_bytes = 0;
  cuda::TwoSlotBatch<Slot> batches{"CudaGraphMsfBatchSolver"};

  void allocate(Slot& slot) const;
  // The steps of TwoSlotBatch::submit, on the slot's graphs, edges_used and vertices_used.
  void copy_in(Slot& slot, cudaStream_t stream) const;
  void launch(Slot& slot, cudaStream_t stream) const;
  void copy_out(Slot& slot, cudaStream_t stream) const;
};

void CudaGraphMsfBatchSolver::Impl::allocate(Slot& slot) const {
  slot.edges.resize(edge_capacity);
  slot.boundary.resize(vertex_capacity);
  slot.spans.resize(graph_capacity);
  slot.order.resize(graph_capacity);
  slot.in_forest.resize(edge_capacity);
  slot.summary.resize(edge_capacity);
  slot.counts.resize(graph_capacity);
  slot.status.resize(1);
  slot.device.allocate(edge_capacity, vertex_capacity, graph_capacity);
}

void CudaGraphMsfBatchSolver::Impl::copy_in(Slot& slot, cudaStream_t stream) const {
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.edges.get(), slot.edges.get(), slot.edges_used * sizeof(GraphEdge),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.boundary.get(), slot.boundary.get(), slot.vertices_used,
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.spans.get(), slot.spans.get(), slot.graphs * sizeof(GraphSpan),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.order.get(), slot.order.get(), slot.graphs * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice, stream));
}

void CudaGraphMsfBatchSolver::Impl::launch(Slot& slot, cudaStream_t stream) const {
  cuda::launch_graph_msf(slot.device.device(vertex_capacity), slot.plan, slot.edges_used, stream, slot.tiers);
}

void CudaGraphMsfBatchSolver::Impl::copy_out(Slot& slot, cudaStream_t stream) const {
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.in_forest.get(), slot.device.in_forest.get(), slot.edges_used,
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.summary.get(), slot.device.summary.get(),
                                     slot.edges_used * sizeof(GraphSummaryEdge), cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.counts.get(), slot.device.counts.get(), slot.graphs * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.status.get(), slot.device.status.get(), sizeof(cuda::GraphMsfStatus),
                                     cudaMemcpyDeviceToHost, stream));
}

CudaGraphMsfBatchSolver::CudaGraphMsfBatchSolver(const GraphBatchOptions& options) {
  const char* what = "CudaGraphMsfBatchSolver";
  cuda::require_cuda_device(what);
  std::uint64_t budget = options.gpu_memory_bytes;
  if (budget == 0) budget = std::min<std::uint64_t>(1ull << 30, cuda::batch_budget_bytes(0));
  // Per slot: E edges, 2E vertices, E graphs, i.e. device_bytes_for(E, 2E, E) = 139.125 E + 20
  // bytes (rounded up to whole removed-bit words); two slots.
  auto both_slots = [](std::uint64_t e) { return 2 * cuda::device_bytes_for(e, 2 * e, e); };
  const std::uint64_t per_slot = budget / 2;
  std::uint64_t edges = per_slot > 24 ? (per_slot - 24) / 1113 * 8 : 0;  // 1113 bytes per 8 edges
  while (edges > 0 && both_slots(edges) > budget) --edges;
  if (options.max_edges) edges = std::min(edges, options.max_edges);
  if (edges == 0) {
    throw BudgetError(std::string(what) + ": --gpu-memory " + std::to_string(budget) +
                " bytes is too small for one edge per slot (" + std::to_string(both_slots(1)) +
                " bytes with both slots); raise it");
  }
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.edge_capacity = edges;
  s.vertex_capacity = 2 * edges;
  s.graph_capacity = edges;
  for (Impl::Slot& slot : s.batches.slots()) s.allocate(slot);
  s.device_bytes = 2 * cuda::device_bytes_for(s.edge_capacity, s.vertex_capacity, s.graph_capacity);
  s.pinned_bytes = 2 * (s.edge_capacity * (sizeof(GraphEdge) + 1 + sizeof(GraphSummaryEdge)) + s.vertex_capacity +
                        s.graph_capacity * (sizeof(GraphSpan) + 8 + 4) + sizeof(cuda::GraphMsfStatus));
}

CudaGraphMsfBatchSolver::~CudaGraphMsfBatchSolver() = default;

std::uint64_t CudaGraphMsfBatchSolver::edge_capacity() const { return impl_->edge_capacity; }
std::uint64_t CudaGraphMsfBatchSolver::vertex_capacity() const { return impl_->vertex_capacity; }
std::uint64_t CudaGraphMsfBatchSolver::graph_capacity() const { return impl_->graph_capacity; }
std::uint64_t CudaGraphMsfBatchSolver::device_bytes() const { return impl_->device_bytes; }
std::uint64_t CudaGraphMsfBatchSolver::pinned_bytes() const { return impl_->pinned_bytes; }
std::size_t CudaGraphMsfBatchSolver::pending() const { return impl_->batches.pending(); }

GraphEdge* CudaGraphMsfBatchSolver::edges() { return impl_->batches.free_slot().edges.get(); }
std::uint8_t* CudaGraphMsfBatchSolver::boundary() { return impl_->batches.free_slot().boundary.get(); }
GraphSpan* CudaGraphMsfBatchSolver::graphs() { return impl_->batches.free_slot().spans.get(); }

void CudaGraphMsfBatchSolver::submit(std::uint64_t graph_count, std::uint64_t edge_count,
                                     std::uint64_t vertex_count) {
  const char* what = "CudaGraphMsfBatchSolver";
  Impl& s = *impl_;
  Impl::Slot& slot = s.batches.submit_slot();
  if (graph_count > s.graph_capacity || edge_count > s.edge_capacity || vertex_count > s.vertex_capacity) {
    throw Error(std::string(what) + ": a batch of " + std::to_string(graph_count) + " graphs, " +
                std::to_string(edge_count) + " edges and " + std::to_string(vertex_count) +
                " vertices exceeds the capacities of " + std::to_string(s.graph_capacity) + " graphs, " +
                std::to_string(s.edge_capacity) + " edges and " + std::to_string(s.vertex_capacity) + " vertices");
  }
  slot.plan = cuda::plan_graphs(what, slot.spans.get(), graph_count, edge_count, vertex_count, slot.order.get());
  slot.graphs = graph_count;
  slot.edges_used = edge_count;
  slot.vertices_used = vertex_count;
  s.batches.submit(s);
}

const CudaGraphMsfBatchSolver::Batch& CudaGraphMsfBatchSolver::wait() {
  Impl::Slot& slot = impl_->batches.wait();
  cuda::throw_on_status("CudaGraphMsfBatchSolver", *slot.status.get());
  Batch& batch = slot.batch;
  batch.graphs = slot.graphs;
  batch.edges = slot.edges_used;
  batch.vertices = slot.vertices_used;
  batch.spans = slot.spans.get();
  batch.in_forest = slot.in_forest.get();
  batch.summary = slot.summary.get();
  batch.summary_count = slot.counts.get();
  batch.kernel_ms = slot.kernel_ms();
  batch.total_ms = slot.total_ms();
  return batch;
}

}  // namespace terrazo
