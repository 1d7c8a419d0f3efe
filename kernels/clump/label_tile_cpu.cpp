// kernels/clump/label_tile_cpu.cpp: the CPU twin of label_tile (kernels/clump/label_tile.h).
#include "kernels/clump/label_tile.h"

#include <string>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

// Joins the sets of a and b, the larger root under the smaller: roots stay first cells.
inline void join(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
  std::uint32_t ra = union_find_root(parent, a), rb = union_find_root(parent, b);
  if (ra == rb) return;
  if (ra < rb) parent[rb] = ra;
  else parent[ra] = rb;
}

}  // namespace

std::uint32_t label_tile_cpu(const double* keys, std::uint32_t t, Connectivity connectivity, std::uint32_t* labels,
                             UnionFind& scratch) {
  const std::uint32_t n = t * t;
  std::vector<std::uint32_t>& parents = scratch.parents();
  if (parents.size() < n) parents.resize(n);
  std::uint32_t* parent = parents.data();
  const bool eight = connectivity == Connectivity::Eight;
  // Pass 1. When cell i is met it is a singleton, so its first link is parent[i] = parent[j] of a
  // neighbour j < i with the same key (an ancestor of j, below i: no find); only a second, possibly
  // different, set needs a union. With 8 neighbours, N's set already holds W, NW and NE when they
  // share its key (W's NE is N, N's W is NW, NE's W is N), and W's holds NW; so: N; else W or NW,
  // then NE (the one neighbour not adjacent to them). With 4: N, then W (not adjacent to N).
  for (std::uint32_t y = 0; y < t; ++y) {
    const double* row = keys + static_cast<std::size_t>(y) * t;
    const double* up = y > 0 ? row - t : nullptr;
    for (std::uint32_t x = 0; x < t; ++x) {
      const std::uint32_t i = y * t + x;
      const double k = row[x];
      if (k != k) {
        parent[i] = kNoRegion;  // no region: pass 2 reads the parents only
        continue;
      }
      const bool w = x > 0 && row[x - 1] == k;
      if (!up) {
        parent[i] = w ? parent[i - 1] : i;
        continue;
      }
      if (up[x] == k) {
        parent[i] = parent[i - t];
        if (!eight && w) join(parent, i, i - 1);
        continue;
      }
      const bool ne = eight && x + 1 < t && up[x + 1] == k;
      if (w) {
        parent[i] = parent[i - 1];
        if (ne) join(parent, i, i - t + 1);
      } else if (eight && x > 0 && up[x - 1] == k) {
        parent[i] = parent[i - t - 1];
        if (ne) join(parent, i, i - t + 1);
      } else {
        parent[i] = ne ? parent[i - t + 1] : i;
      }
    }
  }
  // Pass 2, in cell order: parent[i] < i is flattened already, so its parent is i's root (roots
  // are their sets' smallest cells: every link points down); roots are numbered as they are met.
  // A cell without a region has parent kNoRegion (pass 1; no cell's parent is kNoRegion otherwise,
  // as t^2 - 1 < kNoRegion), so this pass does not read the keys again.
  std::uint32_t regions = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t p = parent[i];
    if (p == kNoRegion) {
      labels[i] = kNoRegion;
      continue;
    }
    if (p == i) {
      labels[i] = regions++;
      continue;
    }
    const std::uint32_t root = parent[p];
    parent[i] = root;
    labels[i] = labels[root];
  }
  return regions;
}

void summarize_tile_border(const std::uint32_t* labels, std::uint32_t regions, std::uint32_t t, TileBorder* out) {
  TileBorder& b = *out;
  b.region.clear();
  b.first_cell.clear();
  b.starts_before.clear();
  b.cells.clear();
  b.ring.assign(4ull * t, kNoRegion);
  b.interior_starts_per_row.assign(t, 0);
  b.interior_largest = 0;
  // border index of each region (kNoRegion: interior), in local label order.
  std::vector<std::uint32_t> border_of(regions, kNoRegion);
  std::vector<char> on_ring(regions, 0);
  for (std::uint32_t p = 0; p < 4 * t; ++p) {
    const std::uint32_t l = labels[ring_cell(p, t)];
    if (l != kNoRegion) on_ring[l] = 1;
  }
  std::uint32_t border = 0;
  for (std::uint32_t l = 0; l < regions; ++l)
    if (on_ring[l]) border_of[l] = border++;
  b.region.resize(border);
  b.first_cell.resize(border);
  b.starts_before.resize(border);
  b.cells.assign(border, 0);
  std::vector<std::uint64_t> interior_cells(regions, 0);
  // Row-major scan: first cells appear in label order.
  std::uint32_t seen = 0;
  for (std::uint32_t y = 0; y < t; ++y) {
    std::uint32_t interior_in_row = 0;
    for (std::uint32_t x = 0; x < t; ++x) {
      const std::uint32_t i = y * t + x;
      const std::uint32_t l = labels[i];
      if (l == kNoRegion) continue;
      const std::uint32_t bi = border_of[l];
      if (bi != kNoRegion) ++b.cells[bi];
      else ++interior_cells[l];
      if (l != seen) continue;  // not a first cell
      ++seen;
      if (bi == kNoRegion) {
        ++interior_in_row;
      } else {
        b.region[bi] = l;
        b.first_cell[bi] = i;
        b.starts_before[bi] = interior_in_row;
      }
    }
    b.interior_starts_per_row[y] = interior_in_row;
  }
  b.interior_regions = regions - border;
  b.labelled = 0;
  for (std::uint32_t l = 0; l < regions; ++l) {
    b.labelled += interior_cells[l];
    if (border_of[l] == kNoRegion && interior_cells[l] > b.interior_largest) b.interior_largest = interior_cells[l];
  }
  for (std::uint64_t c : b.cells) b.labelled += c;
  for (std::uint32_t p = 0; p < 4 * t; ++p) {
    const std::uint32_t l = labels[ring_cell(p, t)];
    if (l != kNoRegion) b.ring[p] = border_of[l];
  }
}

void unpack_tile_border(const std::uint32_t* packed, std::uint32_t t, TileBorder* out) {
  TileBorder& b = *out;
  const ClumpSummaryLayout at{t};
  const std::uint32_t border = packed[0];
  if (border > 4 * t) throw Error("internal error: a packed tile summary has " + std::to_string(border) + " border regions");
  b.interior_regions = packed[1];
  b.interior_largest = packed[2] | static_cast<std::uint64_t>(packed[3]) << 32;
  b.labelled = packed[4] | static_cast<std::uint64_t>(packed[5]) << 32;
  b.ring.assign(packed + at.ring(), packed + at.ring() + 4ull * t);
  b.interior_starts_per_row.assign(packed + at.rows(), packed + at.rows() + t);
  b.region.assign(packed + at.region(), packed + at.region() + border);
  b.first_cell.assign(packed + at.first_cell(), packed + at.first_cell() + border);
  b.starts_before.assign(packed + at.starts_before(), packed + at.starts_before() + border);
  b.cells.assign(packed + at.cells(), packed + at.cells() + border);
}

std::uint32_t tile_border_index(const std::uint32_t* labels, std::uint32_t regions, std::uint32_t t,
                                std::vector<std::uint32_t>* border_of) {
  std::vector<std::uint32_t>& b = *border_of;
  b.assign(regions, kNoRegion);
  for (std::uint32_t p = 0; p < 4 * t; ++p) {
    const std::uint32_t l = labels[ring_cell(p, t)];
    if (l != kNoRegion) b[l] = 0;  // on the ring; its index below
  }
  std::uint32_t border = 0;
  for (std::uint32_t l = 0; l < regions; ++l)
    if (b[l] != kNoRegion) b[l] = border++;
  return border;
}

}  // namespace terrazo
