// tests/fuzz/fuzz_geotiff_import.cpp: the GeoTIFF import path (engine/raster_inputs/raster_io.h run_import, through
// RasterReader and GDAL's GTiff driver) on any bytes, given to GDAL as /vsimem/input.tif, imported
// into a tile store of tile 16 under a 64 MiB budget; rasters over 4 M cells are only opened.
#include <cpl_vsi.h>

#include "engine/raster_inputs/raster_io.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  ensure_gdal();
  const char* input = "/vsimem/input.tif";
  VSILFILE* f = VSIFileFromMemBuffer(input, const_cast<GByte*>(data), static_cast<vsi_l_offset>(size), FALSE);
  if (!f) std::abort();
  VSIFCloseL(f);
  fuzz::accept_clear_errors([&] {
    const RasterInfo info = RasterReader::open(input)->info();
    if (info.width * info.height > (4u << 20)) return;
    MemoryBudget budget(64ull << 20);
    Progress progress;
    ImportOptions options;
    options.input = input;
    options.output = fuzz::scratch().file("output.tzs");
    options.tile = 16;
    run_import(options, budget, progress);
  });
  VSIUnlink(input);
  return 0;
}
