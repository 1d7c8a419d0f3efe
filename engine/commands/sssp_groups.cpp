// engine/commands/sssp_groups.cpp: run_sssp_groups (engine/commands/sssp_groups.h): per-source settings, one pass of the
// pipeline per (multiplier, maximum cost) group and the cell-by-cell merge of several groups.
#include "engine/commands/sssp_groups.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include "engine/commands/cost_outputs_writer.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "io/store/run_directory.h"

namespace terrazo {

namespace {

// The groups: the distinct (multiplier, maximum cost) of the sources, in ascending order; the
// flags' sources (--source, --source-raster) are the default group.
std::set<std::pair<double, double>> source_group_keys(const SsspOptions& options) {
  std::set<std::pair<double, double>> keys;
  if (!options.sources.empty() || !options.source_raster.empty()) keys.insert(group_key(options.source_multiplier, -1));
  if (!options.sources_file.empty()) {
    std::string crs;
    for (const SourcePoint& p : read_source_points(options.sources_file, &crs, source_file_fields(options)))
      keys.insert(group_key(p.multiplier, p.max_cost));
  }
  return keys;
}

// A later group's pass added to the first's result: its counters, bytes and phase times.
void add_group_result(const SsspResult& r, SsspResult& total) {
  total.sources += r.sources;
  total.sources_beyond_max_cost += r.sources_beyond_max_cost;
  total.mask_cells_on_nodata += r.mask_cells_on_nodata;
  total.tiles_solved += r.tiles_solved;
  total.solves += r.solves;
  total.resolves += r.resolves;
  total.rounds += r.rounds;
  total.cache_evictions += r.cache_evictions;
  total.bytes_read += r.bytes_read;
  total.bytes_written += r.bytes_written;
  total.seconds.import += r.seconds.import;
  total.seconds.load += r.seconds.load;
  total.seconds.sources += r.seconds.sources;
  total.seconds.exchange += r.seconds.exchange;
  total.seconds.flush += r.seconds.flush;
  total.seconds.write += r.seconds.write;
}

// One pass per group, each into its scratch file in the run directory, over INPUT opened once;
// `info` receives INPUT's info. The scratch's peak on disk: the passes before, plus the current one's store.
SsspResult run_group_passes(const SsspOptions& options, const std::set<std::pair<double, double>>& keys,
                            const PipelineInput& input, const RunDirectory& run, RunContext& context,
                            std::vector<std::unique_ptr<SsspGroupScratch>>& scratch, RasterInfo& info) {
  const auto default_key = group_key(options.source_multiplier, -1);
  const bool labelled = !options.backlink.empty() || !options.allocation.empty();
  SsspResult total;
  std::uint64_t scratch_on_disk = 0;
  std::size_t g = 0;
  for (const auto& key : keys) {
    SsspPass pass;
    pass.filter = true;
    std::tie(pass.multiplier, pass.max_cost) = key;
    pass.mask = key == default_key;
    pass.track_source = labelled;  // ties between groups go to the lower source id
    pass.scratch_path = run.file("group" + std::to_string(g) + ".bin");
    pass.scratch = &scratch[g];
    pass.info_out = &info;
    pass.input = &input;
    const SsspResult r = run_sssp_pass(options, pass, context);
    if (g == 0) total = r;
    else add_group_result(r, total);
    total.scratch_bytes = std::max(total.scratch_bytes, scratch_on_disk + r.scratch_bytes);
    scratch_on_disk += scratch[g]->bytes_on_disk();
    ++g;
  }
  total.scratch_bytes = std::max(total.scratch_bytes, scratch_on_disk);
  return total;
}

// Phase "sssp: merge": the groups' scratch files merged cell by cell into the run's outputs.
void merge_groups(const SsspOptions& options, OutputSet& outputs, const RasterInfo& info,
                  std::vector<std::unique_ptr<SsspGroupScratch>>& scratch, RunContext& context, SsspResult& total) {
  MemoryBudget& budget = context.budget();
  const TileGrid grid = scratch.front()->grid();
  CostOutputsWriter sink(options, outputs, info, grid, total.params.scale, budget);
  const SourceGroupMergeStats merged = merge_source_groups(scratch, sink, budget, context.progress());
  total.bytes_written += sink.finish();
  total.reached_cells = merged.reached_cells;
  total.max_distance_fixed = merged.max_dist;
  total.max_distance = static_cast<double>(merged.max_dist) / total.params.scale;
}

}  // namespace

SourceFields source_file_fields(const SsspOptions& options) {
  SourceFields fields;
  fields.start = options.source_start;
  fields.max_cost = options.source_max_field;
  fields.multiplier = options.source_multiplier_field;
  fields.default_start = options.source_initial;
  fields.default_multiplier = options.source_multiplier;
  fields.skip_empty_features = options.skip_empty_features;
  return fields;
}

SsspResult run_sssp_groups(const SsspOptions& options, OutputSet& outputs, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  if (!options.index.empty())
    throw UsageError("--index holds distances at multiplier 1 without per-source maxima; drop --index or "
                     "--source-multiplier, --source-multiplier-field and --source-max-field");
  const std::set<std::pair<double, double>> keys = source_group_keys(options);
  if (keys.size() <= 1) {  // one group: one pass, its multiplier and maximum on the solver
    SsspPass pass;
    if (!keys.empty()) std::tie(pass.multiplier, pass.max_cost) = *keys.begin();
    pass.outputs = &outputs;
    return run_sssp_pass(options, pass, context);
  }
  // A cell's backlink is the first step of its own source's least-cost path, and the cell it points
  // at may belong to another source: a path traced through several groups' zones would not be the
  // least-cost path of its source. Refused rather than written (docs/sssp.md "Per-source settings").
  if (!options.backlink.empty())
    throw UsageError("--backlink with sources of " + std::to_string(keys.size()) +
                     " different multipliers or maximum costs: traced paths would cross into other sources' "
                     "zones; run one sssp per group of sources for their backlinks");

  // Several groups: INPUT opened (imported, read into memory) once, one pass each into a scratch
  // file, then the cell-by-cell merge into the outputs.
  check_sssp_paths(options);
  RunDirectory run(context.tmpdir());
  Stopwatch import_phase;
  const std::unique_ptr<PipelineInput> input = open_pipeline_input(pipeline_input_options(options, context), run, budget, progress);
  const double import_seconds = import_phase.seconds();
  std::vector<std::unique_ptr<SsspGroupScratch>> scratch(keys.size());
  RasterInfo info;
  SsspResult total = run_group_passes(options, keys, *input, run, context, scratch, info);
  total.source_groups = keys.size();
  total.max_cost_fixed = kUnreached;
  if (options.max_cost >= 0) {
    const double fixed = std::floor(options.max_cost * total.params.scale);
    total.max_cost_fixed = fixed >= 18446744073709549568.0 ? kUnreached - 1 : static_cast<PathLength>(fixed);
  }
  Stopwatch phase;
  merge_groups(options, outputs, info, scratch, context, total);
  for (const auto& s : scratch) {
    total.bytes_read += s->bytes_read();
    total.bytes_written += s->bytes_written();
  }
  total.bytes_read += input->bytes_read();
  total.bytes_written += input->bytes_written();
  total.seconds.import += import_seconds;
  total.seconds.write += phase.seconds();
  total.seconds.total = start.seconds();
  total.peak_rss_bytes = peak_rss_bytes();
  total.memory_peak_reserved = budget.peak_reserved();
  return total;
}

}  // namespace terrazo
