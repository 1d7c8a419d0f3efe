// kernels/mst/block_mst.h: minimum spanning forest of one tile (phase 1 of the MST pipeline).
//
// Source: [Gerritsen2012, sec. 3.1] (GPU Boruvka with packed atomic keys) and
// [Gerritsen2012, sec. 3.3] (block-local MST); docs/mst.md "The pipeline".
//
// Contract (CPU and CUDA implementations are bit-identical):
//   input  values[t*t]  the tile, row-major (kernels/common/tile_geometry.h), NaN = nodata or padding
//          params, connectivity
//   output forest_bits[t*t]  bit d (d = 0..3: E, SE, S, SW) of cell l is set iff the edge from l in
//          direction d joins two cells of this tile and belongs to the minimum spanning forest of the
//          tile's subgraph under the total order key = tile_edge_key(weight, tile_edge_id(l, d)).
//          Bits 4..7 are zero. Edges leaving the tile are not considered here.
//          *overflow is set (never cleared) when a weight does not fit (kernels/common/edge_weight.h);
//          the forest is then unspecified and the caller reports the error.
// Plain formula: Kruskal over the tile's edges sorted by key, with union-find.
// The key order equals the (weight, min global id, max global id) order of docs/mst.md, so the forest is
// unique, and (cycle property) the global MST restricted to the tile is a sub-forest of it.
#pragma once
#include <cstdint>

#include "kernels/common/tile_geometry.h"

namespace terrazo {

void block_mst_cpu(const double* values, std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                   std::uint8_t* forest_bits, bool* overflow);

// CUDA: `tile_count` tiles back to back (t*t values each, t*t output bytes each), host pointers.
// Boruvka with one 64-bit key (weight << 32 | edge id) per candidate and atomicMin per component,
// one thread block per tile. Throws terrazo::Error on any CUDA failure (or when built without CUDA).
void block_mst_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, const WeightParams& params,
                    Connectivity connectivity, std::uint8_t* forest_bits, bool* overflow);

}  // namespace terrazo
