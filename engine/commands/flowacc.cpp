// engine/commands/flowacc.cpp: run_flowacc (engine/commands/flowacc.h).
#include "engine/commands/flowacc.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/commands/output_paths.h"
#include "engine/flow/flowacc_phases.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/output_set.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"

namespace terrazo {
namespace {

// OUTPUT: UInt32 or Float64 on INPUT's georeference; tiles written as windows in row-major order
// through a GDAL block cache of one row of blocks (or what the budget holds, two blocks at least).
class AccumulationWriter : public FlowAccTileSink {
 public:
  AccumulationWriter(AtomicOutput& output, const TileGrid& grid, const RasterInfo& georef, CellType type,
                     MemoryBudget& budget, const GeoTiffOptions& options)
      : grid_(grid) {
    const std::uint32_t block = std::max<std::uint32_t>(256, std::min<std::uint32_t>(grid.tile, 1024));
    const std::uint64_t cell_bytes = cell_type_size(type);
    const std::uint64_t row_bytes = ((grid.width + block - 1) / block + 1) * block * block * cell_bytes;
    const std::uint64_t cache_bytes = std::max<std::uint64_t>(2ull * block * block * cell_bytes,
                                                              std::min<std::uint64_t>(row_bytes, budget.available() / 4));
    cache_ = std::make_unique<GdalCacheLimit>(budget, cache_bytes);
    // Every valid count is >= 1, so 0 is free for nodata; floats take NaN.
    const double nodata = type == CellType::UInt32 ? 0.0 : std::nan("");
    writer_ = std::make_unique<GeoTiffWriter>(output, grid.width, grid.height, type, georef, true, nodata, block, options);
  }
  void write_tile(std::uint32_t tx, std::uint32_t ty, const double* cells) override {
    const TileWindow w = grid_.window(tx, ty);
    window_.resize(std::size_t{w.w} * w.h);
    for (std::uint32_t y = 0; y < w.h; ++y)
      std::copy_n(cells + std::size_t{y} * grid_.tile, w.w, window_.data() + std::size_t{y} * w.w);
    writer_->write_window(w.x0, w.y0, w.w, w.h, window_.data());
  }
  std::uint64_t finish() {
    writer_->finish();
    return writer_->bytes_written();
  }

 private:
  TileGrid grid_;
  std::unique_ptr<GdalCacheLimit> cache_;
  std::unique_ptr<GeoTiffWriter> writer_;
  std::vector<double> window_;
};

void check_flowacc_options(const FlowAccOptions& options, RunContext& context) {
  if (options.input.empty()) throw UsageError("flowacc: INPUT is missing");
  if (options.output.empty()) throw UsageError("flowacc: OUTPUT is missing");
  std::vector<NamedPath> inputs = {{"INPUT", options.input}};
  if (!options.weight.empty()) inputs.push_back({"--weight", options.weight});
  check_distinct_paths(inputs, {{"OUTPUT", options.output}});
  if (!options.weight.empty() && options.type == FlowAccType::UInt32)
    throw UsageError("--ot UInt32 with --weight: weighted sums are Float64; drop --ot");
  if (options.weight.empty() && options.scale != 0)
    throw UsageError("--scale applies to --weight only: give --weight RASTER or drop --scale");
  if (options.scale < 0 || !std::isfinite(options.scale))
    throw UsageError("invalid --scale " + format_value(options.scale) + ": expected a number > 0");
  if (context.device_request() == DeviceRequest::Cuda)
    throw UsageError("flowacc runs on the CPU (its GPU twin is not built yet): drop --device cuda");
}

CellType output_type(const FlowAccOptions& options, const TileGrid& grid) {
  if (!options.weight.empty() || options.type == FlowAccType::Float64) return CellType::Float64;
  if (options.type == FlowAccType::UInt32) return CellType::UInt32;
  return grid.width * grid.height < (1ull << 32) ? CellType::UInt32 : CellType::Float64;
}

// The weight raster, on INPUT's grid and tiles.
std::unique_ptr<PipelineInput> open_weights(const FlowAccOptions& options, const TileGrid& grid, RunContext& context) {
  PipelineInputOptions in;
  in.path = options.weight;
  in.tile = grid.tile;
  in.mode = options.input_mode;
  in.threads = context.worker_threads();
  in.statistics = options.scale == 0;
  std::unique_ptr<PipelineInput> weights = open_pipeline_input(in, context.run_directory(), context.budget(), context.progress());
  const TileGrid& g = weights->grid();
  if (g.width != grid.width || g.height != grid.height)
    throw UsageError("--weight '" + options.weight + "' is " + std::to_string(g.width) + " x " + std::to_string(g.height) +
                     " cells, INPUT " + std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                     ": the weights must be on the directions' grid");
  if (g.tile != grid.tile)
    throw UsageError("--weight '" + options.weight + "' is a tile store of tile " + std::to_string(g.tile) +
                     ", INPUT's tiles are " + std::to_string(grid.tile) + ": give both on one tile size (--tile)");
  return weights;
}

}  // namespace

FlowAccType parse_flowacc_type(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "auto") return FlowAccType::Auto;
  if (lower == "uint32") return FlowAccType::UInt32;
  if (lower == "float64") return FlowAccType::Float64;
  throw UsageError("invalid --ot '" + text + "': expected auto, UInt32 or Float64");
}

const char* to_string(FlowAccType type) {
  return type == FlowAccType::Auto ? "auto" : type == FlowAccType::UInt32 ? "UInt32" : "Float64";
}

double default_flowacc_scale(double largest, std::uint64_t cells, bool integer_type) {
  const double total = std::fabs(largest) * static_cast<double>(cells);
  if (integer_type || !(total > 0)) return 1;
  const double limit = 4611686018427387904.0;  // 2^62
  double scale = std::pow(10.0, std::floor(std::log10(limit / total)));
  while (total * scale > limit) scale /= 10;
  return scale;
}

FlowAccResult run_flowacc(const FlowAccOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Stopwatch start;
  FlowAccResult result;
  check_flowacc_options(options, context);
  OutputSet outputs;
  AtomicOutput& output = outputs.add(options.output, geotiff_sidecar_suffixes());
  Stopwatch phase;
  PipelineInputOptions in = pipeline_input_options(options, context);
  in.statistics = false;
  const std::unique_ptr<PipelineInput> input = open_pipeline_input(in, context.run_directory(), budget, context.progress());
  const TileGrid grid = input->grid();
  std::unique_ptr<PipelineInput> weights;
  FlowAccPhaseOptions o;
  o.threads = context.threads();
  o.plan = &context.plan();
  if (!options.weight.empty()) {
    weights = open_weights(options, grid, context);
    const RasterInfo& w = weights->info();
    o.scale = options.scale != 0 ? options.scale
                                 : default_flowacc_scale(std::max(std::fabs(w.min), std::fabs(w.max)), w.valid_cells,
                                                         cell_type_is_integer(w.type));
    o.overflow_remedy = "give a smaller --scale (it is " + format_value(o.scale) + ")";
  }
  result.seconds.import = phase.seconds();
  result.input_read = input->how();
  result.width = grid.width;
  result.height = grid.height;
  result.tile = grid.tile;
  result.type = output_type(options, grid);
  result.scale = o.scale;
  AccumulationWriter writer(output, grid, input->info(), result.type, budget, options.geotiff);
  const FlowAccPhaseResult phases =
      run_flowacc_phases(input->cells(), weights ? &weights->cells() : nullptr, o, budget, context.progress(), writer);
  result.bytes_written += writer.finish();
  outputs.publish();
  result.valid_cells = phases.valid_cells;
  result.outlets = phases.outlets;
  result.exits = phases.exits;
  result.largest = static_cast<double>(phases.largest) / o.scale;
  result.seconds.tiles = phases.tiles_seconds;
  result.seconds.links = phases.links_seconds;
  result.seconds.write = phases.write_seconds;
  result.bytes_read += input->bytes_read() + (weights ? weights->bytes_read() : 0);
  result.bytes_written += input->bytes_written() + (weights ? weights->bytes_written() : 0);
  result.seconds.total = start.seconds();
  result.memory_peak_reserved = budget.peak_reserved();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
