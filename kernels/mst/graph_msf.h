// kernels/mst/graph_msf.h: minimum spanning forests of many small edge-weighted graphs, each reduced to
// its boundary summary. This is the merge step of the MST pipeline (phase 2) on the GPU, the
// thesis's "further work" ([Gerritsen2012, sec. 6.1]): engine/mst/phase2_merge_levels.h
// turns every merge of 2x2 sibling cluster summaries of one level into one graph here, and solves
// the whole level in batches.
//
// Source: Gerritsen 2012, sec. 3.1 (GPU Boruvka, one key per candidate, atomicMin per component)
// and Observations 2-4 (dead ends, contraction of degree-2 paths); engine/mst/merge_step.h has the proof
// that the expansion rule built on these decisions is exact.
//
// Contract (graph_msf_cpu and the CUDA implementations are bit-identical, outputs in the same order):
//   input  edges[]     GraphEdge records; graph g owns edges [first_edge, first_edge + edges) and
//                      vertices [first_vertex, first_vertex + vertices) of the batch (GraphSpan);
//                      an edge's a, b are vertex indices local to its graph (a != b, both < vertices);
//                      the key of an edge is (weight, id), compared lexicographically, and keys are
//                      distinct within a graph (parallel edges are allowed, their keys differ).
//          boundary[]  one byte per vertex (batch-wide index first_vertex + v): non-zero = the vertex
//                      is a boundary vertex of the graph (it may gain edges later).
//   output in_forest[] one byte per edge (batch-wide index first_edge + e): 1 iff edge e belongs to
//                      the graph's minimum spanning forest under the key order, else 0. (Plain
//                      formula: Kruskal over the edges sorted by key, with union-find.)
//          summary[], summary_count[g]: the reduced forest of graph g, written to
//                      summary[first_edge .. first_edge + summary_count[g]) (a graph has at most
//                      `edges` summary edges, so the span of its edges is room enough).
//                      Reduction, exactly as engine/mst/merge_step.cpp's reduce_forest: repeatedly remove
//                      a non-boundary vertex of forest degree 1 with its edge (dead ends); then the
//                      kept vertices are those of remaining degree >= 3, or >= 1 when boundary; every
//                      maximal path between two kept vertices whose interior vertices are not kept
//                      becomes one GraphSummaryEdge {a, b, rep}: a < b its end vertices (local
//                      indices), rep the local index (0-based within the graph) of the path's edge
//                      with the largest key. Summary edges are sorted by rep, ascending.
// Vertices without edges are allowed (not kept, no output). A graph with no edges has no output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/common/types.h"

namespace terrazo {

struct GraphEdge {
  std::uint32_t a = 0, b = 0;  // local vertex indices
  Weight weight = 0;
  std::uint32_t reserved = 0;  // zero
  std::uint64_t id = 0;        // tie-break: key = (weight, id)
};
static_assert(sizeof(GraphEdge) == 24, "GraphEdge is a 24-byte record");

struct GraphSpan {
  std::uint64_t first_edge = 0, first_vertex = 0;  // batch-wide offsets
  std::uint32_t edges = 0, vertices = 0;
};

struct GraphSummaryEdge {
  std::uint32_t a = 0, b = 0;  // local vertex indices, a < b
  std::uint32_t rep = 0;       // local edge index of the path's maximum-key edge
};

inline bool graph_edge_key_less(const GraphEdge& p, const GraphEdge& q) {
  return p.weight != q.weight ? p.weight < q.weight : p.id < q.id;
}

// CPU twin: Kruskal (sort by key, union-find) and sequential dead-end peeling, graph by graph.
void graph_msf_cpu(const GraphEdge* edges, const std::uint8_t* boundary, const GraphSpan* graphs,
                   std::uint64_t graph_count, std::uint8_t* in_forest, GraphSummaryEdge* summary,
                   std::uint32_t* summary_count);

// CUDA, one shot on host arrays (tests): same contract; throws terrazo::Error on any CUDA failure or
// when built without CUDA.
void graph_msf_cuda(const GraphEdge* edges, const std::uint8_t* boundary, const GraphSpan* graphs,
                    std::uint64_t graph_count, std::uint8_t* in_forest, GraphSummaryEdge* summary,
                    std::uint32_t* summary_count);

// Streamed batches on the GPU, in the manner of kernels/common/block_batch.h: two slots, each with
// page-locked host buffers, device buffers and a CUDA stream. The caller fills the free slot's
// pinned input (edges, boundary bytes, spans with offsets relative to the slot), submits it
// (asynchronous: copy in, solve, copy out) and fills the other slot meanwhile; wait() hands back the
// oldest batch. A Batch's pointers stay valid until the caller next asks for that slot's input.
// One thread block per graph (Boruvka with two-step lexicographic atomicMin per component, then
// asynchronous leaf peeling and path walks with atomics); graphs of any size up to the capacities.
//
//   CudaGraphMsfBatchSolver solver(options);
//   if (solver.pending() == 2) consume(solver.wait());
//   GraphEdge* e = solver.edges(); std::uint8_t* b = solver.boundary(); GraphSpan* g = solver.graphs();
//   ... fill up to edge_capacity() edges, vertex_capacity() vertices, graph_capacity() graphs ...
//   solver.submit(graph_count, edge_count, vertex_count);
//   while (solver.pending()) consume(solver.wait());
struct GraphBatchOptions {
  std::uint64_t gpu_memory_bytes = 0;  // device memory the solver may hold (both slots); 0: 1 GiB or
                                       // a quarter of the free memory, whichever is smaller
  std::uint64_t max_edges = 0;         // per slot; 0: as many as gpu_memory_bytes allows
};

class CudaGraphMsfBatchSolver {
 public:
  struct Batch {
    std::uint64_t graphs = 0, edges = 0, vertices = 0;
    const GraphSpan* spans = nullptr;             // the spans submitted
    const std::uint8_t* in_forest = nullptr;      // per edge (slot-relative index)
    const GraphSummaryEdge* summary = nullptr;    // graph g's summary at summary + spans[g].first_edge
    const std::uint32_t* summary_count = nullptr; // per graph
    double kernel_ms = 0.0;                       // GPU time of the kernels (CUDA events)
    double total_ms = 0.0;                        // GPU time from copy-in start to copy-out end
  };

  explicit CudaGraphMsfBatchSolver(const GraphBatchOptions& options);
  ~CudaGraphMsfBatchSolver();
  CudaGraphMsfBatchSolver(const CudaGraphMsfBatchSolver&) = delete;
  CudaGraphMsfBatchSolver& operator=(const CudaGraphMsfBatchSolver&) = delete;

  std::uint64_t edge_capacity() const;    // per slot
  std::uint64_t vertex_capacity() const;  // per slot
  std::uint64_t graph_capacity() const;   // per slot
  std::uint64_t device_bytes() const;     // device memory held (both slots, scratch included)
  std::uint64_t pinned_bytes() const;     // page-locked host memory held (both slots)
  GraphEdge* edges();                     // the free slot's inputs
  std::uint8_t* boundary();
  GraphSpan* graphs();
  // Starts the free slot on its first `graph_count` graphs, which use `edge_count` edges and
  // `vertex_count` vertices (throws terrazo::Error when a capacity or a span is exceeded).
  void submit(std::uint64_t graph_count, std::uint64_t edge_count, std::uint64_t vertex_count);
  std::size_t pending() const;            // submitted batches not yet waited for (0..2)
  const Batch& wait();                    // the oldest submitted batch, finished

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrazo
