// engine/commands/watershed_streams.cpp: check_stream_options, open_accumulation, WatershedStreams
// (engine/commands/watershed_streams.h).
#include "engine/commands/watershed_streams.h"

#include <array>
#include <filesystem>

#include "engine/commands/path.h"
#include "io/gdal/geojson_lines.h"
#include "kernels/common/error.h"

namespace terrazo {

// The segments as a GeoJSON FeatureCollection, written as they come (contract in the header): each
// segment's cells' centres, then the junction it flows into (a one-cell segment that ends the
// network repeats its point: a LineString has two).
class GeoJsonSegments : public StreamSegmentSink {
 public:
  GeoJsonSegments(const std::string& path, const std::string& name, const RasterInfo& georef)
      : json_(path, name, "streams", crs_urn(georef.crs_wkt)), gt_(georef.geotransform), width_(georef.width) {}
  void begin(const StreamSegment& s) override {
    json_.begin_feature({{"segment", std::to_string(s.id)},
                         {"order", std::to_string(s.order)},
                         {"downstream", s.downstream ? std::to_string(s.downstream) : std::string("null")},
                         {"cells", std::to_string(s.cells)}});
    segment_ = s;
    points_ = 0;
  }
  void cell(std::uint64_t id) override {
    point(id);
    last_ = id;
  }
  void end() override {
    if (segment_.junction != ~std::uint64_t{0}) point(segment_.junction);
    else if (points_ == 1) point(last_);
    json_.end_feature();
  }
  void finish() { json_.finish(); }

 private:
  void point(std::uint64_t id) {
    const double x = static_cast<double>(id % width_) + 0.5, y = static_cast<double>(id / width_) + 0.5;
    json_.point(gt_[0] + x * gt_[1] + y * gt_[2], gt_[3] + x * gt_[4] + y * gt_[5]);
    ++points_;
  }

  GeoJsonLines json_;
  std::array<double, 6> gt_;
  std::uint64_t width_ = 0;
  StreamSegment segment_;
  std::uint64_t points_ = 0, last_ = 0;
};

namespace {

// The raster sink when only the segments are asked for.
class NoStreamRaster : public StreamTileSink {
 public:
  void write_tile(std::uint32_t, std::uint32_t, const std::uint8_t*) override {}
};

}  // namespace

void check_stream_options(const WatershedOptions& options) {
  const bool outputs = !options.streams_raster.empty() || !options.streams_vector.empty();
  if (!options.streams) {
    if (outputs) throw UsageError("--streams-raster and --streams-vector write the stream network: give --streams THRESHOLD");
    return;
  }
  if (*options.streams < 1)
    throw UsageError("invalid --streams " + std::to_string(*options.streams) +
                     ": expected the least accumulation of a stream cell, a whole number of cells >= 1");
  if (options.accumulation.empty())
    throw UsageError("--streams THRESHOLD reads the accumulation: give --accumulation ACC.tif (terrazo flowacc's "
                     "output on the same directions)");
  if (!outputs) throw UsageError("--streams THRESHOLD needs an output: give --streams-raster FILE.tif and/or "
                                 "--streams-vector FILE.geojson");
  check_distinct_paths({{"INPUT", options.input}, {"--accumulation", options.accumulation},
                        {"--outlets-file", options.outlets_file}},
                       {{"OUTPUT", options.output}, {"--streams-raster", options.streams_raster},
                        {"--streams-vector", options.streams_vector}});
}

std::unique_ptr<PipelineInput> open_accumulation(const WatershedOptions& options, const TileGrid& grid,
                                                 RunContext& context) {
  PipelineInputOptions in;
  in.path = options.accumulation;
  in.tile = grid.tile;
  in.mode = options.input_mode;
  in.threads = context.worker_threads();
  in.statistics = false;
  std::unique_ptr<PipelineInput> acc = open_pipeline_input(in, context.run_directory(), context.budget(), context.progress());
  const TileGrid& g = acc->grid();
  if (g.width != grid.width || g.height != grid.height)
    throw UsageError("--accumulation '" + options.accumulation + "' is " + std::to_string(g.width) + " x " +
                     std::to_string(g.height) + " cells, DIRECTIONS " + std::to_string(grid.width) + " x " +
                     std::to_string(grid.height) + ": give terrazo flowacc's output on the same directions");
  if (g.tile != grid.tile)
    throw UsageError("--accumulation '" + options.accumulation + "' is a tile store of tile " + std::to_string(g.tile) +
                     ", DIRECTIONS' tiles are " + std::to_string(grid.tile) + ": give both on one tile size (--tile)");
  return acc;
}

WatershedStreams::WatershedStreams(const WatershedOptions& options, FlowRun& run, RunContext& context)
    : options_(options), run_(run), context_(context) {
  const RasterInfo& georef = run.input().info();
  if (!options.streams_raster.empty()) {
    raster_output_ = &run.add_output(options.streams_raster, geotiff_sidecar_suffixes());
    raster_ = std::make_unique<GeoTiffTileSink<std::uint8_t>>(*raster_output_, run.grid(), georef, CellType::UInt8,
                                                              true, double{kStreamNodata}, context.budget(),
                                                              options.geotiff);
  } else {
    raster_ = std::make_unique<NoStreamRaster>();
  }
  if (!options.streams_vector.empty()) {
    vector_output_ = &run.add_output(options.streams_vector);
    vector_ = std::make_unique<GeoJsonSegments>(vector_output_->partial(), options.streams_vector, georef);
  }
}

WatershedStreams::~WatershedStreams() = default;

void WatershedStreams::declare(MemoryPlan& plan, unsigned threads) {
  plan_stream_phases(run_.grid(), threads, vector_ != nullptr, plan, *raster_);
}

StreamPhaseResult WatershedStreams::run(const PipelineInput& accumulation) {
  StreamPhaseOptions o = flow_phase_options<StreamPhaseOptions>(context_);
  o.threshold = static_cast<double>(*options_.streams);
  const StreamPhaseResult result = run_stream_phases(run_.input().cells(), accumulation.cells(), o, context_.budget(),
                                                     context_.progress(), *raster_, vector_.get());
  if (raster_output_) bytes_written_ += static_cast<GeoTiffTileSink<std::uint8_t>&>(*raster_).finish();
  if (vector_) {
    vector_->finish();
    bytes_written_ += std::filesystem::file_size(vector_output_->partial());
  }
  return result;
}

}  // namespace terrazo
