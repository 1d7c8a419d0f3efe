// engine/sssp/output.h: phase 3 of the SSSP pipeline: final labels -> per-tile results.
//
// For every tile of the grid, row-major in tile order, reads the tile's final labels from the
// DistanceStore (after SsspExchange::flush) or the resident exchange's device and hands them to a sink: the GeoTIFF writers in the
// pipeline (engine/commands/sssp_pass.cpp), memory in tests. With backlinks, the tile's values and ring
// are loaded too and kernels/sssp/backlink.h computes the directions from the FINAL labels.
// Tiles no source reached are delivered as all-unreached without any read. With release_tiles, each
// tile's slot is released from the store (DistanceStore::release) once the sink has taken it, so
// the store's disk space goes back while the outputs are written; the store then reads as empty.
// Memory: one tile in the (t+2)^2 layout: (t+2)^2 x (8 value + 8 dist + 8 labels) + t*t backlinks
// + the store's ring (24 bytes x (4t+4)), reserved from the budget, per tile in flight: the labels
// are read one tile at a time, then a batch of up to 2 x options.threads tiles (as many as the
// budget holds beside the first, whose bytes the run checks up front) has its statistics, backlinks
// and the sink's conversions computed on that many threads, and is handed to the sink in order.
#pragma once
#include <cstdint>
#include <functional>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/sssp/distance_store.h"
#include "engine/sssp/exchange.h"

namespace terrazo {

struct SsspTileResult {
  std::uint32_t tx = 0, ty = 0;
  std::uint64_t x0 = 0, y0 = 0;  // raster position of the tile's first cell
  std::uint32_t width = 0, height = 0;  // cells of the tile inside the raster
  std::uint32_t stride = 0;      // t: row pitch of the arrays below
  bool reached = false;          // false: every cell unreached (arrays hold exactly that)
  const PathLength* dist = nullptr;            // kUnreached where unreached
  const std::uint32_t* source = nullptr;       // allocation ids (track_source runs), else null
  const std::uint8_t* backlink = nullptr;      // kNoBacklink = 255 where none (backlink runs), else null
  unsigned slot = 0;                           // which of the sink's slots prepare_tile used
};

// The result of tile (tx, ty) of `grid` before its labels: its position and size in the raster, and
// `stride`, the row pitch of its arrays.
inline SsspTileResult sssp_tile_result(const TileGrid& grid, std::uint32_t tx, std::uint32_t ty, std::uint32_t stride) {
  const TileWindow window = grid.window(tx, ty);
  SsspTileResult result;
  result.tx = tx;
  result.ty = ty;
  result.x0 = window.x0;
  result.y0 = window.y0;
  result.width = window.w;
  result.height = window.h;
  result.stride = stride;
  return result;
}

// write_tile is called for every tile in raster order, one at a time, on the calling thread.
// A sink that converts cells (the GeoTIFF writers) does it in prepare_tile instead: up to slots()
// tiles, each in its own slot, are prepared at once on worker threads, then written in order.
class SsspResultSink {
 public:
  virtual ~SsspResultSink() = default;
  // Bytes one more slot costs; 0: the sink prepares nothing (one slot).
  virtual std::uint64_t slot_bytes() const { return 0; }
  // Called once, before any tile: slots [0, count) exist (the sink reserves what they need).
  virtual void set_slots(unsigned count) { (void)count; }
  virtual void prepare_tile(const SsspTileResult& tile) { (void)tile; }
  virtual void write_tile(const SsspTileResult& tile) = 0;
};

struct SsspOutputStats {
  std::uint64_t reached_cells = 0;
  PathLength max_dist = 0;  // largest finite distance (fixed point)
  std::uint64_t bytes_read = 0;
  // Where the phase's time went: reading the labels (the reader thread, beside the rest), preparing
  // the tiles (the pool) and handing them to the sink (which waits for its encoders when they lag).
  double read_seconds = 0, prepare_seconds = 0, hand_off_seconds = 0;
};

// `options` are the exchange's (weights, connectivity, which labels exist). Backlinks need
// options.track_hops. Throws Error when a reached cell has no predecessor (labels not final).
// Bytes write_sssp_results reserves ("sssp output tile") for tiles of `t` cells: the run checks
// them up front, before the exchange (docs/reliability.md "The budget promise").
std::uint64_t sssp_output_tile_bytes(std::uint32_t t, bool labelled, bool backlinks, std::uint32_t halo = 1);

// `mine` (a distributed run: this rank's tiles): only the tiles it accepts are read and handed to
// the sink, still in raster order; null: every tile.
SsspOutputStats write_sssp_results(const TileInput& input, SsspLabelSource& store, const SsspExchangeOptions& options,
                                   bool backlinks, SsspResultSink& sink, MemoryBudget& budget, Progress& progress,
                                   bool release_tiles = false,
                                   const std::function<bool(std::uint64_t)>& mine = nullptr);

}  // namespace terrazo
