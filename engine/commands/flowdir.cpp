// engine/commands/flowdir.cpp: run_flowdir (engine/commands/flowdir.h).
#include "engine/commands/flowdir.h"

#include <algorithm>
#include <memory>

#include "engine/commands/output_paths.h"
#include "engine/flow/flowdir_phases.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/output_set.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

// OUTPUT: Byte, nodata 255, INPUT's georeference; tiles written as windows in row-major order through
// a GDAL block cache of one row of blocks (or what the budget holds, two blocks at least).
class DirectionRasterWriter : public FlowdirTileSink {
 public:
  DirectionRasterWriter(AtomicOutput& output, const TileGrid& grid, const RasterInfo& info, MemoryBudget& budget,
                        const GeoTiffOptions& options)
      : grid_(grid) {
    const std::uint32_t block = std::max<std::uint32_t>(256, std::min<std::uint32_t>(grid.tile, 1024));
    const std::uint64_t row_bytes = ((grid.width + block - 1) / block + 1) * std::uint64_t{block} * block;
    const std::uint64_t cache_bytes =
        std::max<std::uint64_t>(2ull * block * block, std::min<std::uint64_t>(row_bytes, budget.available() / 4));
    cache_ = std::make_unique<GdalCacheLimit>(budget, cache_bytes);
    writer_ = std::make_unique<GeoTiffWriter>(output, grid.width, grid.height, CellType::UInt8, info, true,
                                              double{kD8Nodata}, block, options);
  }
  void write_tile(std::uint32_t tx, std::uint32_t ty, const std::uint8_t* codes) override {
    const TileWindow w = grid_.window(tx, ty);
    window_.resize(std::size_t{w.w} * w.h);
    for (std::uint32_t y = 0; y < w.h; ++y)
      std::copy_n(codes + std::size_t{y} * grid_.tile, w.w, window_.data() + std::size_t{y} * w.w);
    writer_->write_window_u8(w.x0, w.y0, w.w, w.h, window_.data());
  }
  std::uint64_t finish() {
    writer_->finish();
    return writer_->bytes_written();
  }

 private:
  TileGrid grid_;
  std::unique_ptr<GdalCacheLimit> cache_;
  std::unique_ptr<GeoTiffWriter> writer_;
  std::vector<std::uint8_t> window_;
};

void check_flowdir_options(const FlowdirOptions& options, RunContext& context) {
  if (options.input.empty()) throw UsageError("flowdir: INPUT is missing");
  if (options.output.empty()) throw UsageError("flowdir: OUTPUT is missing");
  check_distinct_paths({{"INPUT", options.input}}, {{"OUTPUT", options.output}});
  if (context.device_request() == DeviceRequest::Cuda)
    throw UsageError("flowdir runs on the CPU (its GPU twin is not built yet): drop --device cuda");
}

void check_outlets_exist(const FlowdirOptions& options, const RasterInfo& info) {
  if (options.outlets != FillOutlets::Nodata || info.has_nodata || !cell_type_is_integer(info.type)) return;
  throw UsageError("--outlets nodata on '" + options.input + "', which has no nodata value: no cell is an outlet; "
                   "give --outlets edge or both");
}

}  // namespace

FlowdirResult run_flowdir(const FlowdirOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  FlowdirResult result;
  check_flowdir_options(options, context);
  OutputSet outputs;
  AtomicOutput& output = outputs.add(options.output, geotiff_sidecar_suffixes());
  Stopwatch phase;
  PipelineInputOptions in = pipeline_input_options(options, context);
  in.statistics = false;
  const std::unique_ptr<PipelineInput> input = open_pipeline_input(in, context.run_directory(), budget, progress);
  result.seconds.import = phase.seconds();
  result.input_read = input->how();
  const RasterInfo info = input->info();
  check_outlets_exist(options, info);
  const TileGrid grid = input->grid();
  result.width = grid.width;
  result.height = grid.height;
  result.tile = grid.tile;
  DirectionRasterWriter writer(output, grid, info, budget, options.geotiff);
  FlowdirPhaseOptions o;
  o.edge_outlets = options.outlets != FillOutlets::Nodata;
  o.nodata_outlets = options.outlets != FillOutlets::Edge;
  o.threads = context.threads();
  o.plan = &context.plan();
  const FlowdirPhaseResult phases = run_flowdir_phases(input->cells(), o, budget, progress, writer);
  result.bytes_written += writer.finish();
  outputs.publish();
  result.valid_cells = phases.valid_cells;
  result.flat_cells = phases.flat_cells;
  result.outlet_cells = phases.outlet_cells;
  result.flats = phases.flats;
  result.undrained_flats = phases.undrained_flats;
  result.undrained_cells = phases.undrained_cells;
  result.cross_tile_flat_cells = phases.cross_tile_flat_cells;
  result.seconds.halos = phases.halos_seconds;
  result.seconds.directions = phases.directions_seconds;
  result.seconds.flats = phases.flats_seconds;
  result.seconds.write = phases.write_seconds;
  result.bytes_read += input->bytes_read();
  result.bytes_written += input->bytes_written();
  result.seconds.total = start.seconds();
  result.memory_peak_reserved = budget.peak_reserved();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
