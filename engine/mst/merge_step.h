// engine/mst/merge_step.h: one step of the hierarchical MST merge (phase 3 of the MST pipeline), on
// summary graphs with 64-bit global cell ids.
//
// Source: [Gerritsen2012, ch. 2, Observations 2-4] (after Haverkort);
// docs/mst.md.
//
// Clusters. A cluster of level k is the square of 2^k x 2^k tiles at cluster coordinates (cx, cy):
// cells [x0, x0 + s) x [y0, y0 + s), s = t 2^k, x0 = cx s, y0 = cy s, cut by the raster. Its boundary
// vertices are its valid cells on the nominal outer ring (x = x0, x = x0 + s - 1, y = y0 or
// y = y0 + s - 1); a cell on the raster's edge that is not on that ring has no neighbour outside the
// cluster and is not a boundary vertex. The four children of a level-(k+1) cluster are its four
// level-k quadrants (fewer where the raster ends); a cell on the parent's ring is on a child's ring.
//
// Summary of a cluster: the forest that remains of the cluster's minimum spanning forest (MSF) after
// removing dead ends (branches without a boundary vertex) and contracting maximal paths whose
// interior vertices are non-boundary and of degree 2. A summary edge (a, b, rep) stands for such a
// path; rep is the key of the path's maximum base edge, in the global total order
//   key = (weight, min id, max id)  encoded as  GlobalEdgeKey{weight, owner * 4 + rank(dir)}
// (the owner of an edge is its smaller end, the ranks E < SW < S < SE follow the larger end's id).
// The summary also carries the values of the cluster's ring cells, from which the crossing edges
// (grid edges between two sibling clusters) of the next merge are computed.
//
// One merge step: graph = the children's summary edges (keyed by rep) + the crossing edges between
// the children; Kruskal in key order gives its MSF; then dead ends are removed and degree-2 paths
// contracted with the parent's boundary, giving the parent's summary (at the root nothing remains to
// reduce). Reported to the MergeSink: every summary edge the MSF drops (its rep is NOT in the MST) and
// every crossing edge it keeps (it IS in the MST, unless it is later reported as a dropped rep).
//
// Why this expansion rule is exact (no path lists are ever stored). Keys are distinct, so the MSF
// is unique, and the cycle property decides every edge: e is in the MSF iff e is not the maximum of
// some cycle.
//  (1) Observation 2: an edge of a child that is not in the child's MSF is the maximum of a cycle
//      inside the child, so it is not in the parent's MSF; the parent's MSF is the MSF of
//      (children's MSFs + crossing edges).
//  (2) Observation 3: a dead-end branch touches the rest of the graph through one vertex only (no
//      crossing edge reaches a non-boundary vertex, and crossing edges are the only edges a later
//      merge adds), so no cycle of any later graph uses its edges: they are all in the MST.
//  (3) Observation 4: the interior vertices of a contracted path P have no other edges now or in any
//      later merge, so every cycle through one edge of P runs through all of P. A non-maximum edge
//      of P is therefore never the maximum of a cycle (P's maximum is on it too): it is in the MST.
//      P's maximum edge m is the maximum of a cycle C iff the contracted edge (keyed by m) is the
//      maximum of the contracted cycle, since both cycles share every other edge and are compared
//      by the same keys: m is in the MST iff the summary edge is in the MSF of the contracted graph.
//  (4) By induction over the levels, a summary edge of level k stands for a path of level-(k-1)
//      summary edges and crossing edges, and its rep is the rep of its maximum piece. If the merge
//      drops it, exactly its maximum piece leaves the MST, i.e. the base edge rep, and every other
//      piece stays; if a piece is itself a summary edge its own rep is decided the same way, at the
//      level where it is dropped, or never (then it is in).
// Hence: MST = (tile forests, from phase 1) + (crossing edges some merge keeps)
//              - (reps of the summary edges some merge drops),
// where an edge both kept as a crossing edge and later dropped as a rep is out.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/types.h"
#include "io/store/tile_store.h"
#include "kernels/mst/block_reduce.h"
#include "kernels/common/tile_geometry.h"

namespace terrazo {

// the total order of docs/mst.md (weight, min id, max id) on the edges of the whole raster.
struct GlobalEdgeKey {
  Weight weight = 0;
  std::uint64_t id = 0;  // owner cell * 4 + owned_direction_rank(dir)

  CellId owner() const { return id >> 2; }
  int direction() const { return owned_direction_of_rank(static_cast<std::uint32_t>(id & 3u)); }
  friend bool operator<(const GlobalEdgeKey& p, const GlobalEdgeKey& q) {
    return p.weight != q.weight ? p.weight < q.weight : p.id < q.id;
  }
  friend bool operator==(const GlobalEdgeKey& p, const GlobalEdgeKey& q) {
    return p.weight == q.weight && p.id == q.id;
  }
};

inline GlobalEdgeKey make_global_edge_key(Weight weight, CellId owner, int dir) {
  return GlobalEdgeKey{weight, owner * 4u + owned_direction_rank(dir)};
}

// The cells [x0, x0+side) x [y0, y0+side) of a cluster, and the raster around it.
struct ClusterExtent {
  std::uint64_t width = 0, height = 0;  // the raster
  std::uint64_t x0 = 0, y0 = 0, side = 0;

  static ClusterExtent of(const TileGrid& grid, std::uint32_t level, std::uint64_t cx, std::uint64_t cy);
  std::uint64_t x_end() const { return x0 + side < width ? x0 + side : width; }
  std::uint64_t y_end() const { return y0 + side < height ? y0 + side : height; }
  bool has_right() const { return x0 + side - 1 < width; }
  bool has_bottom() const { return y0 + side - 1 < height; }
  bool on_ring(std::uint64_t x, std::uint64_t y) const {
    return x == x0 || y == y0 || x == x0 + side - 1 || y == y0 + side - 1;
  }
};

// Values of a cluster's ring cells inside the raster (NaN = nodata): top and bottom rows for
// x in [x0, x_end), left and right columns for y in [y0, y_end); bottom (right) is empty when that
// row (column) lies outside the raster. All empty means an all-nodata ring.
struct ClusterRing {
  std::vector<double> top, bottom, left, right;
  bool empty() const { return top.empty() && bottom.empty() && left.empty() && right.empty(); }
  // Value of ring cell (x, y) of `extent`; NaN when the ring is empty.
  double at(const ClusterExtent& extent, std::uint64_t x, std::uint64_t y) const;
};

struct SummaryEdge {
  CellId a = 0, b = 0;  // end vertices, a < b
  GlobalEdgeKey rep;    // the maximum base edge of the path it stands for
};

struct ClusterSummary {
  std::uint32_t level = 0;
  std::uint64_t cx = 0, cy = 0;
  std::vector<SummaryEdge> edges;  // sorted by rep
  ClusterRing ring;
  // Heap bytes held (for the memory budget).
  std::uint64_t heap_bytes() const;
};

// What a merge step decides, for the expansion.
class MergeSink {
 public:
  virtual ~MergeSink() = default;
  virtual void dropped(const GlobalEdgeKey& rep) = 0;        // rep is not in the MST
  virtual void kept_crossing(const GlobalEdgeKey& edge) = 0;  // edge is in the MST (unless dropped later)
};

// A crossing edge of a merge step: a grid edge between two sibling children, with both ends valid.
struct CrossingEdge {
  GlobalEdgeKey key;  // its own key (weight, owner * 4 + rank)
  CellId a = 0, b = 0;  // global ids: a = the owner (the end the key names), b = the other end
};

// Appends to *out the crossing edges of the merge of `children` (index dy*2+dx, nullptr where
// absent) into cluster (level, cx, cy), level >= 1, weights from the children's ring values.
// They are the edges owned by the cells of the columns x0+half-1 and x0+half (top to bottom) and
// then of the row y0+half-1 (left to right, the two column cells skipped), half = side/2, in the
// owned directions E, SE, S, SW (those of `connectivity`), whose other end lies in the cluster, in
// another child, and is valid; all these cells are on their child's ring. The order is fixed (the
// level merge relies on it for a deterministic vertex numbering). *overflow is set when a weight
// does not fit. Shared by merge_clusters and engine/mst/phase2_merge_levels.cpp.
void append_crossing_edges(const TileGrid& grid, std::uint32_t level, std::uint64_t cx, std::uint64_t cy,
                           const ClusterSummary* const children[4], const WeightParams& params,
                           Connectivity connectivity, std::vector<CrossingEdge>* out, bool* overflow);

// The ring of cluster `parent` from its children's rings (empty when every child's ring is empty).
ClusterRing assemble_ring(const ClusterExtent& parent, const ClusterSummary* const children[4]);

// The expansion record of a merge decision (docs/mst.md "Expansion records"): key =
// morton(owner tile) << shift | local edge id << 1 | kind (0 = in, 1 = out), shift =
// expansion_record_shift(t) = 2 log2(t) + 3, so one tile's records are contiguous in tile Z-order.
std::uint32_t expansion_record_shift(std::uint32_t tile);
std::uint64_t expansion_record_key(const TileGrid& grid, std::uint32_t shift, const GlobalEdgeKey& edge,
                                   std::uint64_t kind);

// Level-0 summary of tile (tx, ty) from block_reduce's output and the tile's values (t*t, NaN = nodata).
ClusterSummary make_tile_summary(const TileGrid& grid, std::uint32_t tx, std::uint32_t ty, const double* values,
                                 const std::vector<TileSummaryEdge>& tile_summary);

// Bytes a merge step allocates for its graph at most (compact vertices, candidates, union-find,
// adjacency), given the children's summary edges and ring cells: ~ 120 bytes per edge.
std::uint64_t merge_working_bytes(const ClusterSummary* const children[4]);

// Merges the children (index dy*2+dx, nullptr where absent) of cluster (level, cx, cy), level >= 1.
// When `root`, the step only decides edges (parent is left empty); else *parent receives the
// parent's summary. *overflow is set when a crossing edge's weight does not fit.
void merge_clusters(const TileGrid& grid, std::uint32_t level, std::uint64_t cx, std::uint64_t cy,
                    const ClusterSummary* const children[4], const WeightParams& params, Connectivity connectivity,
                    bool root, MergeSink& sink, ClusterSummary* parent, bool* overflow);

}  // namespace terrazo
