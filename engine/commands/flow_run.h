// engine/commands/flow_run.h: the run body the flow commands share (fill, flowdir, flowacc, watershed:
// engine/commands/<command>.h): one raster in, its tiles through the command's phases
// (engine/flow/<command>_phases.h), one GeoTIFF out.
//
// run_<command> checks its options (check_flow_options and its own), makes a FlowRun (OUTPUT
// registered, published all-or-nothing; INPUT opened as a PipelineInput without statistics), then
// FlowRun::write(result, type, has_nodata, nodata, phases): `phases(sink)` run with the sink that
// writes OUTPUT (GeoTiffTileSink: `type` on INPUT's grid and georeference), OUTPUT published, and the
// result's grid, seconds, bytes and memory set. The command's --json is json_head, add_raster_keys
// (engine/commands/command_result.h), its own keys, then flow_json_tail.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/commands/command_result.h"
#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "engine/commands/run_totals.h"
#include "engine/flow/flow_phase.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/run/run_context.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/geotiff_options.h"
#include "io/store/output_set.h"

namespace terrazo {

// The options every flow command has.
struct FlowRunOptions {
  std::string input;   // any raster RasterReader::open accepts, or a tile store
  std::string output;  // GeoTIFF
  std::uint32_t tile = 0;  // 0: the store's, else kDefaultTile
  std::uint32_t band = 0;
  InputMode input_mode = InputMode::Auto;
  GeoTiffOptions geotiff;
};

// What every flow command's run returns: the grid, how INPUT was read, its phases' result (counts
// and seconds), the import's and the whole run's seconds, the bytes read and written and the memory.
template <class Phases>
struct FlowRunResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::string input_read;
  Phases phases;
  struct Seconds {
    double import = 0, total = 0;
  } seconds;
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t memory_peak_reserved = 0, peak_rss_bytes = 0;
};

// UsageError for a missing INPUT or OUTPUT, an OUTPUT that is INPUT or one of `more_inputs`, and
// --device cuda when `command` runs on the CPU only (`gpu_missing` says why; null: it has a GPU path).
void check_flow_options(const char* command, const FlowRunOptions& options, const RunContext& context,
                        const char* gpu_missing, const std::vector<NamedPath>& more_inputs = {});

// A command's resident path on the GPU (fill, flowacc, watershed): "" when its `need` bytes fit the room
// (--gpu-memory, else three quarters of the GPU's memory, as sssp's resident exchange), else why not
// ("the resident <what> needs ..."; the run then takes the tile pipeline on the CPU).
std::string resident_misfit(const char* what, std::uint64_t need, const RunContext& context);

// OUTPUT: `type`, nodata `nodata` when `has_nodata`, `georef`'s georeference; tiles written as windows
// in row-major order through a GDAL block cache (block = clamp(t, 256, 1024)) planned in the write
// phase (declare_bytes): two blocks at least, one row of blocks and one more at most, after the
// phase's other parts. The file is made, and the cache reserved, at the first tile.
template <class Cell>
class GeoTiffTileSink : public TileSink<Cell> {
 public:
  GeoTiffTileSink(AtomicOutput& output, const TileGrid& grid, const RasterInfo& georef, CellType type, bool has_nodata,
                  double nodata, MemoryBudget& budget, const GeoTiffOptions& options);
  void declare_bytes(MemoryPlan& plan, const std::string& phase) override;
  void write_tile(std::uint32_t tx, std::uint32_t ty, const Cell* cells) override;
  std::uint64_t finish();  // the file closed and the block cache given back; its bytes

 private:
  void open();

  AtomicOutput& output_;
  TileGrid grid_;
  RasterInfo georef_;
  CellType type_;
  bool has_nodata_;
  double nodata_;
  MemoryBudget& budget_;
  GeoTiffOptions options_;
  std::uint32_t block_;
  const MemoryPlan* plan_ = nullptr;
  std::string phase_;
  std::unique_ptr<GdalCacheLimit> cache_;
  std::unique_ptr<GeoTiffWriter> writer_;
  std::vector<Cell> window_;
};

class FlowRun {
 public:
  FlowRun(const FlowRunOptions& options, RunContext& context);
  const PipelineInput& input() const { return *input_; }
  const TileGrid& grid() const { return input_->grid(); }
  // Another output of the run (before write()), published with OUTPUT, all or nothing.
  AtomicOutput& add_output(const std::string& path, std::vector<std::string> sidecar_suffixes = {}) {
    return outputs_.add(path, std::move(sidecar_suffixes));
  }

  // Runs after OUTPUT is written and closed, before the outputs are published: the phases of the
  // run's other outputs (add_output; watershed's streams), which its plan holds already.
  void after_write(std::function<void()> more) { after_write_ = std::move(more); }

  // OUTPUT written by `phases(sink)` (returning the phases' result), then after_write's, and the
  // outputs published; `result` filled, its import seconds those since the FlowRun was made (INPUT,
  // and what the command opened since: flowacc's weights).
  template <class Cell, class Phases, class RunPhases>
  void write(FlowRunResult<Phases>& result, CellType type, bool has_nodata, double nodata, RunPhases phases) {
    result.seconds.import = import_.seconds();
    result.input_read = input_->how();
    result.width = grid().width;
    result.height = grid().height;
    result.tile = grid().tile;
    GeoTiffTileSink<Cell> sink(output_, grid(), input_->info(), type, has_nodata, nodata, context_.budget(), geotiff_);
    result.phases = phases(static_cast<TileSink<Cell>&>(sink));
    result.bytes_written += sink.finish();
    if (after_write_) after_write_();
    outputs_.publish();
    finish_run_totals(result, *input_, context_.budget(), start_);
  }

 private:
  RunContext& context_;
  Stopwatch start_, import_;
  GeoTiffOptions geotiff_;
  OutputSet outputs_;
  AtomicOutput& output_;
  std::unique_ptr<PipelineInput> input_;
  std::function<void()> after_write_;
};

// The threads and plan of `context` in a flow phase's options.
template <class PhaseOptions>
PhaseOptions flow_phase_options(RunContext& context) {
  PhaseOptions o;
  o.threads = context.threads();
  o.plan = &context.plan();
  return o;
}

// run_<command>_command's body: INPUT and `more_inputs` (those given) checked as files to read,
// OUTPUT and `more_outputs` (those given) as files to write apart from them (check_run_files), then
// run_entry_point of `run`.
template <class CommandResultType, class CommandOptions, class Options, class Result>
CommandResultType run_flow_command(const CommandOptions& options, const Options& flow, Progress& progress,
                                   Result (*run)(const Options&, RunContext&),
                                   const std::vector<std::string>& more_inputs = {},
                                   const std::vector<std::string>& more_outputs = {}) {
  std::vector<std::string> inputs = {flow.input}, outputs = {flow.output};
  inputs.insert(inputs.end(), more_inputs.begin(), more_inputs.end());
  outputs.insert(outputs.end(), more_outputs.begin(), more_outputs.end());
  check_run_files(inputs, outputs);
  return run_entry_point<CommandResultType>(options, progress, run, flow);
}

// The last keys: phases {import, then `phases`: the command's own phases' seconds}, seconds, then the
// run totals.
template <class Command>
std::string flow_json_tail(JsonObject& summary, const Command& command,
                           std::initializer_list<std::pair<const char*, double>> phases) {
  const auto& r = command.result;
  JsonObject seconds;
  seconds.add("import", r.seconds.import);
  for (const auto& [name, value] : phases) seconds.add(name, value);
  summary.add("phases", seconds).add("seconds", r.seconds.total);
  add_run_totals(summary, command, {{"memory_peak_reserved_bytes", r.memory_peak_reserved},
                                    {"peak_rss_bytes", r.peak_rss_bytes}, {"bytes_read", r.bytes_read},
                                    {"bytes_written", r.bytes_written}});
  return summary.str();
}

}  // namespace terrazo
