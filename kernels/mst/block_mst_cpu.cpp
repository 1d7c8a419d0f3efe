// kernels/mst/block_mst_cpu.cpp: the CPU twin of the block MST (contract: kernels/mst/block_mst.h).
//
// Algorithm: Kruskal with union-find over the tile's edges in tile_edge_key order.
//  1. Emit every edge of the tile whose two ends are valid, in increasing local edge id
//     (owner l ascending, then rank E < SW < S < SE), as key = weight << 32 | edge id.
//  2. Sort the keys. Because they were emitted in edge-id order, a stable LSD radix sort on the
//     weight alone (bits 32..63) yields the full key order; 11-bit digits of (weight - the tile's
//     smallest weight), only as many passes as the tile's weight range needs.
//  3. Scan the sorted keys; an edge joining two different union-find sets is a forest edge
//     (union by size, path halving). With distinct keys the result is the unique minimum spanning
//     forest, whatever union-find does internally, so any correct implementation is bit-identical.
// Cost: O(t^2) time for emission, radix passes and near-linear union-find.
// Scratch: per calling thread, kept between calls (thread_local, no allocation per tile once warm):
//   2 key arrays of 4 t^2 x 8 bytes and one parent/size array of t^2 x 8 bytes = 72 t^2 bytes
//   (4.5 MiB for t = 256, 72 MiB for t = 1024).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/common/huge_buffer.h"
#include "kernels/common/union_find.h"
#include "kernels/mst/block_mst.h"

namespace terrazo {
namespace {

// Written before read: keys by the emission, sorted by the radix passes, parent and size by the
// union-find's initialisation (kernels/common/huge_buffer.h: huge pages, no zero-fill).
struct KruskalScratch {
  HugeBuffer<std::uint64_t> keys, sorted;
  HugeBuffer<std::uint32_t> parent, size;
};

// Stable LSD radix sort of `count` keys on bits 32..63 (the weight); keys[] holds the result.
// Digits of 11 bits of (weight - lowest), lowest and highest being the tile's smallest and largest
// weight (from the emission): a tile whose weights span less than 2^11 costs one pass, 2^22 two, the
// full 32-bit range three. One read of the keys counts every pass's digits at once.
void sort_by_weight(HugeBuffer<std::uint64_t>& keys, HugeBuffer<std::uint64_t>& tmp, std::size_t count,
                    Weight lowest, Weight highest) {
  if (count < 2) return;
  constexpr int kDigitBits = 11;
  constexpr std::uint32_t kBuckets = 1u << kDigitBits;
  const std::uint32_t range = highest - lowest;
  int passes = 0;
  while (passes < 3 && (range >> (passes * kDigitBits)) != 0) ++passes;
  if (passes == 0) return;  // one weight: the emission order is the key order
  thread_local std::vector<std::uint32_t> histogram;
  histogram.assign(static_cast<std::size_t>(passes) * (kBuckets + 1), 0);
  std::uint32_t* counts[3] = {histogram.data(), histogram.data() + (kBuckets + 1),
                              histogram.data() + 2 * (kBuckets + 1)};
  std::uint64_t* src = keys.data();
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t w = static_cast<Weight>(src[i] >> 32) - lowest;
    for (int p = 0; p < passes; ++p) ++counts[p][(w >> (p * kDigitBits) & (kBuckets - 1)) + 1];
  }
  std::uint64_t* dst = tmp.data();
  for (int p = 0; p < passes; ++p) {
    std::uint32_t* c = counts[p];
    for (std::uint32_t d = 0; d < kBuckets; ++d) c[d + 1] += c[d];
    const int shift = p * kDigitBits;
    for (std::size_t i = 0; i < count; ++i)
      dst[c[(static_cast<Weight>(src[i] >> 32) - lowest) >> shift & (kBuckets - 1)]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys.data()) std::memcpy(keys.data(), src, count * sizeof(std::uint64_t));
}

// Step 1, specialised for one weight model and connectivity (the model's switch folds away and
// the direction loop unrolls); kModel < 0 reads the model at run time. Returns the key count and
// the smallest and largest weight.
template <int kModel, bool kEight>
#if defined(__GNUC__)
__attribute__((flatten))
#endif
std::size_t emit_edges(const double* values, std::uint32_t t, const WeightParams& params, std::uint64_t* keys,
                       Weight* lowest, Weight* highest, bool* overflowed) {
  static constexpr int kRankDirection[4] = {kEast, kSouthWest, kSouth, kSouthEast};
  WeightParams p = params;
  if constexpr (kModel >= 0) p.model = static_cast<WeightModel>(kModel);
  std::size_t count = 0;
  Weight lo = ~Weight{0}, hi = 0;
  bool overflow = false;
  for (std::uint32_t ly = 0; ly < t; ++ly) {
    const bool last_row = ly + 1 == t;
    for (std::uint32_t lx = 0; lx < t; ++lx) {
      const std::uint32_t l = ly * t + lx;
      const double a = values[l];
      if (a != a) continue;
#pragma GCC unroll 4
      for (std::uint32_t rank = 0; rank < 4; ++rank) {
        const int dir = kRankDirection[rank];
        if (!kEight && is_diagonal(dir)) continue;
        if (kDirDy[dir] != 0 && last_row) continue;
        if (kDirDx[dir] > 0 && lx + 1 == t) continue;
        if (kDirDx[dir] < 0 && lx == 0) continue;
        const std::uint32_t m = l + static_cast<std::uint32_t>(kDirDy[dir]) * t + static_cast<std::uint32_t>(kDirDx[dir]);
        const Weight w = edge_weight(p, a, values[m], is_diagonal(dir), &overflow);
        if (w == kNoEdge) continue;
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
        keys[count++] = tile_edge_key(w, l * 4u + rank);
      }
    }
  }
  *lowest = lo;
  *highest = hi;
  if (overflow) *overflowed = true;
  return count;
}

std::size_t emit_edges_any(const double* values, std::uint32_t t, const WeightParams& params,
                           Connectivity connectivity, std::uint64_t* keys, Weight* lowest, Weight* highest,
                           bool* overflowed) {
  const bool eight = connectivity == Connectivity::Eight;
#define TERRAZO_EMIT(model)                                                                   \
  (eight ? emit_edges<model, true>(values, t, params, keys, lowest, highest, overflowed) \
         : emit_edges<model, false>(values, t, params, keys, lowest, highest, overflowed))
  switch (params.model) {
    case WeightModel::Max: return TERRAZO_EMIT(static_cast<int>(WeightModel::Max));
    case WeightModel::AbsDiff: return TERRAZO_EMIT(static_cast<int>(WeightModel::AbsDiff));
    case WeightModel::Friction: return TERRAZO_EMIT(static_cast<int>(WeightModel::Friction));
    default: return TERRAZO_EMIT(-1);
  }
#undef TERRAZO_EMIT
}

}  // namespace

void block_mst_cpu(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                   std::uint8_t* forest_bits, bool* overflow) {
  const std::size_t cells = static_cast<std::size_t>(t) * t;
  std::memset(forest_bits, 0, cells);
  if (t == 0) return;
  thread_local KruskalScratch scratch;
  scratch.keys.ensure(4 * cells);
  scratch.sorted.ensure(4 * cells);
  scratch.parent.ensure(cells);
  scratch.size.ensure(cells);
  std::uint64_t* keys = scratch.keys.data();

  // 1. Edges in local edge-id order: for each owner, ranks E(0) < SW(1) < S(2) < SE(3).
  bool overflowed = false;
  Weight lowest = 0, highest = 0;
  const std::size_t count =
      emit_edges_any(values, t, params, connectivity, keys, &lowest, &highest, &overflowed);
  if (overflowed) {
    *overflow = true;
    return;
  }

  // 2. Full key order.
  sort_by_weight(scratch.keys, scratch.sorted, count, lowest, highest);

  // 3. Kruskal.
  std::uint32_t* parent = scratch.parent.data();
  std::uint32_t* size = scratch.size.data();
  for (std::uint32_t v = 0; v < cells; ++v) {
    parent[v] = v;
    size[v] = 1;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t id = static_cast<std::uint32_t>(keys[i]);
    const std::uint32_t l = tile_edge_owner(id);
    const int dir = tile_edge_direction(id);
    const std::uint32_t m = l + static_cast<std::uint32_t>(kDirDy[dir]) * t + static_cast<std::uint32_t>(kDirDx[dir]);
    std::uint32_t ra = union_find_root(parent, l);
    std::uint32_t rb = union_find_root(parent, m);
    if (ra == rb) continue;
    if (size[ra] < size[rb]) std::swap(ra, rb);
    parent[rb] = ra;
    size[ra] += size[rb];
    forest_bits[l] |= static_cast<std::uint8_t>(1u << dir);
  }
}

}  // namespace terrazo
