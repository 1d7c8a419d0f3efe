// kernels/sssp/block_sssp.h: exact shortest distances inside one tile, seeded from its halo (SSSP phase 1-2).
//
// Source: docs/sssp.md "Block solver"; [Gerritsen2012, ch. 4-5] for
// the block decomposition; [Malison2012] for GPU relaxation.
//
// Layout: the tile with a one-cell halo ring, (t+2) x (t+2), row-major, interior cell (lx, ly) at
// index (ly+1)*(t+2) + (lx+1). values: NaN = nodata/padding/outside the raster. With
// Connectivity::Sixteen (knight's moves, kernels/sssp/knight.h; CUDA twin: block_sssp_knight.cu) the halo is two cells wide:
// (t+4) x (t+4), interior cell at (ly+2)*(t+4) + (lx+2), and every halo cell holds its value.
// Contract (CPU and CUDA implementations give identical distances):
//   in     values[(t+2)^2]; dist[(t+2)^2]: interior = current distances (kUnreached or finite, sources
//          already 0), halo = current distances of the neighbouring cells (read only)
//   out    interior dist[u] = min( dist_in[u], min over seeds s and paths s -> u whose cells after s are
//          all interior and valid: dist_in[s] + sum of edge weights ); seeds are all cells (halo or
//          interior) with finite dist_in. Halo cells are never intermediate cells of a path and are
//          never written. A distance > max_cost is treated as unreached: never stored, never expanded.
//          changed[t*t] (interior, row-major t) = 1 where the distance decreased, else 0.
//          returns the number of changed cells; *overflow set when a weight does not fit.
// Plain formula: Dijkstra from all finite cells at once (CPU: radix heap on 64-bit integer keys).
#pragma once
#include <cstdint>

#include "kernels/common/tile_geometry.h"

namespace terrazo {

std::uint64_t block_sssp_cpu(const double* values, std::uint32_t t, const WeightParams& params,
                             Connectivity connectivity, PathLength max_cost, PathLength* dist,
                             std::uint8_t* changed, bool* overflow);

// Optional lexicographic labels (CPU only; the pipeline uses them for backlinks and allocation).
// Every cell with a finite distance carries the label (dist, source, hops), compared
// lexicographically; an absent array counts as all zeros. Extending a path by an edge of weight w
// maps (d, s, h) to (d + w, s, h + 1), so labels strictly increase along paths and the minimum
// label of a cell is attained by a neighbour whose label is (d - w, s, h - 1): following such
// neighbours ends at a seed with hops 0 without cycles, even on zero-weight plateaus.
//   out    interior label[u] = min( label_in[u], min over seeds s and paths s -> u as above:
//          (dist_in[s] + W(path), source_in[s], hops_in[s] + edges(path)) ); changed[u] = 1 where the
//          label decreased. With both arrays absent this is exactly block_sssp_cpu.
//   pre    hops_in[s] + t*t < 2^32 for every seed s (the pipeline checks it).
struct SsspLabels {
  std::uint32_t* source = nullptr;  // (t+2)^2 like dist: the id of the source the label comes from
  std::uint32_t* hops = nullptr;    // (t+2)^2: edges on the label's path
  // Seeding hint (labels or not; the result is the same either way): true promises that every edge
  // between two valid interior cells already satisfies label(v) <= extend(label(u), w(u, v)) for
  // finite u (so after a previous solve of the tile, when only halo labels changed since). Then
  // only halo cells are scanned for seeds, and a re-solve costs O(t + improved region).
  bool interior_consistent = false;
};

std::uint64_t block_sssp_cpu_labelled(const double* values, std::uint32_t t, const WeightParams& params,
                                      Connectivity connectivity, PathLength max_cost, PathLength* dist,
                                      const SsspLabels& labels, std::uint8_t* changed, bool* overflow);

// CUDA: tile_count tiles back to back ((t+2)^2 values and distances, t*t changed flags each), host
// pointers; one thread block per tile, relaxation sweeps until the tile converges.
std::uint64_t block_sssp_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t,
                              const WeightParams& params, Connectivity connectivity, PathLength max_cost,
                              PathLength* dist, std::uint8_t* changed, bool* overflow);

}  // namespace terrazo
