// tests/fuzz/fuzz_backlink_walk.cpp: the backlink walker (engine/commands/path.cpp run_path) on any backlink
// raster: bytes 0-1 the size (1..32 x 1..32), 2-3 the destination, the rest the cells (Byte, 255
// nodata; missing cells 255), one cost raster of zeros; with a mask every other input.
#include "engine/commands/path.h"
#include "io/gdal/gdal_raster.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  if (size < 4) return 0;
  const std::uint32_t w = data[0] % 32 + 1, h = data[1] % 32 + 1;
  std::vector<std::uint8_t> cells(static_cast<std::size_t>(w) * h, 255);
  for (std::size_t i = 0; i < cells.size() && 4 + i < size; ++i) cells[i] = data[4 + i];
  const RunDirectory& dir = fuzz::scratch();
  PathOptions options;
  RunSettings options_run;
  options.backlink = dir.file("back.tif");
  options.cost = dir.file("cost.tif");
  options.output = dir.file("paths.geojson");
  if (data[0] & 0x80) options.mask = dir.file("mask.tif");
  options_run.tmpdir = dir.path();
  options.dests.push_back(parse_source_point(std::to_string(data[2] % w) + "," + std::to_string(data[3] % h), "--dest"));
  RasterInfo georef;
  {
    GeoTiffWriter back(options.backlink, w, h, CellType::UInt8, georef, true, 255.0, 16);
    back.write_window_u8(0, 0, w, h, cells.data());
    back.finish();
    const std::vector<double> zeros(cells.size(), 0.0);
    GeoTiffWriter cost(options.cost, w, h, CellType::Float32, georef, true, -1.0, 16);
    cost.write_window(0, 0, w, h, zeros.data());
    cost.finish();
  }
  fuzz::accept_clear_errors([&] {
    options_run.memory_bytes = 16ull << 20;
    RunContext context(options_run);
    run_path(options, context);
  });
  std::remove(options.output.c_str());
  std::remove(options.mask.c_str());
  return 0;
}
