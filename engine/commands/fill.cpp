// engine/commands/fill.cpp: run_fill (engine/commands/fill.h).
#include "engine/commands/fill.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/commands/output_paths.h"
#include "engine/commands/run_totals.h"
#include "engine/flow/fill_phases.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/output_set.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"

namespace terrazo {
namespace {

// OUTPUT: INPUT's type, nodata and georeference; tiles written as windows in row-major order through
// a GDAL block cache of one row of blocks (or what the budget holds, two blocks at least).
class FilledRasterWriter : public FillTileSink {
 public:
  FilledRasterWriter(AtomicOutput& output, const TileGrid& grid, const RasterInfo& info, MemoryBudget& budget,
                     const GeoTiffOptions& options)
      : grid_(grid) {
    const std::uint32_t block = std::max<std::uint32_t>(256, std::min<std::uint32_t>(grid.tile, 1024));
    const std::uint64_t cell_bytes = info.type == CellType::Float64 ? 8 : 4;
    const std::uint64_t row_bytes = ((grid.width + block - 1) / block + 1) * block * block * cell_bytes;
    const std::uint64_t cache_bytes = std::max<std::uint64_t>(2ull * block * block * cell_bytes,
                                                              std::min<std::uint64_t>(row_bytes, budget.available() / 4));
    cache_ = std::make_unique<GdalCacheLimit>(budget, cache_bytes);
    // Without a nodata value, a float raster gets NaN for closed regions; an integer one has none to
    // write (run_fill refuses the outlets that could close a region then).
    const bool integer = cell_type_is_integer(info.type);
    const bool has_nodata = info.has_nodata || !integer;
    writer_ = std::make_unique<GeoTiffWriter>(output, grid.width, grid.height, info.type, info, has_nodata,
                                              info.has_nodata ? info.nodata : std::nan(""), block, options);
  }
  void write_tile(std::uint32_t tx, std::uint32_t ty, const double* cells) override {
    const std::uint64_t x0 = std::uint64_t{tx} * grid_.tile, y0 = std::uint64_t{ty} * grid_.tile;
    const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(grid_.tile, grid_.width - x0));
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(grid_.tile, grid_.height - y0));
    window_.resize(std::size_t{w} * h);
    for (std::uint32_t y = 0; y < h; ++y)
      std::copy_n(cells + std::size_t{y} * grid_.tile, w, window_.data() + std::size_t{y} * w);
    writer_->write_window(x0, y0, w, h, window_.data());
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

FillPhaseOptions phase_options(const FillOptions& options, RunContext& context) {
  FillPhaseOptions o;
  o.connectivity = options.connectivity;
  o.edge_outlets = options.outlets != FillOutlets::Nodata;
  o.nodata_outlets = options.outlets != FillOutlets::Edge;
  o.threads = context.threads();
  o.plan = &context.plan();
  return o;
}

void check_fill_options(const FillOptions& options, RunContext& context) {
  if (options.input.empty()) throw UsageError("fill: INPUT is missing");
  if (options.output.empty()) throw UsageError("fill: OUTPUT is missing");
  if (options.connectivity == Connectivity::Sixteen) throw UsageError("fill takes --connectivity 8 or 4, not 16");
  check_distinct_paths({{"INPUT", options.input}}, {{"OUTPUT", options.output}});
  if (context.device_request() == DeviceRequest::Cuda)
    throw UsageError("fill runs on the CPU (its GPU tile flood is not built yet): drop --device cuda");
}

// Outlets next to nodata only, on a raster without nodata: no cell has an outlet.
void check_outlets_exist(const FillOptions& options, const RasterInfo& info) {
  if (options.outlets != FillOutlets::Nodata || info.has_nodata || !cell_type_is_integer(info.type)) return;
  throw UsageError("--outlets nodata on '" + options.input + "', which has no nodata value: no cell drains; "
                   "give --outlets edge or both");
}

}  // namespace

FillOutlets parse_fill_outlets(const std::string& text) {
  if (text == "both") return FillOutlets::Both;
  if (text == "edge") return FillOutlets::Edge;
  if (text == "nodata") return FillOutlets::Nodata;
  throw UsageError("invalid --outlets '" + text + "': expected both, edge or nodata");
}

const char* to_string(FillOutlets outlets) {
  return outlets == FillOutlets::Both ? "both" : outlets == FillOutlets::Edge ? "edge" : "nodata";
}

FillResult run_fill(const FillOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  FillResult result;
  check_fill_options(options, context);
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
  FilledRasterWriter writer(output, grid, info, budget, options.geotiff);
  const FillPhaseResult phases = run_fill_phases(input->cells(), phase_options(options, context), budget, progress, writer);
  result.bytes_written += writer.finish();
  outputs.publish();
  result.valid_cells = phases.valid_cells;
  result.raised_cells = phases.raised_cells;
  result.closed_cells = phases.closed_cells;
  result.graph_nodes = phases.graph_nodes;
  result.graph_edges = phases.graph_edges;
  result.seconds.flood = phases.flood_seconds;
  result.seconds.graph = phases.graph_seconds;
  result.seconds.write = phases.write_seconds;
  finish_run_totals(result, *input, budget, start);
  return result;
}

}  // namespace terrazo
