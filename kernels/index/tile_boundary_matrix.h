// kernels/index/tile_boundary_matrix.h: a tile's boundary-to-boundary distance matrix by nested
// dissection: leaf blocks by blocked Floyd-Warshall, then 2x2 merges up to the tile (index build,
// docs/index.md "Nested dissection").
//
// Source: [Gerritsen2012, ch. 4] (the boundary graph G' and its tile matrices); [PandeySharma] for the
// leaves; the merge of boundary_merge.h.
//
// Contract (the CPU twin and the CUDA batch give the same bits; the leaf side changes the work, never
// the result, since every matrix holds exact distances):
//   in   values[t * t] row-major (NaN = nodata or padding), t a power of two, 16 <= t <= 4096
//   out  out[ring_size(t)^2]: row-major in ring order (boundary_ring.h), out[p][q] = shortest distance
//        from ring cell p to ring cell q over paths inside the tile (kUnreached where none; 0 on the
//        diagonal of a valid cell, kUnreached on that of a nodata cell).
//   *overflow set when a weight does not fit.
//   leaf: 4, 8 or 16 (<= t).
// Plain formula: ring_size(t) Dijkstras inside the tile (the tests' reference).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

constexpr std::uint32_t kDefaultIndexLeaf = 8;

// Entries of host workspace tile_boundary_matrix_cpu needs for one tile.
std::uint64_t tile_boundary_workspace_entries(std::uint32_t t, std::uint32_t leaf);

void tile_boundary_matrix_cpu(const double* values, std::uint32_t t, std::uint32_t leaf, const WeightParams& params,
                              Connectivity connectivity, std::vector<PathLength>& workspace, PathLength* out,
                              bool* overflow);

// CUDA: tile_count tiles back to back (values t*t each, out ring_size(t)^2 each), host pointers; the
// leaves of all tiles in one launch per Floyd-Warshall phase, then per merge level the union and three
// launches per block of 32 pivots (boundary_merge.cu).
// Device memory it needs for tile_count tiles (the caller sizes batches with it).
std::uint64_t tile_boundary_cuda_bytes(std::uint32_t t, std::uint32_t leaf, std::uint64_t tile_count);
// Returns the kernel time in milliseconds.
double tile_boundary_matrix_cuda(const double* values, std::uint64_t tile_count, std::uint32_t t, std::uint32_t leaf,
                                 const WeightParams& params, Connectivity connectivity, PathLength* out,
                                 bool* overflow);
// The same with the matrices left on the GPU: d_out is device memory for tile_count x ring_size(t)^2
// entries (GPrimeRoundsCuda::device_matrices: an index built straight into the query's memory).
double tile_boundary_matrix_cuda_to_device(const double* values, std::uint64_t tile_count, std::uint32_t t,
                                           std::uint32_t leaf, const WeightParams& params, Connectivity connectivity,
                                           PathLength* d_out, bool* overflow);

// The two calls above allocate their device buffers for the batch and free them; a build of many
// batches keeps one of these (tile_boundary_cuda_bytes(t, leaf, max_tiles) of device memory) and calls
// build per batch: out is host memory, or device memory with out_on_device. Returns the kernel ms.
// It may also hold page-locked host buffers for a batch that the caller fills and passes to build
// (the copies then run at the bus's speed instead of through the driver's staging of pageable
// memory): PinnedHost::Values, max_tiles x t^2 values (8 bytes each); PinnedHost::ValuesAndMatrices,
// also max_tiles x B^2 matrices back (8 bytes each: 520 MB for 1024 tiles of 64). The caller reserves
// them from its budget; a build whose matrices stay on the device (out_on_device) asks for the values
// only. host_values() / host_matrices() are null where not held.
enum class PinnedHost { None, Values, ValuesAndMatrices };
class TileBoundaryCuda {
 public:
  TileBoundaryCuda(std::uint32_t t, std::uint32_t leaf, std::uint64_t max_tiles, PinnedHost pinned_host = PinnedHost::None);
  double* host_values();
  PathLength* host_matrices();
  ~TileBoundaryCuda();
  TileBoundaryCuda(const TileBoundaryCuda&) = delete;
  TileBoundaryCuda& operator=(const TileBoundaryCuda&) = delete;
  double build(const double* values, std::uint64_t tile_count, const WeightParams& params, Connectivity connectivity,
               PathLength* out, bool out_on_device, bool* overflow);

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::uint32_t t_ = 0, leaf_ = 0;
  std::uint64_t max_tiles_ = 0;
};

}  // namespace terrazo
