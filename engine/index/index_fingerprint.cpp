// engine/index/index_fingerprint.cpp: check_index_raster (engine/index/index_fingerprint.h).
#include "engine/index/index_fingerprint.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

std::string hex(std::uint64_t v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%016" PRIx64, v);
  return buffer;
}

// The values CRC of every tile of `input` in row-major order, as build_index computes them.
std::vector<std::uint32_t> tile_values_crcs(const TileInput& input, MemoryBudget& budget) {
  const TileGrid& grid = input.grid();
  const std::uint64_t cells = static_cast<std::uint64_t>(grid.tile) * grid.tile;
  MemoryBudget::Reservation reservation =
      budget.reserve(cells * 8 + grid.tile_count() * 4, "index fingerprint check (one tile, a CRC per tile)");
  std::vector<double> values(cells);
  std::vector<std::uint32_t> crcs(grid.tile_count());
  for (std::uint64_t i = 0; i < crcs.size(); ++i) {
    const auto tx = static_cast<std::uint32_t>(i % grid.tiles_x()), ty = static_cast<std::uint32_t>(i / grid.tiles_x());
    if (input.tile_present(tx, ty)) input.read_tile(tx, ty, values.data());
    else std::fill(values.begin(), values.end(), std::nan(""));
    crcs[i] = index_values_crc(values.data(), cells);
  }
  return crcs;
}

}  // namespace

void check_index_raster(const IndexFile& index, const std::string& index_path, const TileInput& input,
                        const TileStore* store, const std::string& input_path, MemoryBudget& budget) {
  const IndexFileHeader& h = index.header();
  const TileGrid& grid = input.grid();
  // Another size or tile is check_index_fits' usage error, which names both sizes.
  if (h.width != grid.width || h.height != grid.height || h.tile != grid.tile) return;
  if (store && store->content_fingerprint() == h.store_fingerprint) return;
  const std::vector<std::uint32_t> crcs = tile_values_crcs(input, budget);
  const std::uint64_t fingerprint = index_fingerprint(grid.width, grid.height, crcs);
  if (fingerprint == h.fingerprint) return;
  std::string first;
  for (std::uint64_t i = 0; i < crcs.size() && first.empty(); ++i)
    if (crcs[i] != index.entry(i).values_crc)
      first = " (tile " + std::to_string(i % grid.tiles_x()) + "," + std::to_string(i / grid.tiles_x()) +
              " is the first that differs)";
  throw Error("--index '" + index_path + "' was built from another raster than INPUT '" + input_path +
              "': the index's fingerprint is " + hex(h.fingerprint) + ", INPUT's is " + hex(fingerprint) + first +
              "; rebuild the index from INPUT with `terrazo index`, or give --skip-fingerprint-check to query it anyway");
}

}  // namespace terrazo
