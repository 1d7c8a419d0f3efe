// kernels/mst/graph_msf_launch.cuh: what the CUDA graph MSF's kernel (kernels/mst/graph_msf.cu) and its
// host batching (kernels/mst/graph_msf_batch.cu) share: the device view of one batch, the launch
// tiers and the status the kernel reports. Included by those two files only.
//
// Launch: graphs are bucketed by edge count (<= 128, <= 4096, more) into tiers of 64, 256 and 1024
// threads per block (a host-side counting sort of graph indices, copied with the spans: plan_graphs
// in graph_msf_batch.cu); each tier runs on its own stream, forked from and joined into the
// caller's, so small graphs use the other multiprocessors while a large graph's single block runs.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "kernels/common/cuda_support.cuh"
#include "kernels/mst/graph_msf.h"

namespace terrazo::cuda {

constexpr std::uint64_t kMaxGraphEdges = 0x7FFFFFFFull;  // incidence entries (2 per forest edge) fit 32 bits

// Status flags (GraphMsfStatus::flags).
constexpr unsigned kGraphBadEdge = 1u;       // a == b, or an end >= the graph's vertex count
constexpr unsigned kGraphDuplicateKey = 2u;  // two edges of one graph with the same (weight, id)
constexpr unsigned kGraphBrokenForest = 4u;  // cycle, broken path or no convergence (internal error)

struct GraphMsfStatus {
  unsigned int flags;
  unsigned int reserved;
  unsigned long long graph;  // smallest graph index with a flag (atomicMin); ~0 when none
};

// Per-vertex scratch of a slot, each array indexed by first_vertex + v (capacity: the slot's
// vertex capacity). The reduction reuses the Boruvka arrays: parent -> CSR offset, best_w -> CSR
// end (cursor), chosen -> remaining degree, best_id -> the two remaining edges of a path vertex.
struct GraphVertexScratch {
  unsigned long long* best_id;
  std::uint32_t* parent;
  std::uint32_t* best_w;
  std::uint32_t* chosen;
  std::uint32_t* other;
  std::uint32_t* roots;  // the choosing roots of the current round
};

// Device pointers of one batch (a slot, or the one-shot buffers).
struct GraphMsfDevice {
  const GraphEdge* edges = nullptr;
  const std::uint8_t* boundary = nullptr;
  const GraphSpan* spans = nullptr;
  const std::uint64_t* order = nullptr;
  std::uint8_t* in_forest = nullptr;
  GraphSummaryEdge* summary = nullptr;
  std::uint32_t* counts = nullptr;
  std::uint32_t* edge_scratch = nullptr;  // 2 per edge
  unsigned int* removed = nullptr;        // graph_removed_words(edges)
  GraphVertexScratch vertices{};
  GraphMsfStatus* status = nullptr;
};

// Words of removed bits for a batch of `edges` edges (one bit per edge, plus a padding word).
inline std::uint64_t graph_removed_words(std::uint64_t edges) { return edges / 32 + 1; }

// Tiers: graphs of at most kGraphTierEdges[k] edges run with kGraphTierThreads[k] threads per block.
constexpr int kGraphTiers = 3;
constexpr std::uint64_t kGraphTierEdges[kGraphTiers] = {128, 4096, kMaxGraphEdges};
constexpr unsigned kGraphTierThreads[kGraphTiers] = {64, 256, 1024};

inline int graph_tier_of(std::uint32_t edges) {
  for (int k = 0; k < kGraphTiers; ++k)
    if (edges <= kGraphTierEdges[k]) return k;
  return kGraphTiers - 1;
}

// Graph indices bucketed by tier (stable): tier k's graphs are order[begin[k] .. begin[k + 1]).
struct GraphMsfPlan {
  std::array<std::uint64_t, kGraphTiers + 1> begin{};
};

// One stream per tier, forked from and joined back into the caller's stream, so the small graphs'
// blocks fill the other multiprocessors while a large graph's block runs (kernels of one stream
// would run one after the other).
struct GraphTierStreams {
  std::array<CudaStream, kGraphTiers> streams;
  CudaEvent fork;
  std::array<CudaEvent, kGraphTiers> joined;
};

// Clears the removed bits and the status, then runs every tier (asynchronous; ordered after the
// work already on `stream`, and the work queued on `stream` afterwards waits for all tiers). Every
// CUDA call and launch is checked.
void launch_graph_msf(const GraphMsfDevice& d, const GraphMsfPlan& plan, std::uint64_t edge_count,
                      cudaStream_t stream, GraphTierStreams& tiers);

}  // namespace terrazo::cuda
