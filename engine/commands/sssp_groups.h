// engine/commands/sssp_groups.h: the passes of run_sssp (engine/commands/sssp.h) and the runner of per-source groups.
//
// Per-source settings (docs/sssp.md "Per-source settings"): the sources sharing a (multiplier,
// maximum cost) are one group; one group is one pass of the pipeline (run_sssp_pass, engine/commands/sssp_pass.cpp),
// several groups are one pass each into a scratch file, merged cell by cell into the outputs
// (run_sssp_groups, engine/commands/sssp_groups.cpp; engine/sssp/source_groups.h, phase "sssp: merge"):
//   cost(u) = min over sources s with init(s) + d_m(s)(s, u) <= max(s) of that, ties to the lower id.
// Internal to engine/commands/sssp.cpp, sssp_pass.cpp and sssp_groups.cpp: callers use run_sssp.
#pragma once
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "engine/raster_inputs/pipeline_input.h"
#include "engine/commands/sssp.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/sssp/source_groups.h"
#include "io/store/output_set.h"
#include "io/store/raster_info.h"

namespace terrazo {

// One pass of the pipeline over some of the sources. The default pass takes every source. A group's
// pass keeps the point sources of its (multiplier, maximum cost) and, with `mask`, the
// --source-raster's; its weights are the multiplier times the exact weights, rounded once (scale x
// multiplier), its distances stay in the run's fixed point. With `scratch` it writes its results
// there instead of the GeoTIFF outputs.
constexpr double kNoMaximum = std::numeric_limits<double>::infinity();
struct SsspPass {
  bool filter = false;           // keep only the point sources of (multiplier, max_cost)
  double multiplier = 1;         // the group's multiplier
  double max_cost = kNoMaximum;  // the group's maximum cost (cost units), beside --max-cost
  bool mask = true;              // read --source-raster in this pass
  bool track_source = false;     // source ids even without --allocation (the merge's tie-break)
  std::string scratch_path;      // non-empty: results go to an SsspGroupScratch there
  std::unique_ptr<SsspGroupScratch>* scratch = nullptr;
  RasterInfo* info_out = nullptr;  // INPUT's info, for the merge's writers
  const PipelineInput* input = nullptr;  // INPUT opened once for every group (null: the pass opens it)
  OutputSet* outputs = nullptr;  // the run's outputs (sssp_output_set), written and closed by a pass without scratch
};

// The group of a point source: its multiplier and its maximum cost (none: kNoMaximum).
inline std::pair<double, double> group_key(double multiplier, double max_cost) {
  return {multiplier, max_cost < 0 ? kNoMaximum : max_cost};
}

// The run's input and output paths are distinct files (engine/commands/output_paths.h), else a UsageError.
void check_sssp_paths(const SsspOptions& options);

// How --sources-file's points take their settings: the attribute fields --source-start (initial),
// --source-max-field, --source-multiplier-field, the defaults --source-initial and
// --source-multiplier, --skip-empty-features.
SourceFields source_file_fields(const SsspOptions& options);
// The run's outputs (OUTPUT, --backlink, --allocation, those set), their partial files made now;
// run_sssp publishes them together once the pass or the merge has written them all.
void add_sssp_outputs(const SsspOptions& options, OutputSet& outputs);

// One pass (engine/commands/sssp_pass.cpp): validates the options, opens INPUT (or takes pass.input), locates the
// sources, runs the exchange and writes the outputs or the pass's scratch file.
SsspResult run_sssp_pass(const SsspOptions& options, const SsspPass& pass, RunContext& context);

// The runner of per-source settings (engine/commands/sssp_groups.cpp), for options with a maximum-cost or
// multiplier field or a multiplier other than 1 (run_sssp checks the rest of the source flags first):
// the distinct (multiplier, maximum cost) groups of the sources in ascending order; one group is one
// pass with its multiplier and maximum on the solver; several are INPUT opened once, one pass each
// into a scratch file, and the merge into the outputs (--backlink refused, --index refused).
SsspResult run_sssp_groups(const SsspOptions& options, OutputSet& outputs, RunContext& context);

}  // namespace terrazo
