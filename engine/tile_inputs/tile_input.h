// engine/tile_inputs/tile_input.h: where the pipelines read the raster's cells, tile by tile: a tile store in
// the pipelines (api/), memory in the tests and the GPU checks. One interface for the MST phases
// (engine/mst/phases.h) and the SSSP exchange and output (engine/sssp/exchange.h, output.h).
#pragma once
#include <cstdint>

#include "io/store/tile_store.h"

namespace terrazo {

class TileInput {
 public:
  virtual ~TileInput() = default;
  virtual const TileGrid& grid() const = 0;
  virtual bool tile_present(std::uint32_t tx, std::uint32_t ty) const = 0;
  // t*t values, row-major; NaN = nodata or padding. Called from several threads at once (disjoint tiles).
  virtual void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const = 0;
  virtual std::uint64_t bytes_read() const = 0;
};

}  // namespace terrazo
