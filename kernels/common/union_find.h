// kernels/common/union_find.h: the disjoint-set forest of the CPU solvers (Kruskal in the block MST, the
// merge steps and the graph MSF twin; connected regions).
//
// Roots are found with path halving; unite() links the root of `b` under the root of `a` (no rank:
// the callers' results must not depend on which root survives, and Kruskal's do not). UnionFind's
// ids are 32-bit: one tile or one merge graph; union_find_root also takes a 64-bit parent array. The CUDA kernels keep their own device-side copy.
#pragma once
#include <cstdint>
#include <numeric>
#include <vector>

namespace terrazo {

// find over any parent array (a reused scratch buffer, or UnionFind's own).
inline std::uint32_t union_find_root(std::uint32_t* parent, std::uint32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];  // path halving
    v = parent[v];
  }
  return v;
}

// The same over 64-bit ids, for forests larger than a tile (clump's merge of border regions across
// all tiles, engine/clump/phase2_border_merge.cpp).
inline std::uint64_t union_find_root(std::uint64_t* parent, std::uint64_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];  // path halving
    v = parent[v];
  }
  return v;
}

class UnionFind {
 public:
  explicit UnionFind(std::uint32_t n = 0) { reset(n); }
  // n singletons 0..n-1; keeps the capacity, so a scratch UnionFind allocates once.
  void reset(std::uint32_t n) {
    parent_.resize(n);
    std::iota(parent_.begin(), parent_.end(), std::uint32_t{0});
  }
  std::uint32_t find(std::uint32_t v) { return union_find_root(parent_.data(), v); }
  // Joins the sets of a and b; false when they were one set already.
  bool unite(std::uint32_t a, std::uint32_t b) {
    const std::uint32_t ra = find(a), rb = find(b);
    if (ra == rb) return false;
    parent_[rb] = ra;
    return true;
  }
  std::uint32_t size() const { return static_cast<std::uint32_t>(parent_.size()); }
  std::vector<std::uint32_t>& parents() { return parent_; }  // for the solvers that index it directly

 private:
  std::vector<std::uint32_t> parent_;
};

}  // namespace terrazo
