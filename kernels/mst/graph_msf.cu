// kernels/mst/graph_msf.cu: the CUDA batched MSF + reduction (contract: kernels/mst/graph_msf.h; CPU twin:
// kernels/mst/graph_msf_cpu.cpp), one thread block per graph.
//
// Source: [Gerritsen2012, sec. 3.1] (GPU Boruvka, one key per candidate,
// atomicMin per component, after Harish et al.) and Observations 3-4 (dead ends, degree-2 paths);
// the reduction follows kernels/mst/block_reduce.cu (asynchronous leaf-peeling walkers, path walks).
//
// Per graph (m edges, n vertices), phases separated by __syncthreads():
//  0. Init: in_forest = 0; summary slots = empty (a = b = kEmpty); parent[v] = v; best_w, best_id,
//     chosen = none.
//  1. Boruvka rounds over a list of live edges (round 0: all edges, each validated: a != b, both
//     ends < n; a bad edge is reported and never used):
//     (A) roots ca, cb of the ends (find with path compression; no hooking happens in this step);
//         an edge with ca == cb is dead for good and dropped from the list, else it is appended to
//         the next list and atomicMin(best_w[c], weight) for c = ca, cb.
//     (B) edges with weight == best_w[c]: atomicMin(best_id[c], id).
//     (C) the edge with (weight, id) == (best_w[c], best_id[c]) is c's choice: atomicCAS(chosen[c])
//         (a second edge with the same key fails the CAS: duplicate key, reported), other[c] = the
//         other root; c joins the list of choosing roots.
//     (D) each choosing root c hooks: parent[c] = other[c], except the smaller root of a mutual pair
//         (both chose the same edge; keys are distinct, so no longer cycle exists), which stays
//         root; in_forest[chosen[c]] = 1.
//     (E) pointer jumping: every choosing root points to its final root; its best_w, best_id and
//         chosen are reset.
//     Rounds end when (A) finds no live edge: at most ceil(log2 n) + 1 rounds. The chosen edges
//     are the minimum spanning forest under the key order (cut property), i.e. Kruskal's.
//  2. Incidence: degree[v] by atomicAdd over the forest edges, offsets by a block-wide exclusive
//     scan, entries (edge indices) by atomicAdd on a per-vertex cursor. Entry order within a
//     vertex depends on timing; nothing below depends on it.
//  3. Dead ends, asynchronous peeling: every non-boundary vertex of initial degree 1 starts a
//     walker. A walker at v claims v's remaining edge with an atomic test-and-set of the edge's
//     removed bit (v has at most one edge left, so the first bit it finds clear is that edge), then
//     atomicSub's the remaining degree of both ends; the walker whose atomicSub took a non-boundary
//     vertex from 2 to 1 continues from it. Every degree drop is seen by exactly one atomic, so the
//     removed set is the unique fixpoint of sequential peeling (graph_msf_cpu's).
//  4. Paths: non-kept vertices with remaining degree 2 record their two remaining edges; then from
//     every kept vertex (remaining degree >= 3, or >= 1 and boundary) along each remaining edge one
//     thread walks to the next kept vertex, keeping the local index of the largest key; the walk
//     from the smaller end writes {a, b, rep} into summary slot rep (slots are distinct: paths are
//     edge-disjoint).
//  5. Order by rep: a block-wide prefix sum over the m slots, in edge order, moves the filled slots
//     to the front (in place: every target index is <= its source index).
// Impossible states (a cycle, a broken path, no convergence) and bad inputs set a status flag with
// the smallest graph index concerned; the host throws terrazo::Error.
//
// Launch: graphs are bucketed by edge count (<= 128, <= 4096, more) into tiers of 64, 256 and 1024
// threads per block (a host-side counting sort of graph indices, copied with the spans); each tier
// runs on its own stream, forked from and joined into the caller's, so small graphs use the other
// multiprocessors while a large graph's single block runs. Every loop strides over blockDim;
// offsets into the batch are 64-bit; within a graph 32-bit (m <= 2^31 - 1 is checked).
// Cost: O(m log n) work per graph for Boruvka (the live-edge list shrinks as edges become internal),
// O(m + n) for the rest; but one block per graph, and each dead-end branch and each path is walked
// by one thread, so a graph's time grows with its longest peeled chain and longest path.
//
// Device memory of one slot (the plain formula of GraphMsfDeviceBytes below):
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
#include <vector>

#include "kernels/common/cuda_device.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/mst/graph_msf.h"

namespace terrazo {
namespace cuda {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // a summary slot not written (a == b is never an output)
constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr std::uint32_t kMaxRounds = 64;       // Boruvka needs at most 33 for n < 2^32
constexpr std::uint64_t kMaxGraphEdges = 0x7FFFFFFFull;  // incidence entries (2 per forest edge) fit 32 bits

// Status flags (GraphMsfStatus::flags).
constexpr unsigned kBadEdge = 1u;       // a == b, or an end >= the graph's vertex count
constexpr unsigned kDuplicateKey = 2u;  // two edges of one graph with the same (weight, id)
constexpr unsigned kBrokenForest = 4u;  // cycle, broken path or no convergence (internal error)

struct GraphMsfStatus {
  unsigned int flags;
  unsigned int reserved;
  unsigned long long graph;  // smallest graph index with a flag (atomicMin); ~0 when none
};

// Per-vertex scratch of a slot, each array indexed by first_vertex + v (capacity: the slot's
// vertex capacity). The reduction reuses the Boruvka arrays: parent -> CSR offset, best_w -> CSR
// end (cursor), chosen -> remaining degree, best_id -> the two remaining edges of a path vertex.
struct VertexScratch {
  unsigned long long* best_id;
  std::uint32_t* parent;
  std::uint32_t* best_w;
  std::uint32_t* chosen;
  std::uint32_t* other;
  std::uint32_t* roots;  // the choosing roots of the current round
};

__device__ __noinline__ void report(GraphMsfStatus* status, unsigned flag, std::uint64_t graph) {
  atomicOr(&status->flags, flag);
  atomicMin(&status->graph, static_cast<unsigned long long>(graph));
}

__device__ __forceinline__ bool key_less(const GraphEdge& p, const GraphEdge& q) {
  return p.weight != q.weight ? p.weight < q.weight : p.id < q.id;
}

// The root of v's component; compresses v's pointer. Only valid while no root hooks (steps A-C).
// Concurrent compressions only ever store ancestors, so any value read is on v's path to the root.
__device__ __forceinline__ std::uint32_t find_root(std::uint32_t* parent, std::uint32_t v, std::uint32_t n, bool* broken) {
  std::uint32_t r = v;
  std::uint32_t steps = 0;
  for (;;) {
    const std::uint32_t p = parent[r];
    if (p == r) break;
    r = p;
    if (++steps > n) {
      *broken = true;
      return v;
    }
  }
  if (r != v && parent[v] != r) parent[v] = r;
  return r;
}

// Appends `value` to list[*count ...] for the lanes with `take` set: one shared atomicAdd per warp.
// Every lane of the warp must call it (uniform trip counts).
__device__ __forceinline__ void warp_append(bool take, std::uint32_t value, std::uint32_t* list,
                                            std::uint32_t* s_count) {
  const unsigned mask = __ballot_sync(kFullMask, take);
  if (mask == 0) return;
  const unsigned lane = threadIdx.x & 31u;
  const int leader = __ffs(mask) - 1;
  std::uint32_t base = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(s_count, static_cast<std::uint32_t>(__popc(mask)));
  base = __shfl_sync(kFullMask, base, leader);
  if (take) list[base + static_cast<std::uint32_t>(__popc(mask & ((1u << lane) - 1u)))] = value;
}

// Block-wide exclusive prefix sum of one value per thread; *total receives the sum. Every thread of
// the block must call it; it contains barriers (and ends with one, so it can be called in a loop).
__device__ std::uint32_t block_exclusive_scan(std::uint32_t value, std::uint32_t* total) {
  __shared__ std::uint32_t s_warp[32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned warps = (blockDim.x + 31u) >> 5;
  std::uint32_t x = value;
  for (unsigned offset = 1; offset < 32; offset <<= 1) {
    const std::uint32_t y = __shfl_up_sync(kFullMask, x, offset);
    if (lane >= offset) x += y;
  }
  if (lane == 31) s_warp[warp] = x;
  __syncthreads();
  if (warp == 0) {
    std::uint32_t w = lane < warps ? s_warp[lane] : 0u;
    for (unsigned offset = 1; offset < 32; offset <<= 1) {
      const std::uint32_t y = __shfl_up_sync(kFullMask, w, offset);
      if (lane >= offset) w += y;
    }
    if (lane < warps) s_warp[lane] = w;
  }
  __syncthreads();
  const std::uint32_t before = warp > 0 ? s_warp[warp - 1] : 0u;
  *total = s_warp[warps - 1];
  __syncthreads();
  return before + x - value;
}

// Atomic test-and-set of edge bit `index` (batch-wide); true when this call set it.
__device__ __forceinline__ bool claim_edge(unsigned int* removed, std::uint64_t index) {
  const unsigned bit = 1u << (index & 31u);
  unsigned int* word = removed + (index >> 5);
  if (*reinterpret_cast<volatile unsigned int*>(word) & bit) return false;  // bits never clear: set is final
  return (atomicOr(word, bit) & bit) == 0;
}

__device__ __forceinline__ bool edge_removed(const unsigned int* removed, std::uint64_t index) {
  return (removed[index >> 5] >> (index & 31u)) & 1u;
}

// One block per SM is enough for the 1024-thread tier (few, large graphs): let it use 64 registers.
template <unsigned kThreads>
static __global__ void __launch_bounds__(kThreads, kThreads >= 1024 ? 1 : 2048 / kThreads / 2)
    solve_graph_msf(const GraphEdge* __restrict__ d_edges, const std::uint8_t* __restrict__ d_boundary,
                    const GraphSpan* __restrict__ d_spans, const std::uint64_t* __restrict__ d_order,
                    std::uint64_t first_order, std::uint8_t* __restrict__ d_in_forest,
                    GraphSummaryEdge* __restrict__ d_summary, std::uint32_t* __restrict__ d_counts,
                    std::uint32_t* __restrict__ d_edge_scratch, unsigned int* __restrict__ d_removed,
                    VertexScratch scratch, GraphMsfStatus* __restrict__ d_status) {
  __shared__ std::uint32_t s_next, s_roots;
  __shared__ int s_abort;
  const std::uint64_t g = d_order[first_order + blockIdx.x];
  const GraphSpan span = d_spans[g];
  const std::uint32_t m = span.edges, n = span.vertices;
  const std::uint64_t fe = span.first_edge, fv = span.first_vertex;
  const GraphEdge* edges = d_edges + fe;
  const std::uint8_t* boundary = d_boundary + fv;
  std::uint8_t* in_forest = d_in_forest + fe;
  GraphSummaryEdge* slots = d_summary + fe;
  std::uint32_t* list_a = d_edge_scratch + 2 * fe;
  std::uint32_t* list_b = list_a + m;
  unsigned long long* best_id = scratch.best_id + fv;
  std::uint32_t* parent = scratch.parent + fv;
  std::uint32_t* best_w = scratch.best_w + fv;
  std::uint32_t* chosen = scratch.chosen + fv;
  std::uint32_t* other = scratch.other + fv;
  std::uint32_t* roots = scratch.roots + fv;
  const unsigned tid = threadIdx.x;

  // 0. Init.
  for (std::uint32_t i = tid; i < m; i += kThreads) {
    in_forest[i] = 0;
    slots[i] = GraphSummaryEdge{kEmpty, kEmpty, 0};
  }
  for (std::uint32_t v = tid; v < n; v += kThreads) {
    parent[v] = v;
    best_w[v] = kNone;
    best_id[v] = ~0ull;
    chosen[v] = kNone;
  }
  if (tid == 0) s_abort = 0;
  __syncthreads();

  // 1. Boruvka.
  std::uint32_t live = m;
  std::uint32_t* in = list_a;  // unused in round 0 (the identity list)
  std::uint32_t* out = list_b;
  bool aborted = false;  // block-uniform: read from s_abort after barriers
  for (std::uint32_t round = 0;; ++round) {
    if (tid == 0) {
      s_next = 0;
      s_roots = 0;
    }
    __syncthreads();
    bool broken = false;
    // (A)
    for (std::uint32_t start = 0; start < live; start += kThreads) {
      const std::uint32_t i = start + tid;
      bool keep = false;
      std::uint32_t e = kNone;
      if (i < live) {
        e = round == 0 ? i : in[i];
        const GraphEdge edge = edges[e];
        if (round == 0 && (edge.a >= n || edge.b >= n || edge.a == edge.b)) {
          report(d_status, kBadEdge, g);
        } else {
          const std::uint32_t ca = find_root(parent, edge.a, n, &broken);
          const std::uint32_t cb = find_root(parent, edge.b, n, &broken);
          if (ca != cb) {
            keep = true;
            atomicMin(&best_w[ca], edge.weight);
            atomicMin(&best_w[cb], edge.weight);
          }
        }
      }
      warp_append(keep, e, out, &s_next);
    }
    if (broken) {
      report(d_status, kBrokenForest, g);
      s_abort = 1;
    }
    __syncthreads();
    live = s_next;
    aborted = s_abort != 0;
    if (live == 0 || aborted) break;
    if (round >= kMaxRounds) {
      if (tid == 0) report(d_status, kBrokenForest, g);
      aborted = true;
      break;
    }
    // (B)
    for (std::uint32_t i = tid; i < live; i += kThreads) {
      const GraphEdge edge = edges[out[i]];
      const std::uint32_t ca = find_root(parent, edge.a, n, &broken);
      const std::uint32_t cb = find_root(parent, edge.b, n, &broken);
      if (best_w[ca] == edge.weight) atomicMin(&best_id[ca], static_cast<unsigned long long>(edge.id));
      if (best_w[cb] == edge.weight) atomicMin(&best_id[cb], static_cast<unsigned long long>(edge.id));
    }
    __syncthreads();
    // (C)
    for (std::uint32_t start = 0; start < live; start += kThreads) {
      const std::uint32_t i = start + tid;
      std::uint32_t ca = kNone, cb = kNone;
      bool take_a = false, take_b = false;
      if (i < live) {
        const std::uint32_t e = out[i];
        const GraphEdge edge = edges[e];
        ca = find_root(parent, edge.a, n, &broken);
        cb = find_root(parent, edge.b, n, &broken);
        const unsigned long long id = edge.id;
        if (best_w[ca] == edge.weight && best_id[ca] == id) {
          const std::uint32_t before = atomicCAS(&chosen[ca], kNone, e);
          if (before == kNone) {
            other[ca] = cb;
            take_a = true;
          } else {
            report(d_status, kDuplicateKey, g);
            broken = true;
          }
        }
        if (best_w[cb] == edge.weight && best_id[cb] == id) {
          const std::uint32_t before = atomicCAS(&chosen[cb], kNone, e);
          if (before == kNone) {
            other[cb] = ca;
            take_b = true;
          } else {
            report(d_status, kDuplicateKey, g);
            broken = true;
          }
        }
      }
      warp_append(take_a, ca, roots, &s_roots);
      warp_append(take_b, cb, roots, &s_roots);
    }
    if (broken) s_abort = 1;
    __syncthreads();
    aborted = s_abort != 0;
    if (aborted) break;
    const std::uint32_t choosing = s_roots;
    // (D)
    for (std::uint32_t k = tid; k < choosing; k += kThreads) {
      const std::uint32_t c = roots[k];
      const std::uint32_t e = chosen[c];
      const std::uint32_t o = other[c];
      const bool mutual = chosen[o] == e;
      parent[c] = (mutual && c < o) ? c : o;
      in_forest[e] = 1;
    }
    __syncthreads();
    // (E)
    volatile std::uint32_t* vparent = parent;
    for (std::uint32_t k = tid; k < choosing; k += kThreads) {
      const std::uint32_t c = roots[k];
      std::uint32_t p = vparent[c];
      std::uint32_t steps = 0;
      for (;;) {
        const std::uint32_t pp = vparent[p];
        if (pp == p) break;
        p = pp;
        if (++steps > n) {
          broken = true;
          break;
        }
      }
      vparent[c] = p;
      best_w[c] = kNone;
      best_id[c] = ~0ull;
      chosen[c] = kNone;
    }
    if (broken) {
      report(d_status, kBrokenForest, g);
      s_abort = 1;
    }
    __syncthreads();
    aborted = s_abort != 0;
    if (aborted) break;
    in = out;
    out = out == list_b ? list_a : list_b;
  }
  if (aborted) {
    if (tid == 0) d_counts[g] = 0;
    return;
  }

  // 2. Incidence. Reused arrays: offset (parent), end (best_w, the fill cursor), degree (chosen).
  std::uint32_t* offset = parent;
  std::uint32_t* end = best_w;
  std::uint32_t* degree = chosen;
  std::uint32_t* incident = list_a;  // 2m entries: both lists
  unsigned long long* two = best_id;
  for (std::uint32_t v = tid; v < n; v += kThreads) degree[v] = 0;
  __syncthreads();
  for (std::uint32_t i = tid; i < m; i += kThreads) {
    if (!in_forest[i]) continue;
    const GraphEdge edge = edges[i];
    atomicAdd(&degree[edge.a], 1u);
    atomicAdd(&degree[edge.b], 1u);
  }
  __syncthreads();
  std::uint32_t base = 0;
  for (std::uint32_t start = 0; start < n; start += kThreads) {
    const std::uint32_t v = start + tid;
    const std::uint32_t d = v < n ? degree[v] : 0u;
    std::uint32_t total = 0;
    const std::uint32_t before = block_exclusive_scan(d, &total);
    if (v < n) {
      offset[v] = base + before;
      end[v] = base + before;
    }
    base += total;
  }
  __syncthreads();
  for (std::uint32_t i = tid; i < m; i += kThreads) {
    if (!in_forest[i]) continue;
    const GraphEdge edge = edges[i];
    incident[atomicAdd(&end[edge.a], 1u)] = i;
    incident[atomicAdd(&end[edge.b], 1u)] = i;
  }
  __syncthreads();

  // 3. Dead ends.
  for (std::uint32_t start = tid; start < n; start += kThreads) {
    if (boundary[start] || end[start] - offset[start] != 1) continue;
    std::uint32_t v = start;
    for (;;) {
      std::uint32_t e = kNone;
      for (std::uint32_t k = offset[v]; k < end[v]; ++k) {
        if (claim_edge(d_removed, fe + incident[k])) {
          e = incident[k];
          break;
        }
      }
      if (e == kNone) break;  // its partner leaf took the last edge
      atomicSub(&degree[v], 1u);
      const GraphEdge edge = edges[e];
      const std::uint32_t u = edge.a == v ? edge.b : edge.a;
      const std::uint32_t before = atomicSub(&degree[u], 1u);
      if (before != 2 || boundary[u]) break;
      v = u;  // u just became a non-boundary leaf, and only this walker saw it happen
    }
  }
  __syncthreads();

  // 4. Paths. First the two remaining edges of every non-kept vertex of remaining degree 2.
  bool broken = false;
  for (std::uint32_t v = tid; v < n; v += kThreads) {
    if (degree[v] != 2 || boundary[v]) continue;
    std::uint32_t e0 = kNone, e1 = kNone;
    std::uint32_t count = 0;
    for (std::uint32_t k = offset[v]; k < end[v]; ++k) {
      const std::uint32_t e = incident[k];
      if (edge_removed(d_removed, fe + e)) continue;
      if (count == 0) e0 = e;
      if (count == 1) e1 = e;
      ++count;
    }
    if (count != 2) broken = true;
    two[v] = static_cast<unsigned long long>(e0) | (static_cast<unsigned long long>(e1) << 32);
  }
  __syncthreads();
  auto kept = [&](std::uint32_t v) { return degree[v] >= 3 || (degree[v] >= 1 && boundary[v]); };
  for (std::uint32_t v = tid; v < n; v += kThreads) {
    if (!kept(v)) continue;
    for (std::uint32_t k = offset[v]; k < end[v]; ++k) {
      const std::uint32_t first = incident[k];
      if (edge_removed(d_removed, fe + first)) continue;
      std::uint32_t rep = first, previous = first;
      GraphEdge rep_edge = edges[first];
      std::uint32_t current = rep_edge.a == v ? rep_edge.b : rep_edge.a;
      std::uint32_t steps = 0;
      bool ok = true;
      while (!kept(current)) {
        if (degree[current] != 2 || ++steps > n) {
          ok = false;
          break;
        }
        const unsigned long long pair = two[current];
        const std::uint32_t e0 = static_cast<std::uint32_t>(pair), e1 = static_cast<std::uint32_t>(pair >> 32);
        const std::uint32_t next = e0 == previous ? e1 : e0;
        if (next == kNone) {
          ok = false;
          break;
        }
        const GraphEdge edge = edges[next];
        if (key_less(rep_edge, edge)) {
          rep = next;
          rep_edge = edge;
        }
        previous = next;
        current = edge.a == current ? edge.b : edge.a;
      }
      if (!ok || current == v) {
        broken = true;
        continue;
      }
      if (v < current) slots[rep] = GraphSummaryEdge{v, current, rep};
    }
  }
  if (broken) report(d_status, kBrokenForest, g);
  __syncthreads();

  // 5. Order by rep: compact the filled slots in edge order.
  std::uint32_t written = 0;
  for (std::uint32_t start = 0; start < m; start += kThreads) {
    const std::uint32_t i = start + tid;
    GraphSummaryEdge item{kEmpty, kEmpty, 0};
    if (i < m) item = slots[i];
    const bool filled = item.a != kEmpty;
    std::uint32_t total = 0;
    const std::uint32_t before = block_exclusive_scan(filled ? 1u : 0u, &total);  // all reads done
    if (filled) slots[written + before] = item;
    written += total;
  }
  if (tid == 0) d_counts[g] = written;
}

// Tiers: graphs of at most kTierEdges[k] edges run with kTierThreads[k] threads per block.
constexpr int kTiers = 3;
constexpr std::uint64_t kTierEdges[kTiers] = {128, 4096, kMaxGraphEdges};
constexpr unsigned kTierThreads[kTiers] = {64, 256, 1024};

int tier_of(std::uint32_t edges) {
  for (int k = 0; k < kTiers; ++k)
    if (edges <= kTierEdges[k]) return k;
  return kTiers - 1;
}

// Graph indices bucketed by tier (stable), and where each tier starts.
struct GraphMsfPlan {
  std::array<std::uint64_t, kTiers + 1> begin{};
};

// Checks the spans against the batch (edge_count edges, vertex_count vertices), against each other
// (edge spans and vertex spans must not overlap: the kernel's scratch is indexed by them) and the
// per-graph limit; fills order[graph_count] and the plan. Throws terrazo::Error naming the graph.
GraphMsfPlan plan_graphs(const char* what, const GraphSpan* spans, std::uint64_t graph_count,
                         std::uint64_t edge_count, std::uint64_t vertex_count, std::uint64_t* order) {
  std::array<std::uint64_t, kTiers> sizes{};
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
    ++sizes[tier_of(s.edges)];
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
  for (int k = 0; k < kTiers; ++k) plan.begin[k + 1] = plan.begin[k] + sizes[k];
  std::array<std::uint64_t, kTiers> fill{};
  for (int k = 0; k < kTiers; ++k) fill[k] = plan.begin[k];
  for (std::uint64_t g = 0; g < graph_count; ++g) order[fill[tier_of(spans[g].edges)]++] = g;
  return plan;
}

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
  unsigned int* removed = nullptr;        // removed_words(edges)
  VertexScratch vertices{};
  GraphMsfStatus* status = nullptr;
};

std::uint64_t removed_words(std::uint64_t edges) { return edges / 32 + 1; }

// Device bytes of a batch holding these capacities (the formula in the header comment).
std::uint64_t device_bytes_for(std::uint64_t edges, std::uint64_t vertices, std::uint64_t graphs) {
  return edges * (sizeof(GraphEdge) + 1 + sizeof(GraphSummaryEdge) + 8) + 4 * removed_words(edges) +
         vertices * (1 + 8 + 5 * 4) + graphs * (sizeof(GraphSpan) + 8 + 4) + sizeof(GraphMsfStatus);
}

template <unsigned kThreads>
void launch_tier(const GraphMsfDevice& d, std::uint64_t begin, std::uint64_t end, cudaStream_t stream) {
  const std::uint64_t max_launch = 0x7FFFFFFFull;
  for (std::uint64_t first = begin; first < end; first += max_launch) {
    const std::uint64_t count = std::min(max_launch, end - first);
    solve_graph_msf<kThreads><<<static_cast<unsigned>(count), kThreads, 0, stream>>>(
        d.edges, d.boundary, d.spans, d.order, first, d.in_forest, d.summary, d.counts, d.edge_scratch, d.removed,
        d.vertices, d.status);
    TERRAZO_CUDA_CHECK_LAUNCH();
  }
}

// One stream per tier, forked from and joined back into the caller's stream, so the small graphs'
// blocks fill the other multiprocessors while a large graph's block runs (kernels of one stream
// would run one after the other).
struct TierStreams {
  std::array<CudaStream, kTiers> streams;
  CudaEvent fork;
  std::array<CudaEvent, kTiers> joined;
};

// Clears the removed bits and the status, then runs every tier (asynchronous; ordered after the
// work already on `stream`, and the work queued on `stream` afterwards waits for all tiers).
void launch_graph_msf(const GraphMsfDevice& d, const GraphMsfPlan& plan, std::uint64_t edge_count,
                      cudaStream_t stream, TierStreams& tiers) {
  static_assert(kTierThreads[0] == 64 && kTierThreads[1] == 256 && kTierThreads[2] == 1024, "tiers below");
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(d.removed, 0, removed_words(edge_count) * sizeof(unsigned int), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(&d.status->flags, 0, sizeof(unsigned int), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(&d.status->graph, 0xFF, sizeof(unsigned long long), stream));
  tiers.fork.record(stream);
  // Largest graphs first: a big graph's block starts before the small ones fill the machine.
  for (int k = kTiers - 1; k >= 0; --k) {
    if (plan.begin[k] == plan.begin[k + 1]) continue;
    cudaStream_t tier = tiers.streams[k].get();
    TERRAZO_CUDA_CHECK(cudaStreamWaitEvent(tier, tiers.fork.get(), 0));
    if (k == 2) launch_tier<1024>(d, plan.begin[2], plan.begin[3], tier);
    if (k == 1) launch_tier<256>(d, plan.begin[1], plan.begin[2], tier);
    if (k == 0) launch_tier<64>(d, plan.begin[0], plan.begin[1], tier);
    tiers.joined[k].record(tier);
    TERRAZO_CUDA_CHECK(cudaStreamWaitEvent(stream, tiers.joined[k].get(), 0));
  }
}

void throw_on_status(const char* what, const GraphMsfStatus& status) {
  if (status.flags == 0) return;
  const std::string graph = "graph " + std::to_string(status.graph) + " of the batch";
  if (status.flags & kBadEdge) {
    throw Error(std::string(what) + ": " + graph + " has an edge with a == b or an end not below its vertex count");
  }
  if (status.flags & kDuplicateKey) {
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
    removed.resize(removed_words(e));
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
  if (!cuda_device().available) throw Error(std::string(what) + ": " + cuda_device().reason);
  if (graph_count == 0) return;
  // The batch is the union of the spans: [0, max end) edges and vertices.
  std::uint64_t edge_count = 0, vertex_count = 0;
  for (std::uint64_t g = 0; g < graph_count; ++g) {
    const GraphSpan& s = graphs[g];
    if (s.first_edge > std::numeric_limits<std::uint64_t>::max() - s.edges ||
        s.first_vertex > std::numeric_limits<std::uint64_t>::max() - s.vertices) {
      throw Error(std::string(what) + ": graph " + std::to_string(g) + "'s span overflows 64 bits");
    }
    if (s.edges) edge_count = std::max<std::uint64_t>(edge_count, s.first_edge + s.edges);
    if (s.vertices) vertex_count = std::max<std::uint64_t>(vertex_count, s.first_vertex + s.vertices);
  }
  std::vector<std::uint64_t> order(graph_count);
  const cuda::GraphMsfPlan plan = cuda::plan_graphs(what, graphs, graph_count, edge_count, vertex_count, order.data());
  cuda::GraphMsfBuffers buffers;
  buffers.allocate(edge_count, vertex_count, graph_count);
  cuda::TierStreams tiers;
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
  struct Slot {
    cuda::CudaStream stream;
    cuda::CudaEvent start, kernels_start, kernels_end, end;
    cuda::PinnedBuffer<GraphEdge> edges;
    cuda::PinnedBuffer<std::uint8_t> boundary;
    cuda::PinnedBuffer<GraphSpan> spans;
    cuda::PinnedBuffer<std::uint64_t> order;
    cuda::PinnedBuffer<std::uint8_t> in_forest;
    cuda::PinnedBuffer<GraphSummaryEdge> summary;
    cuda::PinnedBuffer<std::uint32_t> counts;
    cuda::PinnedBuffer<cuda::GraphMsfStatus> status;
    cuda::GraphMsfBuffers device;
    cuda::TierStreams tiers;
    std::uint64_t graphs = 0, edges_used = 0, vertices_used = 0;
    Batch batch;
  };

  std::uint64_t edge_capacity = 0, vertex_capacity = 0, graph_capacity = 0, device_bytes = 0, pinned_bytes = 0;
  std::array<Slot, 2> slots;
  std::size_t fill = 0;     // slot filled next
  std::size_t pending = 0;  // submitted, not waited for; the oldest is (fill + 2 - pending) % 2
};

CudaGraphMsfBatchSolver::CudaGraphMsfBatchSolver(const GraphBatchOptions& options) {
  const char* what = "CudaGraphMsfBatchSolver";
  if (!cuda_device().available) throw Error(std::string(what) + ": " + cuda_device().reason);
  std::uint64_t budget = options.gpu_memory_bytes;
  if (budget == 0) {
    std::size_t free_bytes = 0, total_bytes = 0;
    TERRAZO_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    budget = std::min<std::uint64_t>(1ull << 30, free_bytes / 4);
  }
  // Per slot: E edges, 2E vertices, E graphs, i.e. device_bytes_for(E, 2E, E) = 139.125 E + 20
  // bytes (rounded up to whole removed-bit words); two slots.
  auto both_slots = [](std::uint64_t e) { return 2 * cuda::device_bytes_for(e, 2 * e, e); };
  const std::uint64_t per_slot = budget / 2;
  std::uint64_t edges = per_slot > 24 ? (per_slot - 24) / 1113 * 8 : 0;  // 1113 bytes per 8 edges
  while (edges > 0 && both_slots(edges) > budget) --edges;
  if (options.max_edges) edges = std::min(edges, options.max_edges);
  if (edges == 0) {
    throw Error(std::string(what) + ": --gpu-memory " + std::to_string(budget) +
                " bytes is too small for one edge per slot (" + std::to_string(both_slots(1)) +
                " bytes with both slots); raise it");
  }
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.edge_capacity = edges;
  s.vertex_capacity = 2 * edges;
  s.graph_capacity = edges;
  for (Impl::Slot& slot : s.slots) {
    slot.edges.resize(s.edge_capacity);
    slot.boundary.resize(s.vertex_capacity);
    slot.spans.resize(s.graph_capacity);
    slot.order.resize(s.graph_capacity);
    slot.in_forest.resize(s.edge_capacity);
    slot.summary.resize(s.edge_capacity);
    slot.counts.resize(s.graph_capacity);
    slot.status.resize(1);
    slot.device.allocate(s.edge_capacity, s.vertex_capacity, s.graph_capacity);
  }
  s.device_bytes = 2 * cuda::device_bytes_for(s.edge_capacity, s.vertex_capacity, s.graph_capacity);
  s.pinned_bytes = 2 * (s.edge_capacity * (sizeof(GraphEdge) + 1 + sizeof(GraphSummaryEdge)) + s.vertex_capacity +
                        s.graph_capacity * (sizeof(GraphSpan) + 8 + 4) + sizeof(cuda::GraphMsfStatus));
}

CudaGraphMsfBatchSolver::~CudaGraphMsfBatchSolver() {
  if (!impl_) return;
  for (Impl::Slot& slot : impl_->slots) cudaStreamSynchronize(slot.stream.get());  // buffers outlive their work
}

std::uint64_t CudaGraphMsfBatchSolver::edge_capacity() const { return impl_->edge_capacity; }
std::uint64_t CudaGraphMsfBatchSolver::vertex_capacity() const { return impl_->vertex_capacity; }
std::uint64_t CudaGraphMsfBatchSolver::graph_capacity() const { return impl_->graph_capacity; }
std::uint64_t CudaGraphMsfBatchSolver::device_bytes() const { return impl_->device_bytes; }
std::uint64_t CudaGraphMsfBatchSolver::pinned_bytes() const { return impl_->pinned_bytes; }
std::size_t CudaGraphMsfBatchSolver::pending() const { return impl_->pending; }

GraphEdge* CudaGraphMsfBatchSolver::edges() {
  if (impl_->pending == 2) throw Error("CudaGraphMsfBatchSolver: both slots are in flight; wait() before filling one");
  return impl_->slots[impl_->fill].edges.get();
}

std::uint8_t* CudaGraphMsfBatchSolver::boundary() {
  if (impl_->pending == 2) throw Error("CudaGraphMsfBatchSolver: both slots are in flight; wait() before filling one");
  return impl_->slots[impl_->fill].boundary.get();
}

GraphSpan* CudaGraphMsfBatchSolver::graphs() {
  if (impl_->pending == 2) throw Error("CudaGraphMsfBatchSolver: both slots are in flight; wait() before filling one");
  return impl_->slots[impl_->fill].spans.get();
}

void CudaGraphMsfBatchSolver::submit(std::uint64_t graph_count, std::uint64_t edge_count,
                                     std::uint64_t vertex_count) {
  const char* what = "CudaGraphMsfBatchSolver";
  Impl& s = *impl_;
  if (s.pending == 2) throw Error(std::string(what) + ": both slots are in flight; wait() before submitting");
  if (graph_count > s.graph_capacity || edge_count > s.edge_capacity || vertex_count > s.vertex_capacity) {
    throw Error(std::string(what) + ": a batch of " + std::to_string(graph_count) + " graphs, " +
                std::to_string(edge_count) + " edges and " + std::to_string(vertex_count) +
                " vertices exceeds the capacities of " + std::to_string(s.graph_capacity) + " graphs, " +
                std::to_string(s.edge_capacity) + " edges and " + std::to_string(s.vertex_capacity) + " vertices");
  }
  Impl::Slot& slot = s.slots[s.fill];
  const cuda::GraphMsfPlan plan =
      cuda::plan_graphs(what, slot.spans.get(), graph_count, edge_count, vertex_count, slot.order.get());
  const cuda::GraphMsfDevice d = slot.device.device(s.vertex_capacity);
  cudaStream_t stream = slot.stream.get();
  slot.graphs = graph_count;
  slot.edges_used = edge_count;
  slot.vertices_used = vertex_count;
  slot.start.record(stream);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.edges.get(), slot.edges.get(), edge_count * sizeof(GraphEdge),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.boundary.get(), slot.boundary.get(), vertex_count,
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.spans.get(), slot.spans.get(), graph_count * sizeof(GraphSpan),
                                     cudaMemcpyHostToDevice, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.order.get(), slot.order.get(), graph_count * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice, stream));
  slot.kernels_start.record(stream);
  cuda::launch_graph_msf(d, plan, edge_count, stream, slot.tiers);
  slot.kernels_end.record(stream);
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.in_forest.get(), slot.device.in_forest.get(), edge_count,
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.summary.get(), slot.device.summary.get(),
                                     edge_count * sizeof(GraphSummaryEdge), cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.counts.get(), slot.device.counts.get(), graph_count * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost, stream));
  TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.status.get(), slot.device.status.get(), sizeof(cuda::GraphMsfStatus),
                                     cudaMemcpyDeviceToHost, stream));
  slot.end.record(stream);
  s.fill = 1 - s.fill;
  ++s.pending;
}

const CudaGraphMsfBatchSolver::Batch& CudaGraphMsfBatchSolver::wait() {
  Impl& s = *impl_;
  if (s.pending == 0) throw Error("CudaGraphMsfBatchSolver: wait() without a submitted batch");
  Impl::Slot& slot = s.slots[(s.fill + 2 - s.pending) % 2];
  slot.end.synchronize();
  --s.pending;
  cuda::throw_on_status("CudaGraphMsfBatchSolver", *slot.status.get());
  Batch& batch = slot.batch;
  batch.graphs = slot.graphs;
  batch.edges = slot.edges_used;
  batch.vertices = slot.vertices_used;
  batch.spans = slot.spans.get();
  batch.in_forest = slot.in_forest.get();
  batch.summary = slot.summary.get();
  batch.summary_count = slot.counts.get();
  batch.kernel_ms = slot.kernels_end.elapsed_since(slot.kernels_start);
  batch.total_ms = slot.end.elapsed_since(slot.start);
  return batch;
}

}  // namespace terrazo
