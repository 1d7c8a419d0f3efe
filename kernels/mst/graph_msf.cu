// kernels/mst/graph_msf.cu: the CUDA batched MSF + reduction, device side (contract:
// kernels/mst/graph_msf.h; CPU twin: kernels/mst/graph_msf_cpu.cpp; host batching: allocation,
// copies and result unpacking in kernels/mst/graph_msf_batch.cu), one thread block per graph.
//
// Source: [Gerritsen2012, sec. 3.1] (GPU Boruvka, one key per candidate, atomicMin per component,
// after [Harish2007]) and [Gerritsen2012, ch. 2, Observations 3-4] (dead ends, degree-2 paths); the
// reduction follows kernels/mst/block_reduce.cu (asynchronous leaf-peeling walkers, path walks).
//
// Per graph (m edges, n vertices), one __device__ function per step, separated by __syncthreads():
//  0. init_graph: in_forest = 0; summary slots = empty (a = b = kEmpty); parent[v] = v; best_w,
//     best_id, chosen = none.
//  1. boruvka_msf: rounds over a list of live edges (round 0: all edges, each validated: a != b,
//     both ends < n; a bad edge is reported and never used):
//     (A) boruvka_min_weight: roots ca, cb of the ends (find with path compression; no hooking
//         happens in this step); an edge with ca == cb is dead for good and dropped from the list,
//         else it is appended to the next list and atomicMin(best_w[c], weight) for c = ca, cb.
//     (B) boruvka_min_id: edges with weight == best_w[c]: atomicMin(best_id[c], id).
//     (C) boruvka_choose: the edge with (weight, id) == (best_w[c], best_id[c]) is c's choice:
//         atomicCAS(chosen[c]) (a second edge with the same key fails the CAS: duplicate key,
//         reported), other[c] = the other root; c joins the list of choosing roots.
//     (D) boruvka_hook: each choosing root c hooks: parent[c] = other[c], except the smaller root
//         of a mutual pair (both chose the same edge; keys are distinct, so no longer cycle
//         exists), which stays root; in_forest[chosen[c]] = 1.
//     (E) boruvka_jump: pointer jumping: every choosing root points to its final root; its best_w,
//         best_id and chosen are reset.
//     Rounds end when (A) finds no live edge: at most ceil(log2 n) + 1 rounds. The chosen edges
//     are the minimum spanning forest under the key order (cut property), i.e. Kruskal's
//     ([Kruskal1956]; docs/mst.md "The tree is unique").
//  2. build_incidence: degree[v] by atomicAdd over the forest edges, offsets by a block-wide
//     exclusive scan, entries (edge indices) by atomicAdd on a per-vertex cursor. Entry order
//     within a vertex depends on timing; nothing below depends on it.
//  3. peel_dead_ends ([Gerritsen2012, ch. 2, Observation 3]), asynchronous: every non-boundary
//     vertex of initial degree 1 starts a walker. A walker at v claims v's remaining edge with an
//     atomic test-and-set of the edge's removed bit (v has at most one edge left, so the first bit
//     it finds clear is that edge), then atomicSub's the remaining degree of both ends; the walker
//     whose atomicSub took a non-boundary vertex from 2 to 1 continues from it. Every degree drop
//     is seen by exactly one atomic, so the removed set is the unique fixpoint of sequential
//     peeling (graph_msf_cpu's).
//  4. walk_paths ([Gerritsen2012, ch. 2, Observation 4]): non-kept vertices with remaining degree
//     2 record their two remaining edges; then from every kept vertex (remaining degree >= 3, or
//     >= 1 and boundary) along each remaining edge one thread walks to the next kept vertex,
//     keeping the local index of the largest key; the walk from the smaller end writes {a, b, rep}
//     into summary slot rep (slots are distinct: paths are edge-disjoint).
//  5. compact_summary: order by rep: a block-wide prefix sum over the m slots, in edge order,
//     moves the filled slots to the front (in place: every target index is <= its source index).
// Impossible states (a cycle, a broken path, no convergence) and bad inputs set a status flag with
// the smallest graph index concerned; the host throws terrazo::Error.
//
// Launch (launch_graph_msf below; tiers in kernels/mst/graph_msf_launch.cuh): one block per graph
// of 64, 256 or 1024 threads by edge count, one stream per tier. Every loop strides over blockDim
// (kThreads, the template argument, equals blockDim.x); offsets into the batch are 64-bit; within a
// graph 32-bit (m <= 2^31 - 1 is checked by the host).
// Cost: O(m log n) work per graph for Boruvka (the live-edge list shrinks as edges become internal),
// O(m + n) for the rest; but one block per graph, and each dead-end branch and each path is walked
// by one thread, so a graph's time grows with its longest peeled chain and longest path.
#include <algorithm>

#include "kernels/common/block_scan.cuh"
#include "kernels/common/block_solvers.cuh"
#include "kernels/mst/graph_msf_launch.cuh"

namespace terrazo {
namespace cuda {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // a summary slot not written (a == b is never an output)
constexpr std::uint32_t kMaxRounds = 64;       // Boruvka needs at most 33 for n < 2^32

// ---- helpers -----------------------------------------------------------------------------------

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

// ---- one graph's view of the batch -------------------------------------------------------------

// The slices of the batch that belong to graph g (its span), and the batch-wide arrays it shares.
// The reduction (steps 2-4) reuses the Boruvka arrays under other names: offset (parent), end
// (best_w, the fill cursor), degree (chosen), incident (list_a and list_b: 2m entries), two (best_id).
struct GraphView {
  std::uint64_t g;                      // graph index in the batch
  std::uint64_t fe;                     // first edge (batch-wide): removed bit of local edge e is fe + e
  std::uint32_t m, n;                   // edges, vertices
  const GraphEdge* edges;               // m
  const std::uint8_t* boundary;         // n
  std::uint8_t* in_forest;              // m
  GraphSummaryEdge* slots;              // m summary slots
  std::uint32_t* list_a;                // m: live edges, alternating with list_b
  std::uint32_t* list_b;                // m
  unsigned long long* best_id;          // n
  std::uint32_t* parent;                // n
  std::uint32_t* best_w;                // n
  std::uint32_t* chosen;                // n
  std::uint32_t* other;                 // n
  std::uint32_t* roots;                 // n: the choosing roots of a round
  unsigned int* removed;                // batch-wide removed bits
  GraphMsfStatus* status;
};

// Block-shared state of the Boruvka rounds.
struct BoruvkaShared {
  std::uint32_t next;   // live edges appended to the next list by (A)
  std::uint32_t roots;  // choosing roots appended by (C)
  int abort;            // set by any thread that met an impossible state
};

__device__ __forceinline__ GraphView graph_view(std::uint64_t g, const GraphSpan& span, const GraphEdge* d_edges,
                                                const std::uint8_t* d_boundary, std::uint8_t* d_in_forest,
                                                GraphSummaryEdge* d_summary, std::uint32_t* d_edge_scratch,
                                                unsigned int* d_removed, const GraphVertexScratch& scratch,
                                                GraphMsfStatus* d_status) {
  const std::uint64_t fe = span.first_edge, fv = span.first_vertex;
  GraphView v;
  v.g = g;
  v.fe = fe;
  v.m = span.edges;
  v.n = span.vertices;
  v.edges = d_edges + fe;
  v.boundary = d_boundary + fv;
  v.in_forest = d_in_forest + fe;
  v.slots = d_summary + fe;
  v.list_a = d_edge_scratch + 2 * fe;
  v.list_b = v.list_a + v.m;
  v.best_id = scratch.best_id + fv;
  v.parent = scratch.parent + fv;
  v.best_w = scratch.best_w + fv;
  v.chosen = scratch.chosen + fv;
  v.other = scratch.other + fv;
  v.roots = scratch.roots + fv;
  v.removed = d_removed;
  v.status = d_status;
  return v;
}

// ---- 0. init -----------------------------------------------------------------------------------

// Step 0: empty outputs, every vertex its own root with no candidate. Ends with a barrier.
template <unsigned kThreads>
__device__ __forceinline__ void init_graph(const GraphView& G, BoruvkaShared& s) {
  const unsigned tid = threadIdx.x;
  for (std::uint32_t i = tid; i < G.m; i += kThreads) {
    G.in_forest[i] = 0;
    G.slots[i] = GraphSummaryEdge{kEmpty, kEmpty, 0};
  }
  for (std::uint32_t v = tid; v < G.n; v += kThreads) {
    G.parent[v] = v;
    G.best_w[v] = kNone;
    G.best_id[v] = ~0ull;
    G.chosen[v] = kNone;
  }
  if (tid == 0) s.abort = 0;
  __syncthreads();
}

// ---- 1. Boruvka ([Gerritsen2012, sec. 3.1], [Boruvka1926]) ------------------------------------

// (A): the live edges of this round (round 0: all, validated) into `out`, and the minimum weight
// at each root. No barrier inside; every thread runs the same trip count (warp_append).
template <unsigned kThreads>
__device__ __forceinline__ void boruvka_min_weight(const GraphView& G, std::uint32_t round, const std::uint32_t* in,
                                                   std::uint32_t live, std::uint32_t* out, std::uint32_t* s_next,
                                                   bool* broken) {
  const unsigned tid = threadIdx.x;
  for (std::uint32_t start = 0; start < live; start += kThreads) {
    const std::uint32_t i = start + tid;
    bool keep = false;
    std::uint32_t e = kNone;
    if (i < live) {
      e = round == 0 ? i : in[i];
      const GraphEdge edge = G.edges[e];
      if (round == 0 && (edge.a >= G.n || edge.b >= G.n || edge.a == edge.b)) {
        report(G.status, kGraphBadEdge, G.g);
      } else {
        const std::uint32_t ca = find_root(G.parent, edge.a, G.n, broken);
        const std::uint32_t cb = find_root(G.parent, edge.b, G.n, broken);
        if (ca != cb) {
          keep = true;
          atomicMin(&G.best_w[ca], edge.weight);
          atomicMin(&G.best_w[cb], edge.weight);
        }
      }
    }
    warp_append(keep, e, out, s_next);
  }
}

// (B): among the live edges of minimum weight at a root, the minimum id.
template <unsigned kThreads>
__device__ __forceinline__ void boruvka_min_id(const GraphView& G, const std::uint32_t* live_list, std::uint32_t live,
                                               bool* broken) {
  for (std::uint32_t i = threadIdx.x; i < live; i += kThreads) {
    const GraphEdge edge = G.edges[live_list[i]];
    const std::uint32_t ca = find_root(G.parent, edge.a, G.n, broken);
    const std::uint32_t cb = find_root(G.parent, edge.b, G.n, broken);
    if (G.best_w[ca] == edge.weight) atomicMin(&G.best_id[ca], static_cast<unsigned long long>(edge.id));
    if (G.best_w[cb] == edge.weight) atomicMin(&G.best_id[cb], static_cast<unsigned long long>(edge.id));
  }
}

// Whether edge `e` (`edge`, between roots `root` and `other`) holds `root`'s minimum key and so is its
// choice: then G.chosen and G.other of `root` take it. Two edges of one key are a duplicate key
// (reported; `broken`).
__device__ __forceinline__ bool choose_edge(const GraphView& G, std::uint32_t e, const GraphEdge& edge,
                                            std::uint32_t root, std::uint32_t other, bool* broken) {
  if (G.best_w[root] != edge.weight || G.best_id[root] != static_cast<unsigned long long>(edge.id)) return false;
  if (atomicCAS(&G.chosen[root], kNone, e) != kNone) {
    report(G.status, kGraphDuplicateKey, G.g);
    *broken = true;
    return false;
  }
  G.other[root] = other;
  return true;
}

// (C): the edge holding a root's minimum key is its choice; the choosing roots go to G.roots.
// Every thread runs the same trip count (warp_append).
template <unsigned kThreads>
__device__ __forceinline__ void boruvka_choose(const GraphView& G, const std::uint32_t* live_list, std::uint32_t live,
                                               std::uint32_t* s_roots, bool* broken) {
  const unsigned tid = threadIdx.x;
  for (std::uint32_t start = 0; start < live; start += kThreads) {
    const std::uint32_t i = start + tid;
    std::uint32_t ca = kNone, cb = kNone;
    bool take_a = false, take_b = false;
    if (i < live) {
      const std::uint32_t e = live_list[i];
      const GraphEdge edge = G.edges[e];
      ca = find_root(G.parent, edge.a, G.n, broken);
      cb = find_root(G.parent, edge.b, G.n, broken);
      take_a = choose_edge(G, e, edge, ca, cb, broken);
      take_b = choose_edge(G, e, edge, cb, ca, broken);
    }
    warp_append(take_a, ca, G.roots, s_roots);
    warp_append(take_b, cb, G.roots, s_roots);
  }
}

// (D): every choosing root hooks onto the other root of its edge (the smaller root of a mutual
// pair stays root), and its edge joins the forest.
template <unsigned kThreads>
__device__ __forceinline__ void boruvka_hook(const GraphView& G, std::uint32_t choosing) {
  for (std::uint32_t k = threadIdx.x; k < choosing; k += kThreads) {
    const std::uint32_t c = G.roots[k];
    const std::uint32_t e = G.chosen[c];
    const std::uint32_t o = G.other[c];
    const bool mutual = G.chosen[o] == e;
    G.parent[c] = (mutual && c < o) ? c : o;
    G.in_forest[e] = 1;
  }
}

// (E): pointer jumping from every choosing root to its final root; its candidate is reset.
// Concurrent jumps only ever store final roots, so any pointer read is on the way up.
template <unsigned kThreads>
__device__ __forceinline__ void boruvka_jump(const GraphView& G, std::uint32_t choosing, bool* broken) {
  volatile std::uint32_t* vparent = G.parent;
  for (std::uint32_t k = threadIdx.x; k < choosing; k += kThreads) {
    const std::uint32_t c = G.roots[k];
    std::uint32_t p = vparent[c];
    std::uint32_t steps = 0;
    for (;;) {
      const std::uint32_t pp = vparent[p];
      if (pp == p) break;
      p = pp;
      if (++steps > G.n) {
        *broken = true;
        break;
      }
    }
    vparent[c] = p;
    G.best_w[c] = kNone;
    G.best_id[c] = ~0ull;
    G.chosen[c] = kNone;
  }
}

// Step 1: Boruvka rounds (A)-(E) with a barrier after each step, until no live edge is left.
// Returns false (block-uniform) when the graph met an impossible state; it is then reported.
template <unsigned kThreads>
__device__ __forceinline__ bool boruvka_msf(const GraphView& G, BoruvkaShared& s) {
  const unsigned tid = threadIdx.x;
  std::uint32_t live = G.m;
  std::uint32_t* in = G.list_a;  // unused in round 0 (the identity list)
  std::uint32_t* out = G.list_b;
  for (std::uint32_t round = 0;; ++round) {
    if (tid == 0) {
      s.next = 0;
      s.roots = 0;
    }
    __syncthreads();
    bool broken = false;
    boruvka_min_weight<kThreads>(G, round, in, live, out, &s.next, &broken);
    if (broken) {
      report(G.status, kGraphBrokenForest, G.g);
      s.abort = 1;
    }
    __syncthreads();
    live = s.next;
    if (s.abort != 0) return false;
    if (live == 0) return true;
    if (round >= kMaxRounds) {
      if (tid == 0) report(G.status, kGraphBrokenForest, G.g);
      return false;
    }
    boruvka_min_id<kThreads>(G, out, live, &broken);
    __syncthreads();
    boruvka_choose<kThreads>(G, out, live, &s.roots, &broken);
    if (broken) s.abort = 1;
    __syncthreads();
    if (s.abort != 0) return false;
    const std::uint32_t choosing = s.roots;
    boruvka_hook<kThreads>(G, choosing);
    __syncthreads();
    boruvka_jump<kThreads>(G, choosing, &broken);
    if (broken) {
      report(G.status, kGraphBrokenForest, G.g);
      s.abort = 1;
    }
    __syncthreads();
    if (s.abort != 0) return false;
    in = out;
    out = out == G.list_b ? G.list_a : G.list_b;
  }
}

// ---- 2-5. reduction ----------------------------------------------------------------------------

// Step 2: the forest's incidence in CSR form: vertex v's entries are incident[offset[v] .. end[v]).
// Ends with a barrier.
template <unsigned kThreads>
__device__ __forceinline__ void build_incidence(const GraphView& G) {
  const unsigned tid = threadIdx.x;
  std::uint32_t* offset = G.parent;
  std::uint32_t* end = G.best_w;
  std::uint32_t* degree = G.chosen;
  std::uint32_t* incident = G.list_a;  // 2m entries: both lists
  for (std::uint32_t v = tid; v < G.n; v += kThreads) degree[v] = 0;
  __syncthreads();
  for (std::uint32_t i = tid; i < G.m; i += kThreads) {
    if (!G.in_forest[i]) continue;
    const GraphEdge edge = G.edges[i];
    atomicAdd(&degree[edge.a], 1u);
    atomicAdd(&degree[edge.b], 1u);
  }
  __syncthreads();
  std::uint32_t base = 0;
  for (std::uint32_t start = 0; start < G.n; start += kThreads) {
    const std::uint32_t v = start + tid;
    const std::uint32_t d = v < G.n ? degree[v] : 0u;
    std::uint32_t total = 0;
    const std::uint32_t before = block_exclusive_scan(d, &total);
    if (v < G.n) {
      offset[v] = base + before;
      end[v] = base + before;
    }
    base += total;
  }
  __syncthreads();
  for (std::uint32_t i = tid; i < G.m; i += kThreads) {
    if (!G.in_forest[i]) continue;
    const GraphEdge edge = G.edges[i];
    incident[atomicAdd(&end[edge.a], 1u)] = i;
    incident[atomicAdd(&end[edge.b], 1u)] = i;
  }
  __syncthreads();
}

// Step 3: dead ends peeled by walkers from the non-boundary leaves; degree[] becomes the remaining
// degree and the removed bits mark the peeled edges. Ends with a barrier.
template <unsigned kThreads>
__device__ __forceinline__ void peel_dead_ends(const GraphView& G) {
  const std::uint32_t* offset = G.parent;
  const std::uint32_t* end = G.best_w;
  std::uint32_t* degree = G.chosen;
  const std::uint32_t* incident = G.list_a;
  for (std::uint32_t start = threadIdx.x; start < G.n; start += kThreads) {
    if (G.boundary[start] || end[start] - offset[start] != 1) continue;
    std::uint32_t v = start;
    for (;;) {
      std::uint32_t e = kNone;
      for (std::uint32_t k = offset[v]; k < end[v]; ++k) {
        if (claim_edge(G.removed, G.fe + incident[k])) {
          e = incident[k];
          break;
        }
      }
      if (e == kNone) break;  // its partner leaf took the last edge
      atomicSub(&degree[v], 1u);
      const GraphEdge edge = G.edges[e];
      const std::uint32_t u = edge.a == v ? edge.b : edge.a;
      const std::uint32_t before = atomicSub(&degree[u], 1u);
      if (before != 2 || G.boundary[u]) break;
      v = u;  // u just became a non-boundary leaf, and only this walker saw it happen
    }
  }
  __syncthreads();
}

// Step 4: one summary edge per maximal path between kept vertices, in summary slot rep. First the
// two remaining edges of every non-kept vertex of remaining degree 2, then the walks. Ends with a
// barrier.
template <unsigned kThreads>
__device__ __forceinline__ void walk_paths(const GraphView& G) {
  const unsigned tid = threadIdx.x;
  const std::uint32_t* offset = G.parent;
  const std::uint32_t* end = G.best_w;
  const std::uint32_t* degree = G.chosen;
  const std::uint32_t* incident = G.list_a;
  unsigned long long* two = G.best_id;
  bool broken = false;
  for (std::uint32_t v = tid; v < G.n; v += kThreads) {
    if (degree[v] != 2 || G.boundary[v]) continue;
    std::uint32_t e0 = kNone, e1 = kNone;
    std::uint32_t count = 0;
    for (std::uint32_t k = offset[v]; k < end[v]; ++k) {
      const std::uint32_t e = incident[k];
      if (edge_removed(G.removed, G.fe + e)) continue;
      if (count == 0) e0 = e;
      if (count == 1) e1 = e;
      ++count;
    }
    if (count != 2) broken = true;
    two[v] = static_cast<unsigned long long>(e0) | (static_cast<unsigned long long>(e1) << 32);
  }
  __syncthreads();
  auto kept = [&](std::uint32_t v) { return degree[v] >= 3 || (degree[v] >= 1 && G.boundary[v]); };
  for (std::uint32_t v = tid; v < G.n; v += kThreads) {
    if (!kept(v)) continue;
    for (std::uint32_t k = offset[v]; k < end[v]; ++k) {
      const std::uint32_t first = incident[k];
      if (edge_removed(G.removed, G.fe + first)) continue;
      std::uint32_t rep = first, previous = first;
      GraphEdge rep_edge = G.edges[first];
      std::uint32_t current = rep_edge.a == v ? rep_edge.b : rep_edge.a;
      std::uint32_t steps = 0;
      bool ok = true;
      while (!kept(current)) {
        if (degree[current] != 2 || ++steps > G.n) {
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
        const GraphEdge edge = G.edges[next];
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
      if (v < current) G.slots[rep] = GraphSummaryEdge{v, current, rep};
    }
  }
  if (broken) report(G.status, kGraphBrokenForest, G.g);
  __syncthreads();
}

// Step 5: the filled summary slots moved to the front, in edge order (= sorted by rep). Returns
// their number (block-uniform).
template <unsigned kThreads>
__device__ __forceinline__ std::uint32_t compact_summary(const GraphView& G) {
  std::uint32_t written = 0;
  for (std::uint32_t start = 0; start < G.m; start += kThreads) {
    const std::uint32_t i = start + threadIdx.x;
    GraphSummaryEdge item{kEmpty, kEmpty, 0};
    if (i < G.m) item = G.slots[i];
    const bool filled = item.a != kEmpty;
    std::uint32_t total = 0;
    const std::uint32_t before = block_exclusive_scan(filled ? 1u : 0u, &total);  // all reads done
    if (filled) G.slots[written + before] = item;
    written += total;
  }
  return written;
}

// ---- the kernel --------------------------------------------------------------------------------

// One block per graph: d_order[first_order + blockIdx.x] names it. One block per SM is enough for
// the 1024-thread tier (few, large graphs): let it use 64 registers.
template <unsigned kThreads>
static __global__ void __launch_bounds__(kThreads, kThreads >= 1024 ? 1 : 2048 / kThreads / 2)
    solve_graph_msf(const GraphEdge* __restrict__ d_edges, const std::uint8_t* __restrict__ d_boundary,
                    const GraphSpan* __restrict__ d_spans, const std::uint64_t* __restrict__ d_order,
                    std::uint64_t first_order, std::uint8_t* __restrict__ d_in_forest,
                    GraphSummaryEdge* __restrict__ d_summary, std::uint32_t* __restrict__ d_counts,
                    std::uint32_t* __restrict__ d_edge_scratch, unsigned int* __restrict__ d_removed,
                    GraphVertexScratch scratch, GraphMsfStatus* __restrict__ d_status) {
  __shared__ BoruvkaShared s_boruvka;
  const std::uint64_t g = d_order[first_order + blockIdx.x];
  const GraphView G = graph_view(g, d_spans[g], d_edges, d_boundary, d_in_forest, d_summary, d_edge_scratch,
                                 d_removed, scratch, d_status);
  init_graph<kThreads>(G, s_boruvka);
  if (!boruvka_msf<kThreads>(G, s_boruvka)) {
    if (threadIdx.x == 0) d_counts[g] = 0;
    return;
  }
  build_incidence<kThreads>(G);
  peel_dead_ends<kThreads>(G);
  walk_paths<kThreads>(G);
  const std::uint32_t written = compact_summary<kThreads>(G);
  if (threadIdx.x == 0) d_counts[g] = written;
}

template <unsigned kThreads>
void launch_tier(const GraphMsfDevice& d, std::uint64_t begin, std::uint64_t end, cudaStream_t stream) {
  launch_in_chunks(begin, end, [&](std::uint64_t first, unsigned count) {
    solve_graph_msf<kThreads><<<count, kThreads, 0, stream>>>(d.edges, d.boundary, d.spans, d.order, first,
                                                              d.in_forest, d.summary, d.counts, d.edge_scratch,
                                                              d.removed, d.vertices, d.status);
  });
}

}  // namespace

void launch_graph_msf(const GraphMsfDevice& d, const GraphMsfPlan& plan, std::uint64_t edge_count,
                      cudaStream_t stream, GraphTierStreams& tiers) {
  static_assert(kGraphTierThreads[0] == 64 && kGraphTierThreads[1] == 256 && kGraphTierThreads[2] == 1024,
                "tiers below");
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(d.removed, 0, graph_removed_words(edge_count) * sizeof(unsigned int), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(&d.status->flags, 0, sizeof(unsigned int), stream));
  TERRAZO_CUDA_CHECK(cudaMemsetAsync(&d.status->graph, 0xFF, sizeof(unsigned long long), stream));
  tiers.fork.record(stream);
  // Largest graphs first: a big graph's block starts before the small ones fill the machine.
  for (int k = kGraphTiers - 1; k >= 0; --k) {
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

}  // namespace cuda
}  // namespace terrazo
