// tests/fuzz/fuzz_region_sites.cpp: the region-sites reader (engine/raster_inputs/region_sites.h,
// `--sites-raster` of od-matrix and network) on any bytes: byte 0 picks a GeoTIFF (even) or an ESRI
// ASCII grid (odd), the rest is the file (in the scratch directory: the reader checks it as a file
// first); a raster of at most 256 x 256 cells is read
// on a grid of its own size in tiles of 16 under a 64 MiB budget (a larger one is only opened).
#include "engine/raster_inputs/region_sites.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  if (size == 0) return 0;
  ensure_gdal();
  const std::string path = fuzz::write_file(data[0] & 1 ? "regions.asc" : "regions.tif", data + 1, size - 1);
  fuzz::accept_clear_errors([&] {
    const RasterInfo info = RasterReader::open(path)->info();
    if (info.width > 256 || info.height > 256) return;
    TileGrid grid;
    grid.width = info.width;
    grid.height = info.height;
    grid.tile = 16;
    MemoryBudget budget(64ull << 20);
    const RegionSites regions = read_region_sites(path, grid, budget);
    if (regions.sites.size() != regions.ids.size()) std::abort();
  });
  return 0;
}
