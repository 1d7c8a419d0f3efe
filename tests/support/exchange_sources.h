// tests/support/exchange_sources.h: point sources handed to an SSSP exchange tile by tile, as the
// pipeline does (engine/commands/sssp_pass.cpp), for the tests and the GPU checks that drive an
// exchange directly (test_sssp_pipeline.cpp, test_knight.cpp, tools/bench/gpu_checks/sssp_gpu_check.cpp).
// Header only and GDAL-free.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "engine/sssp/exchange.h"
#include "io/store/tile_store.h"

namespace terrazo::testing {

// Step 1 of `exchange` over `grid` for the sources (raster cell, id): grouped by tile, tiles in
// row-major order, each tile's sources in the order given. Returns the raster cells the exchange
// did not set (nodata), tile by tile.
inline std::vector<std::uint64_t> add_cell_sources(SsspExchangeRun& exchange, const TileGrid& grid,
                                                   const std::vector<std::pair<std::uint64_t, std::uint32_t>>& sources) {
  const std::uint32_t t = grid.tile;
  const std::uint64_t tiles_x = grid.tiles_x();
  std::map<std::uint64_t, std::vector<TileSource>> by_tile;
  for (const auto& [cell, id] : sources) {
    const std::uint64_t x = cell % grid.width, y = cell / grid.width;
    by_tile[(y / t) * tiles_x + x / t].push_back(TileSource{static_cast<std::uint32_t>((y % t) * t + x % t), id});
  }
  std::vector<std::uint64_t> rejected;
  for (const auto& [tile, list] : by_tile) {
    const auto tx = static_cast<std::uint32_t>(tile % tiles_x), ty = static_cast<std::uint32_t>(tile / tiles_x);
    for (const std::uint32_t local : exchange.add_sources(tx, ty, list))
      rejected.push_back((static_cast<std::uint64_t>(ty) * t + local / t) * grid.width + static_cast<std::uint64_t>(tx) * t +
                         local % t);
  }
  return rejected;
}

}  // namespace terrazo::testing
