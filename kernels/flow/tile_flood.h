// kernels/flow/tile_flood.h: Priority-Flood with labels inside one tile, the block step of
// out-of-core depression filling (engine/flow/fill.h; [Barnes2016], [Barnes2014]).
//
// Contract. The tile's valid cells (not NaN, inside its `width` x `height` extent) are flooded from
// seeds: every valid cell on the tile's perimeter, and every outlet inside it (a cell next to an
// in-tile nodata cell when `nodata_outlets`; a cell on a side of the tile that is the raster's edge
// when `edge_outlets`). Outlets take label kOceanLabel; every other perimeter seed a label of its own,
// 2, 3, ... in the order of the perimeter walk (top row left to right, bottom row, left column top
// to bottom, right column). A cell popped at level k floods its unlabelled neighbours with its label
// at level max(elevation, k); a neighbour of another label gives a spill edge between the two labels
// at max(k, the neighbour's level), the least such level kept per pair.
// Results: `level` (the tile's cells filled as if every perimeter cell drained; NaN at nodata),
// `label` (0 at nodata and outside the extent), `labels` (one past the largest label), `edges`
// (each pair once, a < b, sorted by (a, b)). The pops run by level, equal levels in an order fixed
// by the tile's cells alone (a radix heap's, kernels/common/radix_heap.h), so labels and edges depend
// only on the tile's cells: the second pass of the pipeline recomputes them alike. Which label takes
// a cell that two reach at one level may differ from another tie order; the filled surface does not.
// No I/O: the caller reads and writes tiles.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/radix_heap.h"
#include "kernels/common/types.h"
#include "kernels/flow/fill_rules.h"

namespace terrazo {

constexpr std::uint32_t kNoLabel = 0;
constexpr std::uint32_t kOceanLabel = 1;

// A tile's cells under the fill's rules (connectivity, edge and nodata outlets).
struct TileFloodInput : FillRules {
  const double* cells = nullptr;  // t * t, row-major; NaN: nodata (and padding outside the extent)
  std::uint32_t t = 0;  // a power of two, at most 16384 (io/store/tile_store_format.h kMaxTile)
  std::uint32_t width = 0, height = 0;  // the valid extent (a tile on the raster's right or bottom edge is cut)
  // Which sides of the tile are the raster's edge: top, bottom, left, right.
  bool raster_top = false, raster_bottom = false, raster_left = false, raster_right = false;
  // False: no spill edges (`edges` left empty; a pass that needs only levels and labels).
  bool want_edges = true;
};

struct SpillEdge {
  std::uint32_t a = 0, b = 0;  // labels, a < b
  double level = 0;
};

// flood_tile's queue entry: a cell of the tile at its flood level.
struct FloodEntry {
  double level = 0;
  std::uint32_t cell = 0;  // y * t + x
};

// flood_tile's table of the least spill level per label pair.
struct SpillSlot {
  std::uint64_t key = 0;  // (a << 32) | b; 0: empty
  double level = 0;
};

struct TileFlood {
  std::vector<double> level;          // t * t
  std::vector<std::uint32_t> label;   // t * t
  std::uint32_t labels = 2;           // labels used: 0 .. labels - 1
  std::vector<SpillEdge> edges;
  // flood_tile's working storage, kept so that a slot's next tile allocates nothing.
  RadixHeap<std::uint64_t> heap;  // by the levels' order-preserving bits
  std::vector<FloodEntry> pit;
  std::vector<SpillSlot> spill_slots;
};

// Floods `in` into `out` (its vectors reused between calls).
void flood_tile(const TileFloodInput& in, TileFlood& out);

// The bytes flood_tile holds for a tile of side t (levels, labels, its queue in the worst case), for budgets.
std::uint64_t tile_flood_bytes(std::uint32_t t);

}  // namespace terrazo
