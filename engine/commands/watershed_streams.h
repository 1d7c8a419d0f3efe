// engine/commands/watershed_streams.h: `terrazo watershed --streams`: the stream network beside the
// basins (engine/commands/watershed.h): the accumulation opened on the directions' tiles, the stream
// phases (engine/flow/stream_phases.h) run with the Strahler raster's sink and the GeoJSON's.
//
// The GeoJSON (--streams-vector): a FeatureCollection "streams" (with the CRS's EPSG urn when it has
// one, as OGR writes it), one Feature per segment in order of id, written as the segments come: a
// LineString through the centres of its cells (x + 0.5, y + 0.5 through INPUT's geotransform, shortest
// round-trip decimals), then the junction's centre when it flows into one (a single-cell segment that
// ends the network repeats its one point: a LineString holds two at least); properties "segment",
// "order", "downstream" (null when it ends the network) and "cells" (its own cells, the junction not
// counted).
#pragma once
#include <memory>

#include "engine/commands/flow_run.h"
#include "engine/commands/watershed.h"
#include "engine/flow/stream_phases.h"

namespace terrazo {

// UsageError for --streams without --accumulation or an output, an output without --streams, a
// threshold below 1, and an output that is INPUT, OUTPUT or the other.
void check_stream_options(const WatershedOptions& options);

// --accumulation on INPUT's grid and tiles (UsageError when its size or tile differs).
std::unique_ptr<PipelineInput> open_accumulation(const WatershedOptions& options, const TileGrid& grid,
                                                 RunContext& context);

class GeoJsonSegments;

// The stream outputs, registered with `run` and their writers made at construction; declare() puts
// the stream phases in the run's plan (beside the basins' phases, before any work); run() runs them
// (after BASINS.tif is written: FlowRun::after_write, so that they are published with it).
class WatershedStreams {
 public:
  WatershedStreams(const WatershedOptions& options, FlowRun& run, RunContext& context);
  ~WatershedStreams();
  void declare(MemoryPlan& plan, unsigned threads);
  StreamPhaseResult run(const PipelineInput& accumulation);
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  const WatershedOptions& options_;
  FlowRun& run_;
  RunContext& context_;
  AtomicOutput* raster_output_ = nullptr;
  AtomicOutput* vector_output_ = nullptr;
  std::unique_ptr<StreamTileSink> raster_;
  std::unique_ptr<GeoJsonSegments> vector_;
  std::uint64_t bytes_written_ = 0;
};

}  // namespace terrazo
