// engine/mst/merge_step.cpp: see mst_merge.h for the contract and the proof of the expansion rule.
//
// Merge step, plainly:
//   candidates = children's summary edges (key = rep) + crossing edges (key = own key)
//   vertices   = their ends, sorted and made compact (index = rank of the global id)
//   Kruskal in key order: kept -> MSF; a dropped summary edge -> sink.dropped(rep);
//                         a kept crossing edge -> sink.kept_crossing(key)
//   reduce the MSF with the parent's boundary: peel non-boundary leaves, then walk each chain of
//   non-boundary degree-2 vertices between kept vertices into one summary edge (rep = max rep).
// Cost: O(E log E) for E candidates (the sorts); E = O(perimeter of the parent).
#include "engine/mst/merge_step.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/common/error.h"
#include "kernels/common/union_find.h"

namespace terrazo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Candidate {
  GlobalEdgeKey key;
  std::uint32_t a = 0, b = 0;  // compact vertex indices (filled after compaction)
  CellId ga = 0, gb = 0;       // global ids of the ends
  bool summary = false;        // a summary edge (else a crossing edge)
};

// Which child (dy*2+dx) of the parent extent holds cell (x, y).
int child_of(const ClusterExtent& parent, std::uint64_t x, std::uint64_t y) {
  const std::uint64_t half = parent.side / 2;
  return (y - parent.y0 >= half ? 2 : 0) + (x - parent.x0 >= half ? 1 : 0);
}

ClusterExtent child_extent(const ClusterExtent& parent, int child) {
  ClusterExtent e = parent;
  e.side = parent.side / 2;
  e.x0 = parent.x0 + (child & 1 ? e.side : 0);
  e.y0 = parent.y0 + (child & 2 ? e.side : 0);
  return e;
}

// Reduces the forest `kept` (edges over compact vertices 0..n-1, global ids `ids`) with the
// boundary of `extent`; appends the summary edges to *out.
void reduce_forest(const std::vector<Candidate>& kept, const std::vector<CellId>& ids, const ClusterExtent& extent,
                   std::vector<SummaryEdge>* out) {
  const std::size_t n = ids.size();
  // Adjacency in CSR form: for vertex v, entries offset[v]..offset[v+1]-1 are edge indices.
  std::vector<std::uint32_t> offset(n + 1, 0), degree(n, 0);
  for (const Candidate& e : kept) {
    ++offset[e.a + 1];
    ++offset[e.b + 1];
  }
  for (std::size_t v = 0; v < n; ++v) offset[v + 1] += offset[v];
  std::vector<std::uint32_t> incident(offset[n]);
  {
    std::vector<std::uint32_t> fill(offset.begin(), offset.end() - 1);
    for (std::uint32_t i = 0; i < kept.size(); ++i) {
      incident[fill[kept[i].a]++] = i;
      incident[fill[kept[i].b]++] = i;
    }
  }
  for (std::size_t v = 0; v < n; ++v) degree[v] = offset[v + 1] - offset[v];
  std::vector<char> removed(kept.size(), 0);
  auto boundary = [&](std::uint32_t v) { return extent.on_ring(ids[v] % extent.width, ids[v] / extent.width); };
  auto other_end = [&](std::uint32_t edge, std::uint32_t v) { return kept[edge].a == v ? kept[edge].b : kept[edge].a; };
  auto next_edge = [&](std::uint32_t v) {
    for (std::uint32_t i = offset[v]; i < offset[v + 1]; ++i)
      if (!removed[incident[i]]) return incident[i];
    return std::numeric_limits<std::uint32_t>::max();
  };

  // Dead ends.
  std::vector<std::uint32_t> stack;
  for (std::uint32_t v = 0; v < n; ++v)
    if (degree[v] == 1 && !boundary(v)) stack.push_back(v);
  while (!stack.empty()) {
    const std::uint32_t v = stack.back();
    stack.pop_back();
    if (degree[v] != 1) continue;
    const std::uint32_t edge = next_edge(v);
    removed[edge] = 1;
    degree[v] = 0;
    const std::uint32_t u = other_end(edge, v);
    if (--degree[u] == 1 && !boundary(u)) stack.push_back(u);
  }

  // Chains between kept vertices.
  const std::size_t first = out->size();
  auto keep = [&](std::uint32_t v) { return degree[v] >= 3 || (degree[v] >= 1 && boundary(v)); };
  for (std::uint32_t v = 0; v < n; ++v) {
    if (!keep(v)) continue;
    for (std::uint32_t edge = next_edge(v); edge != std::numeric_limits<std::uint32_t>::max(); edge = next_edge(v)) {
      GlobalEdgeKey rep = kept[edge].key;
      removed[edge] = 1;
      std::uint32_t current = other_end(edge, v);
      while (!keep(current)) {
        const std::uint32_t next = next_edge(current);
        rep = std::max(rep, kept[next].key);
        removed[next] = 1;
        current = other_end(next, current);
      }
      out->push_back(SummaryEdge{std::min(ids[v], ids[current]), std::max(ids[v], ids[current]), rep});
    }
  }
  std::sort(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
            [](const SummaryEdge& p, const SummaryEdge& q) { return p.rep < q.rep; });
}

}  // namespace

ClusterExtent ClusterExtent::of(const TileGrid& grid, std::uint32_t level, std::uint64_t cx, std::uint64_t cy) {
  ClusterExtent e;
  e.width = grid.width;
  e.height = grid.height;
  e.side = static_cast<std::uint64_t>(grid.tile) << level;
  e.x0 = cx * e.side;
  e.y0 = cy * e.side;
  return e;
}

double ClusterRing::at(const ClusterExtent& extent, std::uint64_t x, std::uint64_t y) const {
  if (empty()) return kNaN;
  if (y == extent.y0) return top[x - extent.x0];
  if (y == extent.y0 + extent.side - 1) return bottom[x - extent.x0];
  if (x == extent.x0) return left[y - extent.y0];
  if (x == extent.x0 + extent.side - 1) return right[y - extent.y0];
  throw Error("internal error: MST merge asked for a cell that is not on a cluster's ring");
}

std::uint64_t ClusterSummary::heap_bytes() const {
  return edges.capacity() * sizeof(SummaryEdge) +
         (ring.top.capacity() + ring.bottom.capacity() + ring.left.capacity() + ring.right.capacity()) * sizeof(double);
}

ClusterRing assemble_ring(const ClusterExtent& parent, const ClusterSummary* const children[4]) {
  ClusterRing ring;
  bool any = false;
  for (int c = 0; c < 4; ++c) any = any || (children[c] && !children[c]->ring.empty());
  if (!any) return ring;
  const std::uint64_t x_count = parent.x_end() - parent.x0, y_count = parent.y_end() - parent.y0;
  ring.top.resize(x_count);
  ring.left.resize(y_count);
  if (parent.has_bottom()) ring.bottom.resize(x_count);
  if (parent.has_right()) ring.right.resize(y_count);
  auto value = [&](std::uint64_t x, std::uint64_t y) {
    const int c = child_of(parent, x, y);
    return children[c] ? children[c]->ring.at(child_extent(parent, c), x, y) : kNaN;
  };
  for (std::uint64_t i = 0; i < x_count; ++i) {
    ring.top[i] = value(parent.x0 + i, parent.y0);
    if (parent.has_bottom()) ring.bottom[i] = value(parent.x0 + i, parent.y0 + parent.side - 1);
  }
  for (std::uint64_t i = 0; i < y_count; ++i) {
    ring.left[i] = value(parent.x0, parent.y0 + i);
    if (parent.has_right()) ring.right[i] = value(parent.x0 + parent.side - 1, parent.y0 + i);
  }
  return ring;
}

ClusterSummary make_tile_summary(const TileGrid& grid, std::uint32_t tx, std::uint32_t ty, const double* values,
                                 const std::vector<TileSummaryEdge>& tile_summary) {
  const std::uint32_t t = grid.tile;
  ClusterSummary s;
  s.level = 0;
  s.cx = tx;
  s.cy = ty;
  const ClusterExtent extent = ClusterExtent::of(grid, 0, tx, ty);
  auto global = [&](std::uint32_t l) -> CellId { return (extent.y0 + l / t) * grid.width + extent.x0 + l % t; };
  s.edges.reserve(tile_summary.size());
  for (const TileSummaryEdge& e : tile_summary) {
    const std::uint32_t id = static_cast<std::uint32_t>(e.key);
    const GlobalEdgeKey rep = make_global_edge_key(static_cast<Weight>(e.key >> 32), global(tile_edge_owner(id)),
                                                   tile_edge_direction(id));
    s.edges.push_back(SummaryEdge{global(e.a), global(e.b), rep});
  }
  bool any_valid = false;
  const std::uint64_t x_count = extent.x_end() - extent.x0, y_count = extent.y_end() - extent.y0;
  for (std::uint64_t i = 0; i < x_count && !any_valid; ++i)
    any_valid = values[i] == values[i] || values[(t - 1) * t + i] == values[(t - 1) * t + i];
  for (std::uint64_t i = 0; i < y_count && !any_valid; ++i)
    any_valid = values[i * t] == values[i * t] || values[i * t + t - 1] == values[i * t + t - 1];
  if (!any_valid) return s;
  s.ring.top.assign(values, values + x_count);
  s.ring.left.resize(y_count);
  for (std::uint64_t i = 0; i < y_count; ++i) s.ring.left[i] = values[i * t];
  if (extent.has_bottom()) s.ring.bottom.assign(values + (t - 1) * t, values + (t - 1) * t + x_count);
  if (extent.has_right()) {
    s.ring.right.resize(y_count);
    for (std::uint64_t i = 0; i < y_count; ++i) s.ring.right[i] = values[i * t + t - 1];
  }
  return s;
}

void append_crossing_edges(const TileGrid& grid, std::uint32_t level, std::uint64_t cx, std::uint64_t cy,
                           const ClusterSummary* const children[4], const WeightParams& params,
                           Connectivity connectivity, std::vector<CrossingEdge>* out, bool* overflow) {
  const ClusterExtent extent = ClusterExtent::of(grid, level, cx, cy);
  const std::uint64_t half = extent.side / 2;
  // Crossing edges: owned by cells of the columns x0+half-1, x0+half and the row y0+half-1.
  auto value = [&](std::uint64_t x, std::uint64_t y) {
    const int c = child_of(extent, x, y);
    return children[c] ? children[c]->ring.at(child_extent(extent, c), x, y) : kNaN;
  };
  const std::uint64_t x_end = extent.x_end(), y_end = extent.y_end();
  auto add_crossings_from = [&](std::uint64_t x, std::uint64_t y) {
    const double a = value(x, y);
    if (a != a) return;
    const int from = child_of(extent, x, y);
    for (int dir = 0; dir < 4; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      if (x == 0 && kDirDx[dir] < 0) continue;
      const std::uint64_t nx = x + static_cast<std::uint64_t>(static_cast<std::int64_t>(kDirDx[dir]));
      const std::uint64_t ny = y + static_cast<std::uint64_t>(kDirDy[dir]);
      if (nx < extent.x0 || nx >= x_end || ny >= y_end) continue;
      if (child_of(extent, nx, ny) == from) continue;
      const double b = value(nx, ny);
      const Weight w = edge_weight(params, a, b, is_diagonal(dir), overflow);
      if (w == kNoEdge) continue;
      out->push_back(CrossingEdge{make_global_edge_key(w, y * extent.width + x, dir), y * extent.width + x,
                                  ny * extent.width + nx});
    }
  };
  const std::uint64_t mid_x = extent.x0 + half, mid_y = extent.y0 + half;
  for (std::uint64_t x : {mid_x - 1, mid_x}) {
    if (x >= x_end) continue;
    for (std::uint64_t y = extent.y0; y < y_end; ++y) add_crossings_from(x, y);
  }
  if (mid_y - 1 < y_end) {
    for (std::uint64_t x = extent.x0; x < x_end; ++x)
      if (x != mid_x - 1 && x != mid_x) add_crossings_from(x, mid_y - 1);
  }
}

std::uint32_t expansion_record_shift(std::uint32_t tile) {
  std::uint32_t log2_tile = 0;
  while ((std::uint64_t{1} << log2_tile) < tile) ++log2_tile;
  return 2 * log2_tile + 3;
}

std::uint64_t expansion_record_key(const TileGrid& grid, std::uint32_t shift, const GlobalEdgeKey& edge,
                                   std::uint64_t kind) {
  const CellId owner = edge.owner();
  const std::uint64_t x = owner % grid.width, y = owner / grid.width, t = grid.tile;
  const std::uint32_t local = static_cast<std::uint32_t>((y % t) * t + x % t);
  const std::uint64_t morton = morton_encode(static_cast<std::uint32_t>(x / t), static_cast<std::uint32_t>(y / t));
  return morton << shift | static_cast<std::uint64_t>(tile_edge_id(local, edge.direction())) << 1 | kind;
}

std::uint64_t merge_working_bytes(const ClusterSummary* const children[4]) {
  std::uint64_t edges = 0, ring = 0;
  for (int c = 0; c < 4; ++c) {
    if (!children[c]) continue;
    edges += children[c]->edges.size();
    ring += children[c]->ring.top.size() + children[c]->ring.bottom.size() + children[c]->ring.left.size() +
            children[c]->ring.right.size();
  }
  // Candidates (48 B) twice (graph + MSF), 2 compact ids (16 B), union-find and CSR (~32 B) per
  // edge; crossing edges: at most 3 per ring cell (one per owned direction that can cross).
  const std::uint64_t candidates = edges + 3 * ring;
  return candidates * 144 + 4096;
}

void merge_clusters(const TileGrid& grid, std::uint32_t level, std::uint64_t cx, std::uint64_t cy,
                    const ClusterSummary* const children[4], const WeightParams& params, Connectivity connectivity,
                    bool root, MergeSink& sink, ClusterSummary* parent, bool* overflow) {
  const ClusterExtent extent = ClusterExtent::of(grid, level, cx, cy);
  const std::uint64_t half = extent.side / 2;
  std::vector<Candidate> candidates;
  std::size_t reserve = 0;
  for (int c = 0; c < 4; ++c)
    if (children[c]) reserve += children[c]->edges.size();
  candidates.reserve(reserve + 6 * half);
  for (int c = 0; c < 4; ++c) {
    if (!children[c]) continue;
    for (const SummaryEdge& e : children[c]->edges) {
      Candidate cand;
      cand.key = e.rep;
      cand.ga = e.a;
      cand.gb = e.b;
      cand.summary = true;
      candidates.push_back(cand);
    }
  }

  std::vector<CrossingEdge> crossing;
  append_crossing_edges(grid, level, cx, cy, children, params, connectivity, &crossing, overflow);
  for (const CrossingEdge& e : crossing) {
    Candidate cand;
    cand.key = e.key;
    cand.ga = e.a;
    cand.gb = e.b;
    candidates.push_back(cand);
  }
  crossing.clear();
  crossing.shrink_to_fit();

  // Compact vertex ids.
  std::vector<CellId> ids;
  ids.reserve(2 * candidates.size());
  for (const Candidate& c : candidates) {
    ids.push_back(c.ga);
    ids.push_back(c.gb);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error("MST merge: a cluster summary has more than 2^32 vertices; use a smaller --tile");
  }
  auto compact = [&](CellId g) {
    return static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), g) - ids.begin());
  };
  for (Candidate& c : candidates) {
    c.a = compact(c.ga);
    c.b = compact(c.gb);
  }

  // Kruskal.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& p, const Candidate& q) { return p.key < q.key; });
  UnionFind uf(static_cast<std::uint32_t>(ids.size()));
  std::vector<Candidate> kept;
  kept.reserve(ids.size());
  for (const Candidate& c : candidates) {
    if (!uf.unite(c.b, c.a)) {  // links c.a's root under c.b's
      if (c.summary) sink.dropped(c.key);
      continue;
    }
    if (!c.summary) sink.kept_crossing(c.key);
    kept.push_back(c);
  }
  if (root || !parent) return;
  candidates.clear();
  candidates.shrink_to_fit();
  uf = UnionFind();  // frees its parents

  parent->level = level;
  parent->cx = cx;
  parent->cy = cy;
  parent->edges.clear();
  reduce_forest(kept, ids, extent, &parent->edges);
  parent->edges.shrink_to_fit();
  parent->ring = assemble_ring(extent, children);
}

}  // namespace terrazo
