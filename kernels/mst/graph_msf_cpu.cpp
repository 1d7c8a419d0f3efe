// kernels/mst/graph_msf_cpu.cpp: the CPU twin of the batched MSF + reduction (contract: kernels/mst/graph_msf.h).
//
// Per graph, sequentially ([Gerritsen2012, ch. 2, Observations 2-4]; the same steps as
// engine/mst/merge_step.cpp's merge_clusters + reduce_forest, on local indices):
//  1. Validation: every edge has a != b and both ends below the graph's vertex count; keys are
//     distinct within the graph (checked on the sorted order); spans do not overflow 64 bits.
//  2. Kruskal: edge indices sorted by key (weight, id); union-find (path halving, union by size)
//     accepts an edge iff its ends are in different sets; in_forest[e] = accepted.
//  3. Incidence of the forest in CSR form (vertex v owns entries offset[v] .. offset[v+1]).
//  4. Dead ends: a stack of non-boundary vertices of degree 1; popping one removes its last edge
//     and pushes the other end when that end is a non-boundary vertex whose degree dropped to 1.
//     The result is the unique fixpoint: an edge is removed iff one side of it holds no boundary
//     vertex.
//  5. Paths: kept vertices have remaining degree >= 3, or >= 1 and are boundary vertices. From each
//     kept vertex in increasing index, along each remaining edge, walk through the non-kept
//     vertices (remaining degree exactly 2) to the next kept vertex, erasing the edges walked and
//     keeping the index of the largest key; one summary edge per walk, so each path once.
//  6. Sort the graph's summary edges by rep (distinct: paths are edge-disjoint).
// Cost per graph: O(m log m + n) time; scratch (reused across graphs of one call): 5 bytes per edge
// (sort order, removed flag) + 20 bytes per vertex (union-find, sizes, CSR offsets, degrees) + 12
// bytes per forest edge (the list and its two incidence entries) + the graph's summary.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/union_find.h"
#include "kernels/mst/graph_msf.h"

namespace terrazo {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

struct MsfScratch {
  std::vector<std::uint32_t> order;      // edge indices in key order
  std::vector<std::uint32_t> parent;     // union-find
  std::vector<std::uint32_t> size;       // union-find set sizes (roots only)
  std::vector<std::uint32_t> forest;     // forest edge indices
  std::vector<std::uint64_t> offset;     // CSR offsets, n + 1
  std::vector<std::uint32_t> incident;   // CSR entries: edge indices
  std::vector<std::uint32_t> degree;     // remaining forest degree
  std::vector<std::uint8_t> removed;     // per edge: peeled or walked
  std::vector<std::uint32_t> stack;      // leaves to peel
  std::vector<GraphSummaryEdge> out;     // the graph's summary before sorting
};

std::string graph_name(std::uint64_t g) { return "graph_msf_cpu: graph " + std::to_string(g); }

void validate_span(const GraphSpan& span, std::uint64_t g, const GraphEdge* edges, const std::uint8_t* boundary) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  if (span.first_edge > max - span.edges) {
    throw Error(graph_name(g) + ": edge span " + std::to_string(span.first_edge) + " + " +
                std::to_string(span.edges) + " overflows 64 bits");
  }
  if (span.first_vertex > max - span.vertices) {
    throw Error(graph_name(g) + ": vertex span " + std::to_string(span.first_vertex) + " + " +
                std::to_string(span.vertices) + " overflows 64 bits");
  }
  if (span.edges > 0 && edges == nullptr) throw Error(graph_name(g) + ": has edges but the edge array is null");
  if (span.vertices > 0 && boundary == nullptr) {
    throw Error(graph_name(g) + ": has vertices but the boundary array is null");
  }
}

// One graph of the batch on local indices: its edges, boundary flags and sizes.
struct LocalGraph {
  const GraphEdge* e;
  const std::uint8_t* bnd;
  std::uint32_t m, n;
  std::uint64_t g;  // its index in the batch, for the errors

  std::uint32_t other_end(std::uint32_t i, std::uint32_t v) const { return e[i].a == v ? e[i].b : e[i].a; }
};

// Step 1: both ends below n, no loops.
void validate_edges(const LocalGraph& G) {
  const GraphEdge* e = G.e;
  for (std::uint32_t i = 0; i < G.m; ++i) {
    if (e[i].a >= G.n || e[i].b >= G.n) {
      throw Error(graph_name(G.g) + ", edge " + std::to_string(i) + ": end " +
                  std::to_string(std::max(e[i].a, e[i].b)) + " is not below the graph's " + std::to_string(G.n) +
                  " vertices");
    }
    if (e[i].a == e[i].b) {
      throw Error(graph_name(G.g) + ", edge " + std::to_string(i) + ": a loop at vertex " + std::to_string(e[i].a) +
                  " (a == b)");
    }
  }
}

// Step 2: s.order by key (distinct keys checked), Kruskal into chosen[] and s.forest.
void kruskal_forest(const LocalGraph& G, std::uint8_t* chosen, MsfScratch& s) {
  const GraphEdge* e = G.e;
  s.order.resize(G.m);
  std::iota(s.order.begin(), s.order.end(), 0u);
  std::sort(s.order.begin(), s.order.end(),
            [e](std::uint32_t p, std::uint32_t q) { return graph_edge_key_less(e[p], e[q]); });
  for (std::uint32_t k = 1; k < G.m; ++k) {
    const GraphEdge& p = e[s.order[k - 1]];
    const GraphEdge& q = e[s.order[k]];
    if (p.weight == q.weight && p.id == q.id) {
      throw Error(graph_name(G.g) + ": edges " + std::to_string(s.order[k - 1]) + " and " +
                  std::to_string(s.order[k]) + " have the same key (weight " + std::to_string(p.weight) + ", id " +
                  std::to_string(p.id) + "); keys must be distinct within a graph");
    }
  }
  s.parent.resize(G.n);
  std::iota(s.parent.begin(), s.parent.end(), 0u);
  s.size.assign(G.n, 1u);
  s.forest.clear();
  if (G.m) std::memset(chosen, 0, G.m);  // chosen may be null when there is no edge (memset(nullptr, 0, 0) is undefined)
  for (const std::uint32_t i : s.order) {
    std::uint32_t ra = union_find_root(s.parent.data(), e[i].a), rb = union_find_root(s.parent.data(), e[i].b);
    if (ra == rb) continue;
    if (s.size[ra] < s.size[rb]) std::swap(ra, rb);
    s.parent[rb] = ra;
    s.size[ra] += s.size[rb];
    chosen[i] = 1;
    s.forest.push_back(i);
  }
}

// Step 3: the forest's incidence in CSR form (s.offset, s.incident), the degrees, no edge removed.
void build_incidence(const LocalGraph& G, MsfScratch& s) {
  const GraphEdge* e = G.e;
  const std::uint32_t n = G.n;
  s.offset.assign(static_cast<std::size_t>(n) + 1, 0);
  for (const std::uint32_t i : s.forest) {
    ++s.offset[e[i].a + 1];
    ++s.offset[e[i].b + 1];
  }
  for (std::uint32_t v = 0; v < n; ++v) s.offset[v + 1] += s.offset[v];
  s.incident.resize(s.offset[n]);
  s.degree.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) s.degree[v] = static_cast<std::uint32_t>(s.offset[v + 1] - s.offset[v]);
  std::vector<std::uint64_t>& cursor = s.offset;  // advanced per entry, restored below
  for (const std::uint32_t i : s.forest) {
    s.incident[cursor[e[i].a]++] = i;
    s.incident[cursor[e[i].b]++] = i;
  }
  for (std::uint32_t v = n; v > 0; --v) cursor[v] = cursor[v - 1];  // cursor[v-1] is now v's end
  cursor[0] = 0;
  s.removed.assign(G.m, 0);
}

// v's first incident forest edge not removed, or kNone.
std::uint32_t next_edge(const MsfScratch& s, std::uint32_t v) {
  for (std::uint64_t k = s.offset[v]; k < s.offset[v + 1]; ++k)
    if (!s.removed[s.incident[k]]) return s.incident[k];
  return kNone;
}

// Step 4: peels the non-boundary leaves until none is left.
void peel_dead_ends(const LocalGraph& G, MsfScratch& s) {
  s.stack.clear();
  for (std::uint32_t v = 0; v < G.n; ++v)
    if (s.degree[v] == 1 && !G.bnd[v]) s.stack.push_back(v);
  while (!s.stack.empty()) {
    const std::uint32_t v = s.stack.back();
    s.stack.pop_back();
    if (s.degree[v] != 1) continue;  // its partner leaf took the last edge
    const std::uint32_t i = next_edge(s, v);
    s.removed[i] = 1;
    s.degree[v] = 0;
    const std::uint32_t u = G.other_end(i, v);
    if (--s.degree[u] == 1 && !G.bnd[u]) s.stack.push_back(u);
  }
}

// Step 5: one summary edge (ends, largest key's index) per path between kept vertices, into s.out.
void walk_paths(const LocalGraph& G, MsfScratch& s) {
  auto kept = [&s, &G](std::uint32_t v) { return s.degree[v] >= 3 || (s.degree[v] >= 1 && G.bnd[v]); };
  s.out.clear();
  for (std::uint32_t v = 0; v < G.n; ++v) {
    if (!kept(v)) continue;
    for (std::uint32_t i = next_edge(s, v); i != kNone; i = next_edge(s, v)) {
      std::uint32_t rep = i;
      s.removed[i] = 1;
      std::uint32_t current = G.other_end(i, v);
      while (!kept(current)) {
        const std::uint32_t next = next_edge(s, current);
        if (next == kNone) throw Error(graph_name(G.g) + ": broken forest path (internal error)");
        if (graph_edge_key_less(G.e[rep], G.e[next])) rep = next;
        s.removed[next] = 1;
        current = G.other_end(next, current);
      }
      s.out.push_back(GraphSummaryEdge{std::min(v, current), std::max(v, current), rep});
    }
  }
}

void solve_graph(const GraphEdge* edges, const std::uint8_t* boundary, const GraphSpan& span, std::uint64_t g,
                 std::uint8_t* in_forest, GraphSummaryEdge* summary, std::uint32_t* summary_count,
                 MsfScratch& s) {
  const LocalGraph G{edges + span.first_edge, boundary + span.first_vertex, static_cast<std::uint32_t>(span.edges),
                     static_cast<std::uint32_t>(span.vertices), g};
  validate_edges(G);
  kruskal_forest(G, in_forest + span.first_edge, s);
  build_incidence(G, s);
  peel_dead_ends(G, s);
  walk_paths(G, s);
  // 6. Order by rep.
  std::sort(s.out.begin(), s.out.end(),
            [](const GraphSummaryEdge& p, const GraphSummaryEdge& q) { return p.rep < q.rep; });
  std::copy(s.out.begin(), s.out.end(), summary + span.first_edge);
  *summary_count = static_cast<std::uint32_t>(s.out.size());
}

}  // namespace

void graph_msf_cpu(const GraphEdge* edges, const std::uint8_t* boundary, const GraphSpan* graphs,
                   std::uint64_t graph_count, std::uint8_t* in_forest, GraphSummaryEdge* summary,
                   std::uint32_t* summary_count) {
  if (graph_count == 0) return;
  if (graphs == nullptr || summary_count == nullptr) {
    throw Error("graph_msf_cpu: " + std::to_string(graph_count) + " graphs but a null span or count array");
  }
  MsfScratch scratch;
  for (std::uint64_t g = 0; g < graph_count; ++g) {
    const GraphSpan& span = graphs[g];
    validate_span(span, g, edges, boundary);
    if (span.edges > 0 && (in_forest == nullptr || summary == nullptr)) {
      throw Error(graph_name(g) + ": has edges but the in_forest or summary array is null");
    }
    solve_graph(edges, boundary, span, g, in_forest, summary, summary_count + g, scratch);
  }
}

}  // namespace terrazo
