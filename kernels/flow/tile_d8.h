// kernels/flow/tile_d8.h: one tile of a D8 direction raster as a graph: each cell's downstream
// neighbour inside the tile, a topological order of the tile's cells, the accumulation along it and
// where each cell's path inside the tile ends; the block step of out-of-core flow accumulation and
// watersheds (engine/flow/flowacc_phases.h; [Barnes2017, sec. 3]).
//
// Contract. `codes` holds the tile's t x t cells (NaN: nodata and padding outside the width x height
// extent); each valid cell holds one of the codes of kernels/flow/d8_codes.h (255 is nodata too).
// A cell's flow:
//   - ends there (kFlowEnds) when its code is 0, or it points off the raster, or at a nodata cell of
//     the tile: the flow leaves the data there, and the cell is an outlet;
//   - leaves the tile (kFlowLeaves) when it points at a cell of a neighbouring tile: whether that
//     cell is valid is the caller's to decide (its tile holds it);
//   - else goes to the in-tile cell `next`.
// order_tile_d8 refuses (UsageError naming the cell `column,row` of the raster) a value that is no
// code, and a loop inside the tile (the cell named is on the loop). The order lists the valid cells
// so that every cell comes after each cell that flows into it (Kahn's algorithm over in-degrees,
// seeded in row-major order: the order depends on the tile's codes alone).
// No I/O, no allocation beyond the vectors of TileD8 (reused between calls).
#pragma once
#include <cstdint>
#include <vector>

namespace terrazo {

constexpr std::uint32_t kFlowEnds = 0xffffffffu;
constexpr std::uint32_t kFlowLeaves = 0xfffffffeu;
constexpr std::uint32_t kNotACell = 0xfffffffdu;  // `next` of a nodata cell

struct TileD8Input {
  const double* codes = nullptr;  // t * t, row-major; NaN or 255: nodata
  std::uint32_t t = 0;
  std::uint32_t width = 0, height = 0;  // the valid extent
  std::uint64_t x0 = 0, y0 = 0;         // the tile's first cell in the raster, for messages
  // Which sides of the tile are the raster's edge: a code pointing across them points off the raster.
  bool raster_top = false, raster_bottom = false, raster_left = false, raster_right = false;
};

struct TileD8 {
  std::uint32_t t = 0, width = 0, height = 0;
  std::vector<std::uint8_t> code;     // t * t: the code; kD8Nodata at nodata and outside the extent
  std::vector<std::uint32_t> next;    // t * t: in-tile index downstream, kFlowEnds, kFlowLeaves or kNotACell
  std::vector<std::uint32_t> order;   // the valid cells, upstream before downstream
  std::vector<std::uint8_t> in_degree;  // t * t: scratch of the ordering
};

// Decodes `in` into `out` and orders its valid cells; UsageError for a bad code or a loop.
void order_tile_d8(const TileD8Input& in, TileD8& out);

// amount[i] (t * t, each valid cell's own amount on entry) becomes the sum over the cells of the tile
// whose flow passes through i (i included) of their amounts. Integer sums: the result does not depend
// on the order of additions. False when a sum overflows int64 (amount is then unspecified).
bool accumulate_tile_d8(const TileD8& flow, std::int64_t* amount);

// end[i] (t * t) for each valid cell: the in-tile index of the last cell of its path inside the tile
// (a cell whose `next` is kFlowEnds or kFlowLeaves); kNotACell at nodata.
void tile_d8_path_ends(const TileD8& flow, std::uint32_t* end);

// The bytes order_tile_d8 holds for a tile of side t (code, next, order, in-degrees), for budgets.
std::uint64_t tile_d8_bytes(std::uint32_t t);

}  // namespace terrazo
