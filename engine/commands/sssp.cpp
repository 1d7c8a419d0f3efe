// engine/commands/sssp.cpp: run_sssp (engine/commands/sssp.h): the run's outputs and one pass of the
// pipeline (engine/commands/sssp_pass.cpp); per-source settings of several groups run their passes
// through engine/commands/sssp_groups.cpp.
#include "engine/commands/sssp.h"

#include <cmath>
#include <string>
#include <utility>

#include "engine/commands/cost_outputs_writer.h"
#include "engine/commands/output_paths.h"
#include "engine/commands/sssp_groups.h"
#include "engine/sssp/output.h"
#include "kernels/common/error.h"
#include "kernels/sssp/knight.h"

namespace terrazo {

void check_sssp_paths(const SsspOptions& options) {
  check_distinct_paths({{"INPUT", options.input}, {"--sources-file", options.sources_file},
                        {"--source-raster", options.source_raster}, {"--friction", options.friction},
                        {"--barrier-raster", options.barrier_raster}, {"--index", options.index}},
                       {{"OUTPUT", options.output}, {"--backlink", options.backlink}, {"--allocation", options.allocation}});
}

void add_sssp_outputs(const SsspOptions& options, OutputSet& outputs) {
  for (const std::string* path : {&options.output, &options.backlink, &options.allocation})
    outputs.add_if(*path, geotiff_sidecar_suffixes());
}

std::uint64_t sssp_write_phase_bytes(const SsspOptions& options, std::uint32_t tile) {
  TileGrid grid;
  grid.tile = tile;
  const bool labelled = !options.backlink.empty() || !options.allocation.empty();
  return CostOutputsWriter::reserved_bytes(options, grid) +
         sssp_output_tile_bytes(tile, labelled, !options.backlink.empty(), halo_width(options.connectivity));
}

namespace {

// The per-source flags, and --source-initial and --source-multiplier, checked before any work.
void check_source_settings(const SsspOptions& options) {
  if (!(options.source_initial >= 0 && std::isfinite(options.source_initial)))
    throw UsageError("invalid --source-initial " + format_value(options.source_initial) +
                     ": expected a finite cost >= 0");
  if (!(options.source_multiplier > 0 && std::isfinite(options.source_multiplier)))
    throw UsageError("invalid --source-multiplier " + format_value(options.source_multiplier) +
                     ": expected a finite number > 0");
  for (const auto& [flag, field] : {std::make_pair("--source-initial-field", &options.source_start),
                                    std::make_pair("--source-max-field", &options.source_max_field),
                                    std::make_pair("--source-multiplier-field", &options.source_multiplier_field)})
    if (!field->empty() && options.sources_file.empty())
      throw UsageError(std::string(flag) + " names an attribute of --sources-file, and no --sources-file is given");
}

}  // namespace

SsspResult run_sssp(const SsspOptions& options, RunContext& context) {
  const bool per_source = !options.source_max_field.empty() || !options.source_multiplier_field.empty() ||
                          options.source_multiplier != 1;
  // Every output's partial file is made before any work and all are published together at the end
  // (io/store/output_set.h): a failure writing any of them publishes none. A distributed run's are
  // rank 0's alone (docs/distributed.md "sssp"), published after the ranks agreed the last stage.
  Communicator& comm = context.comm();
  OutputSet outputs;
  agreed_stage(comm, "sssp: making the outputs", [&] {
    check_source_settings(options);
    if (per_source && comm.distributed())
      throw UsageError("per-source settings (--source-max-field, --source-multiplier-field, --source-multiplier) do "
                       "not run on several ranks yet (docs/distributed.md); run one process");
    check_sssp_paths(options);
    if (comm.root()) add_sssp_outputs(options, outputs);
  });
  SsspResult result;
  if (per_source) {
    result = run_sssp_groups(options, outputs, context);
  } else {
    SsspPass pass;
    pass.outputs = &outputs;
    result = run_sssp_pass(options, pass, context);
  }
  if (comm.root()) outputs.publish();
  return result;
}

}  // namespace terrazo
