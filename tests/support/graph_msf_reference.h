// tests/support/graph_msf_reference.h: random graph batches and a plain oracle for the batched
// MSF + reduction (kernels/mst/graph_msf.h); header-only, so the GPU test executable (kernels only)
// uses the same generators as tests/test_graph_msf.cpp.
//
// The oracle is deliberately independent of graph_msf_cpu:
//  - forest: Prim's algorithm per component (lazy, binary heap on the key (weight, id)); keys are
//    distinct, so the MSF is unique and equals Kruskal's;
//  - for small graphs, the cycle property checked edge by edge: e is in the MSF iff its ends are not
//    connected by edges of smaller key (breadth-first search);
//  - reduction: leaves removed by repeated scans over all vertices until none changes; then every
//    remaining edge not yet covered grows into its path in both directions through non-kept
//    vertices; rep = the path's maximum-key edge; sorted by rep.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/mst/graph_msf.h"

namespace terrazo::testing {

struct GraphCase {
  std::vector<GraphEdge> edges;
  std::vector<std::uint8_t> boundary;  // one byte per vertex
  std::string description;
  std::uint32_t vertices() const { return static_cast<std::uint32_t>(boundary.size()); }
};

struct GraphOutput {
  std::vector<std::uint8_t> in_forest;
  std::vector<GraphSummaryEdge> summary;
};

inline bool same_summary(const GraphSummaryEdge& p, const GraphSummaryEdge& q) {
  return p.a == q.a && p.b == q.b && p.rep == q.rep;
}

// ---- oracle ------------------------------------------------------------------------------------

inline std::vector<std::uint8_t> prim_forest(const GraphCase& c) {
  const std::uint32_t n = c.vertices();
  const std::vector<GraphEdge>& e = c.edges;
  std::vector<std::vector<std::uint32_t>> adjacent(n);
  for (std::uint32_t i = 0; i < e.size(); ++i) {
    adjacent[e[i].a].push_back(i);
    adjacent[e[i].b].push_back(i);
  }
  auto greater = [&e](std::uint32_t p, std::uint32_t q) { return graph_edge_key_less(e[q], e[p]); };
  std::vector<std::uint8_t> in(e.size(), 0), visited(n, 0);
  for (std::uint32_t root = 0; root < n; ++root) {
    if (visited[root]) continue;
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(greater)> heap(greater);
    visited[root] = 1;
    for (const std::uint32_t i : adjacent[root]) heap.push(i);
    while (!heap.empty()) {
      const std::uint32_t i = heap.top();
      heap.pop();
      const std::uint32_t v = visited[e[i].a] ? e[i].b : e[i].a;
      if (visited[v]) continue;
      visited[v] = 1;
      in[i] = 1;
      for (const std::uint32_t j : adjacent[v])
        if (!visited[e[j].a] || !visited[e[j].b]) heap.push(j);
    }
  }
  return in;
}

// The cycle property, edge by edge: O(m (n + m)); for small graphs.
inline std::vector<std::uint8_t> cycle_property_forest(const GraphCase& c) {
  const std::uint32_t n = c.vertices();
  const std::vector<GraphEdge>& e = c.edges;
  std::vector<std::uint8_t> in(e.size(), 0);
  std::vector<std::vector<std::uint32_t>> adjacent(n);
  for (std::uint32_t i = 0; i < e.size(); ++i) {
    adjacent[e[i].a].push_back(i);
    adjacent[e[i].b].push_back(i);
  }
  std::vector<std::uint8_t> seen(n);
  std::vector<std::uint32_t> queue;
  for (std::uint32_t i = 0; i < e.size(); ++i) {
    std::fill(seen.begin(), seen.end(), 0);
    queue.assign(1, e[i].a);
    seen[e[i].a] = 1;
    for (std::size_t head = 0; head < queue.size() && !seen[e[i].b]; ++head) {
      const std::uint32_t v = queue[head];
      for (const std::uint32_t j : adjacent[v]) {
        if (!graph_edge_key_less(e[j], e[i])) continue;
        const std::uint32_t u = e[j].a == v ? e[j].b : e[j].a;
        if (!seen[u]) {
          seen[u] = 1;
          queue.push_back(u);
        }
      }
    }
    in[i] = seen[e[i].b] ? 0 : 1;
  }
  return in;
}

inline std::vector<GraphSummaryEdge> naive_reduction(const GraphCase& c, const std::vector<std::uint8_t>& in_forest) {
  const std::uint32_t n = c.vertices();
  const std::vector<GraphEdge>& e = c.edges;
  std::vector<std::uint8_t> alive(in_forest);
  std::vector<std::uint32_t> degree(n, 0);
  for (std::uint32_t i = 0; i < e.size(); ++i)
    if (alive[i]) ++degree[e[i].a], ++degree[e[i].b];
  std::vector<std::vector<std::uint32_t>> adjacent(n);
  for (std::uint32_t i = 0; i < e.size(); ++i)
    if (alive[i]) adjacent[e[i].a].push_back(i), adjacent[e[i].b].push_back(i);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (c.boundary[v] || degree[v] != 1) continue;
      for (const std::uint32_t i : adjacent[v]) {
        if (!alive[i]) continue;
        alive[i] = 0;
        --degree[e[i].a];
        --degree[e[i].b];
        changed = true;
        break;
      }
    }
  }
  auto kept = [&](std::uint32_t v) { return degree[v] >= 3 || (degree[v] >= 1 && c.boundary[v]); };
  std::vector<std::uint8_t> covered(e.size(), 0);
  std::vector<GraphSummaryEdge> out;
  for (std::uint32_t i = 0; i < e.size(); ++i) {
    if (!alive[i] || covered[i]) continue;
    covered[i] = 1;
    std::uint32_t rep = i;
    std::uint32_t ends[2] = {e[i].a, e[i].b};
    for (int side = 0; side < 2; ++side) {
      std::uint32_t previous = i, v = ends[side];
      while (!kept(v)) {
        std::uint32_t next = previous;
        for (const std::uint32_t j : adjacent[v])
          if (alive[j] && j != previous) next = j;
        covered[next] = 1;
        if (graph_edge_key_less(e[rep], e[next])) rep = next;
        v = e[next].a == v ? e[next].b : e[next].a;
        previous = next;
      }
      ends[side] = v;
    }
    out.push_back(GraphSummaryEdge{std::min(ends[0], ends[1]), std::max(ends[0], ends[1]), rep});
  }
  std::sort(out.begin(), out.end(), [](const GraphSummaryEdge& p, const GraphSummaryEdge& q) { return p.rep < q.rep; });
  return out;
}

inline GraphOutput reference_output(const GraphCase& c) {
  GraphOutput out;
  out.in_forest = prim_forest(c);
  out.summary = naive_reduction(c, out.in_forest);
  return out;
}

// ---- generators --------------------------------------------------------------------------------

// Keys: weights from one of several distributions (ties on purpose), ids distinct within the graph.
struct KeyMaker {
  int weight_mode = 0;  // 0 equal, 1 few levels, 2 wide, 3 extremes (0, 1, UINT32_MAX - 1, UINT32_MAX)
  int id_mode = 0;      // 0 shuffled 0..m-1, 1 random 64-bit, 2 near UINT64_MAX, descending
  Weight constant = 7;

  static KeyMaker random(std::mt19937_64& rng) {
    KeyMaker k;
    k.weight_mode = static_cast<int>(rng() % 4);
    k.id_mode = static_cast<int>(rng() % 3);
    k.constant = static_cast<Weight>(rng());
    return k;
  }
  Weight weight(std::mt19937_64& rng) const {
    switch (weight_mode) {
      case 0: return constant;
      case 1: return static_cast<Weight>(rng() % 4);
      case 2: return static_cast<Weight>(rng());
      default: {
        static constexpr Weight kExtremes[] = {0u, 1u, 0xFFFFFFFEu, 0xFFFFFFFFu};
        return kExtremes[rng() % 4];
      }
    }
  }
  // Assigns distinct ids and weights to every edge.
  void assign(std::vector<GraphEdge>& edges, std::mt19937_64& rng) const {
    const std::size_t m = edges.size();
    std::vector<std::uint64_t> ids(m);
    if (id_mode == 0) {
      std::iota(ids.begin(), ids.end(), std::uint64_t{0});
      std::shuffle(ids.begin(), ids.end(), rng);
    } else if (id_mode == 1) {
      std::set<std::uint64_t> used;
      for (std::uint64_t& id : ids) {
        do id = rng();
        while (!used.insert(id).second);
      }
    } else {
      for (std::size_t i = 0; i < m; ++i) ids[i] = ~std::uint64_t{0} - i;
      std::shuffle(ids.begin(), ids.end(), rng);
    }
    for (std::size_t i = 0; i < m; ++i) {
      edges[i].weight = weight(rng);
      edges[i].id = ids[i];
      edges[i].reserved = 0;
    }
  }
};

inline GraphEdge make_edge(std::uint32_t a, std::uint32_t b, std::mt19937_64& rng) {
  GraphEdge e;
  if (rng() & 1) std::swap(a, b);
  e.a = a;
  e.b = b;
  return e;
}

enum class Shape { Random, TreePlus, Star, Path, Comb, Components, Parallel, Grid, DeadEnds, Caterpillar };
constexpr int kShapes = 10;

inline const char* shape_name(Shape s) {
  static const char* kNames[] = {"random", "tree+extra", "star", "path", "comb", "components",
                                 "parallel", "grid", "dead-ends", "caterpillar"};
  return kNames[static_cast<int>(s)];
}

// Boundary choice: 0 none, 1 all, 2 random fraction, 3 a few vertices, 4 the ends of the vertex range.
inline std::vector<std::uint8_t> make_boundary(std::uint32_t n, int mode, std::mt19937_64& rng) {
  std::vector<std::uint8_t> b(n, 0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double p = 0.02 + 0.5 * unit(rng);
  for (std::uint32_t v = 0; v < n; ++v) {
    switch (mode) {
      case 0: break;
      case 1: b[v] = static_cast<std::uint8_t>(1 + rng() % 255); break;  // any non-zero byte
      case 2: b[v] = unit(rng) < p ? 1 : 0; break;
      case 3: b[v] = rng() % (n / 4 + 1) == 0 ? 1 : 0; break;
      default: b[v] = (v < 2 || v + 2 >= n) ? 1 : 0; break;
    }
  }
  return b;
}

// A graph of the given shape with about `size` edges (fewer for some shapes). Vertices are
// relabelled by a random permutation, and some isolated vertices are added.
inline GraphCase random_graph(std::mt19937_64& rng, Shape shape, std::uint32_t size) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  std::uint32_t n = 0;
  auto uniform = [&rng](std::uint32_t k) { return k ? static_cast<std::uint32_t>(rng() % k) : 0u; };
  // An edge between two distinct vertices drawn from first .. first + count - 1 (count >= 2).
  auto distinct_pair = [&uniform](std::uint32_t first, std::uint32_t count) {
    const std::uint32_t a = first + uniform(count);
    std::uint32_t b = first + uniform(count - 1);
    if (b >= a) ++b;
    return std::make_pair(a, b);
  };
  // A chain of up to `length` new vertices hanging from `from`, while the graph has fewer than `size` edges.
  auto hang_chain = [&](std::uint32_t from, std::uint32_t length) {
    for (std::uint32_t k = 0; k < length && pairs.size() < size; ++k) {
      pairs.emplace_back(from, n);
      from = n++;
    }
  };
  switch (shape) {
    case Shape::Random: {
      n = 2 + uniform(size + 1);
      for (std::uint32_t i = 0; i < size; ++i) pairs.push_back(distinct_pair(0, n));
      break;
    }
    case Shape::TreePlus: {
      n = 1 + std::max<std::uint32_t>(1, size * 2 / 3);
      for (std::uint32_t v = 1; v < n; ++v) pairs.emplace_back(uniform(v), v);
      while (pairs.size() < size) pairs.push_back(distinct_pair(0, n));
      break;
    }
    case Shape::Star: {
      n = size + 1;
      for (std::uint32_t v = 1; v < n; ++v) pairs.emplace_back(0, v);
      break;
    }
    case Shape::Path: {
      n = size + 1;
      for (std::uint32_t v = 1; v < n; ++v) pairs.emplace_back(v - 1, v);
      break;
    }
    case Shape::Comb: {  // a spine with a tooth (a chain) at every spine vertex
      const std::uint32_t spine = std::max<std::uint32_t>(1, size / 8 + 1);
      n = spine;
      for (std::uint32_t v = 1; v < spine; ++v) pairs.emplace_back(v - 1, v);
      for (std::uint32_t v = 0; v < spine && pairs.size() < size; ++v) hang_chain(v, 1 + uniform(12));
      break;
    }
    case Shape::Components: {  // several random trees with extra edges, plus isolated vertices
      const std::uint32_t parts = 1 + uniform(6);
      for (std::uint32_t p = 0; p < parts; ++p) {
        const std::uint32_t first = n, count = 1 + uniform(size / parts + 2);
        n += count;
        for (std::uint32_t v = first + 1; v < n; ++v) pairs.emplace_back(first + uniform(v - first), v);
        for (std::uint32_t k = uniform(count); k > 0 && count > 1; --k) pairs.push_back(distinct_pair(first, count));
      }
      break;
    }
    case Shape::Parallel: {  // few vertices, many parallel edges
      n = 2 + uniform(6);
      for (std::uint32_t i = 0; i < size; ++i) pairs.push_back(distinct_pair(0, n));
      break;
    }
    case Shape::Grid: {
      const std::uint32_t w = 1 + uniform(static_cast<std::uint32_t>(std::sqrt(static_cast<double>(size) / 2.0)) + 2);
      const std::uint32_t h = std::max<std::uint32_t>(1, size / (2 * w) + 1);
      n = w * h;
      for (std::uint32_t y = 0; y < h; ++y)
        for (std::uint32_t x = 0; x < w; ++x) {
          if (x + 1 < w) pairs.emplace_back(y * w + x, y * w + x + 1);
          if (y + 1 < h) pairs.emplace_back(y * w + x, (y + 1) * w + x);
        }
      break;
    }
    case Shape::DeadEnds: {  // a short path with long hanging chains (deep dead ends)
      const std::uint32_t core = 2 + uniform(4);
      n = core;
      for (std::uint32_t v = 1; v < core; ++v) pairs.emplace_back(v - 1, v);
      while (pairs.size() < size) {
        const std::uint32_t from = uniform(n);
        hang_chain(from, 1 + uniform(size / 2 + 1));
      }
      break;
    }
    case Shape::Caterpillar: {  // a path whose vertices carry single leaves
      const std::uint32_t spine = std::max<std::uint32_t>(1, size / 2 + 1);
      n = spine;
      for (std::uint32_t v = 1; v < spine; ++v) pairs.emplace_back(v - 1, v);
      for (std::uint32_t v = 0; v < spine && pairs.size() < size; ++v) pairs.emplace_back(v, n++);
      break;
    }
  }
  const std::uint32_t isolated = rng() % 3 == 0 ? uniform(n / 4 + 3) : 0;
  n += isolated;
  std::vector<std::uint32_t> label(n);
  std::iota(label.begin(), label.end(), 0u);
  if (rng() % 4 != 0) std::shuffle(label.begin(), label.end(), rng);
  GraphCase c;
  for (const auto& p : pairs) c.edges.push_back(make_edge(label[p.first], label[p.second], rng));
  std::shuffle(c.edges.begin(), c.edges.end(), rng);
  const KeyMaker keys = KeyMaker::random(rng);
  keys.assign(c.edges, rng);
  const int boundary_mode = static_cast<int>(rng() % 5);
  c.boundary = make_boundary(n, boundary_mode, rng);
  c.description = std::string(shape_name(shape)) + ", " + std::to_string(c.edges.size()) + " edges, " +
                  std::to_string(n) + " vertices, boundary mode " + std::to_string(boundary_mode) + ", weight mode " +
                  std::to_string(keys.weight_mode) + ", id mode " + std::to_string(keys.id_mode);
  return c;
}

// A batch of cases laid out in the order given, with random gaps between the spans (filled with
// junk edges and boundary bytes that no graph owns), spans listed in a shuffled order.
struct GraphBatch {
  std::vector<GraphEdge> edges;
  std::vector<std::uint8_t> boundary;
  std::vector<GraphSpan> spans;
  std::vector<std::size_t> case_of;  // span index -> case index
};

inline GraphBatch make_batch(const std::vector<GraphCase>& cases, std::mt19937_64& rng, bool gaps) {
  GraphBatch batch;
  std::vector<GraphSpan> spans(cases.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    if (gaps && rng() % 3 == 0) {
      for (std::uint64_t j = rng() % 5; j > 0; --j) batch.edges.push_back(GraphEdge{0, 0, 1, 0xdead, 0});
      for (std::uint64_t j = rng() % 5; j > 0; --j) batch.boundary.push_back(0xEE);
    }
    spans[k].first_edge = batch.edges.size();
    spans[k].first_vertex = batch.boundary.size();
    spans[k].edges = static_cast<std::uint32_t>(cases[k].edges.size());
    spans[k].vertices = cases[k].vertices();
    batch.edges.insert(batch.edges.end(), cases[k].edges.begin(), cases[k].edges.end());
    batch.boundary.insert(batch.boundary.end(), cases[k].boundary.begin(), cases[k].boundary.end());
  }
  batch.case_of.resize(cases.size());
  std::iota(batch.case_of.begin(), batch.case_of.end(), std::size_t{0});
  if (gaps) std::shuffle(batch.case_of.begin(), batch.case_of.end(), rng);
  for (const std::size_t k : batch.case_of) batch.spans.push_back(spans[k]);
  return batch;
}

// Graph `g` of a solved batch, as a GraphOutput.
inline GraphOutput batch_output(const GraphSpan& span, const std::uint8_t* in_forest, const GraphSummaryEdge* summary,
                                std::uint32_t count) {
  GraphOutput out;
  out.in_forest.assign(in_forest + span.first_edge, in_forest + span.first_edge + span.edges);
  out.summary.assign(summary + span.first_edge, summary + span.first_edge + count);
  return out;
}

}  // namespace terrazo::testing
