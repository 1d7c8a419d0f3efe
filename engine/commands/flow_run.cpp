// engine/commands/flow_run.cpp: check_flow_options, GeoTiffTileSink, FlowRun (engine/commands/flow_run.h).
#include "engine/commands/flow_run.h"

#include <algorithm>

#include "kernels/common/cuda_device.h"
#include "kernels/common/error.h"

namespace terrazo {
namespace {

constexpr char kCachePart[] = "the GeoTIFF writer's block cache";

void write_window(GeoTiffWriter& writer, const TileWindow& w, const double* cells) {
  writer.write_window(w.x0, w.y0, w.w, w.h, cells);
}
void write_window(GeoTiffWriter& writer, const TileWindow& w, const std::uint8_t* cells) {
  writer.write_window_u8(w.x0, w.y0, w.w, w.h, cells);
}
void write_window(GeoTiffWriter& writer, const TileWindow& w, const std::uint32_t* cells) {
  writer.write_window_u32(w.x0, w.y0, w.w, w.h, cells);
}

}  // namespace

void check_flow_options(const char* command, const FlowRunOptions& options, const RunContext& context,
                        const char* gpu_missing, const std::vector<NamedPath>& more_inputs) {
  if (options.input.empty()) throw UsageError(std::string(command) + ": INPUT is missing");
  if (options.output.empty()) throw UsageError(std::string(command) + ": OUTPUT is missing");
  std::vector<NamedPath> inputs = {{"INPUT", options.input}};
  inputs.insert(inputs.end(), more_inputs.begin(), more_inputs.end());
  check_distinct_paths(inputs, {{"OUTPUT", options.output}});
  if (gpu_missing && context.device_request() == DeviceRequest::Cuda)
    throw UsageError(std::string(command) + " runs on the CPU (" + gpu_missing + "): drop --device cuda");
}

std::string resident_misfit(const char* what, std::uint64_t need, const RunContext& context) {
  const std::uint64_t room = context.gpu_memory_bytes() ? context.gpu_memory_bytes() : cuda_device().global_memory / 4 * 3;
  if (need <= room) return "";
  return std::string("the resident ") + what + " needs " + MemoryBudget::format_size(need) + " of GPU memory and " +
         (context.gpu_memory_bytes() ? "--gpu-memory gives " : "the GPU's room is ") + MemoryBudget::format_size(room) +
         ": the tile pipeline runs on the CPU";
}

template <class Cell>
GeoTiffTileSink<Cell>::GeoTiffTileSink(AtomicOutput& output, const TileGrid& grid, const RasterInfo& georef,
                                       CellType type, bool has_nodata, double nodata, MemoryBudget& budget,
                                       const GeoTiffOptions& options)
    : output_(output), grid_(grid), georef_(georef), type_(type), has_nodata_(has_nodata), nodata_(nodata),
      budget_(budget), options_(options), block_(std::max<std::uint32_t>(256, std::min<std::uint32_t>(grid.tile, 1024))) {}

template <class Cell>
void GeoTiffTileSink<Cell>::declare_bytes(MemoryPlan& plan, const std::string& phase) {
  const std::uint64_t block_bytes = std::uint64_t{block_} * block_ * cell_type_size(type_);
  const std::uint64_t row_bytes = ((grid_.width + block_ - 1) / block_ + 1) * block_bytes;
  plan.need(phase, kCachePart, 2 * block_bytes, row_bytes);
  plan_ = &plan;
  phase_ = phase;
}

template <class Cell>
void GeoTiffTileSink<Cell>::open() {
  if (!plan_) throw Error("the GeoTIFF writer of '" + output_.path() + "' was not planned");
  cache_ = std::make_unique<GdalCacheLimit>(budget_, plan_->assigned(phase_, kCachePart));
  writer_ = std::make_unique<GeoTiffWriter>(output_, grid_.width, grid_.height, type_, georef_, has_nodata_, nodata_,
                                            block_, options_);
}

template <class Cell>
void GeoTiffTileSink<Cell>::write_tile(std::uint32_t tx, std::uint32_t ty, const Cell* cells) {
  if (!writer_) open();
  const TileWindow w = grid_.window(tx, ty);
  window_.resize(std::size_t{w.w} * w.h);
  for (std::uint32_t y = 0; y < w.h; ++y)
    std::copy_n(cells + std::size_t{y} * grid_.tile, w.w, window_.data() + std::size_t{y} * w.w);
  write_window(*writer_, w, window_.data());
}

template <class Cell>
std::uint64_t GeoTiffTileSink<Cell>::finish() {
  if (!writer_) open();
  writer_->finish();
  cache_.reset();  // the file is closed: the next phases may take the cache's bytes
  return writer_->bytes_written();
}

template class GeoTiffTileSink<double>;
template class GeoTiffTileSink<std::uint8_t>;
template class GeoTiffTileSink<std::uint32_t>;

FlowRun::FlowRun(const FlowRunOptions& options, RunContext& context)
    : context_(context), geotiff_(options.geotiff), output_(outputs_.add(options.output, geotiff_sidecar_suffixes())) {
  PipelineInputOptions in = pipeline_input_options(options, context);
  in.statistics = false;
  input_ = open_pipeline_input(in, context.run_directory(), context.budget(), context.progress());
}

}  // namespace terrazo
