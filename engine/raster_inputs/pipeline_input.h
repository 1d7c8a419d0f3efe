// engine/raster_inputs/pipeline_input.h: where `sssp`, `mst` and `clump` read INPUT's cells: one opener for the
// three pipelines, which all read through the one tile interface (engine/tile_inputs/tile_input.h).
//
// How INPUT is read (`--input-mode`, docs/architecture.md "Input"):
//  - a tile store (.tzs) of the tile size asked for (or any, with --tile 0) is read in place, as always;
//  - memory: any other raster whose tiles, in its own cell type, take at most a quarter of what the
//    budget has left (auto), or whatever fits the budget (asked for), is read once into tiles held
//    in memory (engine/tile_inputs/in_memory_tile_input.h): an SRTM .hgt of 1.44 M cells is 3.3 MB there.
//    Nothing is written to the run directory and nothing read twice. A tiled GeoTIFF whose blocks
//    tile the tiles is decoded on `threads` threads (one GDAL dataset each), any other raster
//    strip by strip on one;
//  - direct: a one-band GeoTIFF whose square blocks tile the t x t tiles (t a multiple of the block
//    edge) is read in place, block by block (engine/raster_inputs/geotiff_tile_input.h); when the pipeline needs
//    statistics (sssp, mst: the weight scale) one scan of the file computes them first;
//  - import: anything else (or asked for) is imported into a tile store in the run directory
//    (run_import), the format for large inputs and repeated runs.
// auto picks the first that applies: store, memory, direct, import. Every way gives the pipeline
// the same cells bit for bit (nodata, NaN and padding as NaN), the same tiles present (a tile
// without a valid cell is absent, except direct without statistics, where every tile is present)
// and the same statistics, so the results do not depend on the way (tests/test_pipeline_input.cpp).
// Memory: memory mode's tiles for the input's life; direct mode's GDAL block cache (two tiles per
// reading thread in the file's type, 256 KiB at least; auto reads in place only when that takes at
// most a quarter of what is left) for the input's life and one tile of doubles during the scan;
// import's pass only during the import. All reserved from the budget.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/run/run_context.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/raster_info.h"
#include "io/store/run_directory.h"
#include "io/store/tile_store.h"

namespace terrazo {

enum class InputMode { Auto, Memory, Direct, Import };
// "auto", "memory", "direct", "import"; anything else is a UsageError naming --input-mode.
InputMode parse_input_mode(const std::string& text);
const char* to_string(InputMode mode);

struct PipelineInputOptions {
  std::string path;            // INPUT: a tile store or any raster RasterReader::open accepts
  std::uint32_t tile = 0;      // --tile: 0 the store's own, else kDefaultTile
  std::uint32_t band = 0;      // --band (ImportOptions::band)
  InputMode mode = InputMode::Auto;
  bool statistics = true;      // the pipeline needs min, max and valid cells (sssp, mst)
  unsigned threads = 1;        // threads that read tiles at once (direct mode's GDAL cache)
};

// A command's INPUT as its flags give it: the options' input, tile, band and input_mode, as
// SsspOptions, MstOptions and ClumpOptions name them, read on the run's threads.
template <class CommandOptions>
PipelineInputOptions pipeline_input_options(const CommandOptions& options, const RunContext& context) {
  PipelineInputOptions in;
  in.path = options.input;
  in.tile = options.tile;
  in.band = options.band;
  in.mode = options.input_mode;
  in.threads = context.worker_threads();
  return in;
}

class PipelineInput {
 public:
  ~PipelineInput();
  const TileInput& cells() const { return *cells_; }
  const TileGrid& grid() const { return cells_->grid(); }
  // INPUT's description; statistics included when asked for (or when a store holds them).
  const RasterInfo& info() const { return info_; }
  // "tile store", "memory", "direct" or "imported": how the cells are read.
  const std::string& how() const { return how_; }
  // INPUT's tile store when the cells are read from one ("tile store", "imported"), else nullptr.
  const TileStore* store() const;
  // Bytes read from INPUT (import and tile reads) and written to the run directory (an import).
  std::uint64_t bytes_read() const;
  std::uint64_t bytes_written() const { return import_written_; }
  // A store's tiles the run did not read are read now, so its header's statistics are checked
  // against every tile before results are published (TileStore::read_unseen_tiles); no-op otherwise.
  void check_unseen_tiles(MemoryBudget& budget) const;

 private:
  friend std::unique_ptr<PipelineInput> open_pipeline_input(const PipelineInputOptions&, RunDirectory&, MemoryBudget&,
                                                            Progress&);
  struct Held;
  PipelineInput();
  std::unique_ptr<Held> held_;
  const TileInput* cells_ = nullptr;
  RasterInfo info_;
  std::string how_;
  std::uint64_t import_read_ = 0, import_written_ = 0;
};

std::unique_ptr<PipelineInput> open_pipeline_input(const PipelineInputOptions& options, RunDirectory& run,
                                                   MemoryBudget& budget, Progress& progress);

}  // namespace terrazo
