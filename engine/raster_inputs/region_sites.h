// engine/raster_inputs/region_sites.h: region sites from a raster of zone ids (`--sites-raster` of od-matrix and
// network; docs/index.md "Region sites").
//
// Contract: `path` is a raster of the grid's size (cell for cell; another size is a UsageError naming
// both sizes); every cell that is neither 0 nor nodata belongs to the region whose id is its value, a
// positive integer up to 2^32 - 2 (any other value is a UsageError naming the value and the cell).
// Result: one OdSite per distinct id, in ascending id order, its cells as global ids y * W + x in
// ascending (row-major) order, so cells.front() is the region's first cell in row-major order; the
// ids alongside. No region at all is a UsageError (fewer than 2 is the caller's to judge). Cells on
// INPUT's nodata are kept here: od-matrix leaves them out (engine/index/od_matrix.h).
// Memory: the lists are reserved from `budget` as they grow (16 bytes a cell: list and map nodes)
// and stay reserved for the result's life; while reading, one tile window (8 t^2) and 8 MiB of GDAL
// block cache.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "engine/index/od_matrix.h"
#include "io/store/tile_store.h"

namespace terrazo {

struct RegionSites {
  std::vector<OdSite> sites;        // ascending ids; cells ascending
  std::vector<std::uint64_t> ids;   // the regions' ids, ascending
  std::vector<MemoryBudget::Reservation> reservations;  // the cell lists' bytes
};

RegionSites read_region_sites(const std::string& path, const TileGrid& grid, MemoryBudget& budget);

}  // namespace terrazo
