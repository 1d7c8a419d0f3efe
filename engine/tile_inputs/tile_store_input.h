// engine/tile_inputs/tile_store_input.h: a tile store seen as the pipelines' TileInput (engine/tile_inputs/tile_input.h),
// and the statistics of a store whose header has none.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/raster_info.h"
#include "io/store/tile_store.h"

namespace terrazo {

class TileStoreInput : public TileInput {
 public:
  explicit TileStoreInput(const TileStore& store) : store_(store) {}
  const TileGrid& grid() const override { return store_.grid(); }
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const override { return store_.tile_present(tx, ty); }
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const override { store_.read_tile(tx, ty, out); }
  std::uint64_t bytes_read() const override { return store_.bytes_read(); }

 private:
  const TileStore& store_;
};

// Min, max and valid cells of `store`, by reading every present tile through one tile of doubles
// reserved from `budget` as `holder`. A store with no valid cell has no statistics (has_stats false).
inline void compute_store_statistics(const TileStore& store, RasterInfo* info, MemoryBudget& budget,
                                     const char* holder) {
  const TileGrid& grid = store.grid();
  const std::uint64_t cells = static_cast<std::uint64_t>(grid.tile) * grid.tile;
  auto reservation = budget.reserve(cells * sizeof(double), holder);
  std::vector<double> values(cells);
  info->min = std::numeric_limits<double>::infinity();
  info->max = -std::numeric_limits<double>::infinity();
  info->valid_cells = 0;
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
      if (!store.tile_present(tx, ty)) continue;
      store.read_tile(tx, ty, values.data());
      for (double v : values) {
        if (v != v) continue;
        info->min = std::min(info->min, v);
        info->max = std::max(info->max, v);
        ++info->valid_cells;
      }
    }
  info->has_stats = info->valid_cells > 0;
}

}  // namespace terrazo
