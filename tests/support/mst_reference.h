// tests/support/mst_reference.h: the in-memory oracle for the MST pipeline (tests only).
//
// Plain Kruskal over the whole raster with union-find: every edge (u, v) of the grid graph whose
// ends are both valid, weight from kernels/common/edge_weight.h, sorted by the total order of docs/mst.md
// (weight, min global id, max global id), accepted when it joins two different sets. Simple and
// obviously right; O(N log N) time and about 40 bytes per cell, so only for small rasters.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/edge_weight.h"

namespace terrazo::testing {

struct ReferenceMst {
  std::vector<std::uint8_t> bits;  // W*H, the edge raster of docs/mst.md "Outputs": bit 0 E, 1 SE, 2 S, 3 SW; 255 = nodata
  std::uint64_t edges = 0;
  std::uint64_t vertices = 0;      // valid cells
  std::uint64_t components = 0;    // vertices - edges
  std::uint64_t total_weight = 0;  // sum of fixed-point weights
  bool overflow = false;           // some weight did not fit (bits are then meaningless)
};

// `values` row-major W*H, NaN = nodata.
ReferenceMst reference_mst(const std::vector<double>& values, std::uint64_t width, std::uint64_t height,
                           const WeightParams& params, Connectivity connectivity);

// The same forest's totals only (edges, vertices, components, total weight), with one packed 64-bit
// key per edge (weight << 32 | id * 4 + rank, rank E < SW < S < SE) and a 32-bit union-find: 8 bytes
// per edge + 4 per cell besides the values, so a 64 M-cell crop fits in about 2.5 GiB. Requires
// W * H <= 2^30. Same order, same forest as reference_mst.
ReferenceMst reference_mst_totals(const std::vector<double>& values, std::uint64_t width, std::uint64_t height,
                                  const WeightParams& params, Connectivity connectivity);

// Whether the edge from cell (x, y) in owned direction d (0..3) exists in the grid graph.
bool reference_edge_exists(const std::vector<double>& values, std::uint64_t width, std::uint64_t height,
                           std::uint64_t x, std::uint64_t y, int dir, Connectivity connectivity);

}  // namespace terrazo::testing
