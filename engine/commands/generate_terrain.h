// engine/commands/generate_terrain.h: deterministic synthetic terrain of any size, streamed to disk
// (`terrazo gen`). This is how the multi-gigabyte test and benchmark inputs are made.
//
// The terrain is a pure function of (options, x, y): every cell is computed from hashes of
// (seed, layer, lattice coordinates), never from a neighbour's computed value, so
//  - the same options give bit-identical cells whatever the tile size, thread count or output format;
//  - the terrain does not depend on the raster size: a W x H raster is the top-left W x H crop of
//    any larger one made with the same options;
//  - nothing holds the whole raster: cells are made one tile at a time.
//
// Model, per cell (x, y), all layers value noise (random values on a lattice, quintic-smoothed
// bilinear interpolation between them):
//  1. relief: fBm of 9 octaves, wavelengths 1024, 512, ..., 4 cells, amplitude x 0.6 from each
//     octave to the next, normalized to [-1, 1]; e = clamp(0.5 + 0.8 n, 0, 1); h = e^2 (flat
//     lowlands, steep peaks);
//  2. river valleys (rivers): where a second, smooth noise field r (wavelengths 1024, 512, 256,
//     amplitude halved each octave) crosses zero, a valley of half-width 0.08 in r is carved
//     (h *= 1 - 0.6 (1 - |r|/0.08)^2) and a channel of half-width 0.01 is cut 0.01 deeper, so
//     valleys meander along the zero contour of r;
//  3. pits (pits): a quarter of the 128 x 128 lattice cells holds one paraboloid depression of radius
//     3..12 cells and depth 1..4 % of the relief, wholly inside its lattice cell;
//  4. elevation = base + relief * max(h, 0), rounded to the cell type (clamped to its range, the
//     nodata value excluded);
//  5. nodata holes (nodata_holes = f > 0): a third noise field (wavelengths 64, 32, 16) above its
//     (1 - f) quantile is nodata, giving blob-shaped holes covering about f of a large raster. The
//     quantile is estimated once from 65536 hashed samples of a fixed 8192 x 8192 region, so it
//     depends on the seed and f only.
// Georeferencing (crs other than "none"): the CRS given (default EPSG:3857, metres), the top-left
// corner at (500000, 5000000), square cells of cell_size metres.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/run/run_context.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/gdal/geotiff_options.h"
#include "io/store/raster_info.h"

namespace terrazo {

struct TerrainOptions {
  std::uint64_t width = 0, height = 0;  // >= 1 each
  std::uint64_t seed = 1;
  CellType type = CellType::Float32;
  double relief = 0.0;        // metres from the lowest valley to the highest peak; 0: 1000 (250 for Byte)
  double base = 0.0;          // added to every cell (negative values make bathymetry-like rasters)
  double nodata_holes = 0.0;  // fraction of cells in holes, [0, 1)
  bool rivers = true;
  bool pits = true;
  double cell_size = 30.0;    // metres per cell, for the geotransform
  std::string crs = "EPSG:3857";  // anything GDAL's OSR accepts (EPSG:n, WKT, PROJ string); "none": no georeferencing
};

// The nodata value terrazo writes for a cell type: -9999 for floats, the type's lowest value for
// signed integers, its highest for unsigned ones.
double default_nodata(CellType type);

// Cell values of the terrain. Construction validates the options (UsageError naming the option)
// and calibrates the hole threshold; window() is const and safe to call from several threads.
class TerrainGenerator {
 public:
  explicit TerrainGenerator(const TerrainOptions& options);
  ~TerrainGenerator();
  TerrainGenerator(const TerrainGenerator&) = delete;
  TerrainGenerator& operator=(const TerrainGenerator&) = delete;

  // Size, type, nodata (always set), geotransform and CRS of the output; no statistics.
  const RasterInfo& info() const { return info_; }
  // Cells [x0, x0 + w) x [y0, y0 + h) row-major into out (w * h doubles), already rounded to the
  // cell type; nodata cells are NaN. Cells outside the raster are computed like any other (the
  // terrain is unbounded); callers pad with NaN themselves.
  void window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) const;

  struct Layers;

 private:
  TerrainOptions options_;
  RasterInfo info_;
  std::unique_ptr<Layers> layers_;
};

struct GenerateOptions {
  TerrainOptions terrain;
  std::string output;      // ".tzs": a terrazo tile store; ".tif"/".tiff": a tiled GeoTIFF
  std::uint32_t tile = 0;  // tile (store) or block (GeoTIFF) edge, power of two 16..4096; 0: 256
  GeoTiffOptions geotiff;  // GeoTIFF output: --co and the compression threads
};

struct GenerateResult {
  RasterInfo info;                // statistics included (min, max, valid cells)
  std::uint64_t tiles = 0;        // tiles (blocks) generated
  std::uint64_t bytes_written = 0;
  std::uint64_t buffer_bytes = 0; // memory reserved from the budget
  double seconds = 0.0;
};

// Streams the terrain into options.output, tile by tile (Z-order for a store), `threads` tiles at
// a time. Memory: threads x tile^2 doubles of tile buffers, plus (GeoTIFF) a GDAL block cache of
// min(64 MiB, a quarter of what is left), both reserved from `budget` before any cell is made.
// The output is written under a partial file of its own (io/store/atomic_output.h) and renamed at
// the end; an error or cancellation leaves nothing under either name. Progress: phase "gen", per tile.
// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
GenerateResult run_generate(const GenerateOptions& options, RunContext& context);

}  // namespace terrazo
