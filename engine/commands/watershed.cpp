// engine/commands/watershed.cpp: run_watershed (engine/commands/watershed.h).
#include "engine/commands/watershed.h"

#include <algorithm>
#include <memory>

#include "engine/commands/output_paths.h"
#include "engine/flow/watershed_phases.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/output_set.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"

namespace terrazo {
namespace {

// OUTPUT: UInt32 labels (nodata 0) on INPUT's georeference, tiles written as windows in row-major
// order through a GDAL block cache of one row of blocks (or what the budget holds, two blocks at least).
class LabelWriter : public WatershedTileSink {
 public:
  LabelWriter(AtomicOutput& output, const TileGrid& grid, const RasterInfo& georef, MemoryBudget& budget,
              const GeoTiffOptions& options)
      : grid_(grid) {
    const std::uint32_t block = std::max<std::uint32_t>(256, std::min<std::uint32_t>(grid.tile, 1024));
    const std::uint64_t row_bytes = ((grid.width + block - 1) / block + 1) * block * block * 4ull;
    const std::uint64_t cache_bytes =
        std::max<std::uint64_t>(2ull * block * block * 4, std::min<std::uint64_t>(row_bytes, budget.available() / 4));
    cache_ = std::make_unique<GdalCacheLimit>(budget, cache_bytes);
    writer_ = std::make_unique<GeoTiffWriter>(output, grid.width, grid.height, CellType::UInt32, georef, true, 0.0,
                                              block, options);
  }
  void write_tile(std::uint32_t tx, std::uint32_t ty, const std::uint32_t* labels) override {
    const TileWindow w = grid_.window(tx, ty);
    window_.resize(std::size_t{w.w} * w.h);
    for (std::uint32_t y = 0; y < w.h; ++y)
      std::copy_n(labels + std::size_t{y} * grid_.tile, w.w, window_.data() + std::size_t{y} * w.w);
    writer_->write_window_u32(w.x0, w.y0, w.w, w.h, window_.data());
  }
  std::uint64_t finish() {
    writer_->finish();
    return writer_->bytes_written();
  }

 private:
  TileGrid grid_;
  std::unique_ptr<GdalCacheLimit> cache_;
  std::unique_ptr<GeoTiffWriter> writer_;
  std::vector<std::uint32_t> window_;
};

void check_watershed_options(const WatershedOptions& options, RunContext& context) {
  if (options.input.empty()) throw UsageError("watershed: INPUT is missing");
  if (options.output.empty()) throw UsageError("watershed: OUTPUT is missing");
  check_distinct_paths({{"INPUT", options.input}}, {{"OUTPUT", options.output}});
  if (context.device_request() == DeviceRequest::Cuda)
    throw UsageError("watershed runs on the CPU (its GPU twin is not built yet): drop --device cuda");
}

}  // namespace

WatershedResult run_watershed(const WatershedOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Stopwatch start;
  WatershedResult result;
  check_watershed_options(options, context);
  OutputSet outputs;
  AtomicOutput& output = outputs.add(options.output, geotiff_sidecar_suffixes());
  Stopwatch phase;
  PipelineInputOptions in = pipeline_input_options(options, context);
  in.statistics = false;
  const std::unique_ptr<PipelineInput> input = open_pipeline_input(in, context.run_directory(), budget, context.progress());
  result.seconds.import = phase.seconds();
  result.input_read = input->how();
  const TileGrid grid = input->grid();
  result.width = grid.width;
  result.height = grid.height;
  result.tile = grid.tile;
  LabelWriter writer(output, grid, input->info(), budget, options.geotiff);
  WatershedPhaseOptions o;
  o.threads = context.threads();
  o.plan = &context.plan();
  const WatershedPhaseResult phases = run_watershed_phases(input->cells(), o, budget, context.progress(), writer);
  result.bytes_written += writer.finish();
  outputs.publish();
  result.valid_cells = phases.valid_cells;
  result.basins = phases.basins;
  result.spanning_basins = phases.spanning_basins;
  result.exits = phases.exits;
  result.seconds.tiles = phases.tiles_seconds;
  result.seconds.links = phases.links_seconds;
  result.seconds.firsts = phases.firsts_seconds;
  result.seconds.ranks = phases.ranks_seconds;
  result.seconds.write = phases.write_seconds;
  result.bytes_read += input->bytes_read();
  result.bytes_written += input->bytes_written();
  result.seconds.total = start.seconds();
  result.memory_peak_reserved = budget.peak_reserved();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
