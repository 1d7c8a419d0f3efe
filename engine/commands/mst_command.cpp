// engine/commands/mst_command.cpp: parse_mst_options, mst_usage, run_mst_command (engine/commands/mst_command.h).
#include "engine/commands/mst_command.h"

#include <cstdio>

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

namespace {

// mst's own flags: --weight, --scale, --connectivity, --edge-list, --merge.
void parse_mst_flags(ArgParser& args, MstOptions& options) {
  if (auto weight = args.value("--weight")) {
    options.weight = parse_weight_model(*weight);
    if (options.weight == WeightModel::Unit || options.weight == WeightModel::Geometric)
      throw UsageError("invalid --weight '" + *weight + "' for mst: expected max, absdiff or friction (unit and "
                       "geometric are cost distance weights)");
  }
  if (auto scale = parse_signed_double(args, "--scale", Sign::Positive, "a positive number, e.g. 100")) options.scale = *scale;
  if (auto connectivity = args.value("--connectivity")) options.connectivity = parse_connectivity(*connectivity);
  if (auto edge_list = args.value("--edge-list")) options.edge_list = *edge_list;
  if (auto merge = args.value("--merge")) options.merge_mode = parse_merge_mode(*merge);
}

}  // namespace

MstCommandOptions parse_mst_options(const std::vector<std::string>& arguments) {
  auto parsed = parse_raster_command("mst", arguments, &MstCommandOptions::mst, "INPUT EDGES.tif", parse_mst_flags);
  MstOptions& options = parsed.mst;
  if (options.output == "-") options.output.clear();
  if (options.output.empty() && options.edge_list.empty() && !parsed.common.json)
    throw UsageError("EDGES.tif is '-' and neither --edge-list nor --json is given: nothing would be output");
  return parsed;
}

MstCommandResult run_mst_command(const MstCommandOptions& options, Progress& progress) {
  const MstOptions& o = options.mst;
  return run_ranked_entry_point<MstCommandResult>(options, progress, run_mst, o, "mst", {o.input},
                                                 {o.output, o.edge_list});
}

std::string MstCommandResult::summary() const {
  const MstResult& m = result;
  return format_line("mst: %llu edges, %llu vertices, %llu components; total weight %llu (x 1/%g = %.6f input units)",
                     static_cast<unsigned long long>(m.edges), static_cast<unsigned long long>(m.vertices),
                     static_cast<unsigned long long>(m.components), static_cast<unsigned long long>(m.total_weight),
                     m.params.scale, m.total_weight_input_units) +
         run_line_tail(m.seconds.total, m.peak_rss_bytes);
}

std::string MstCommandResult::to_json() const {
  const MstResult& r = result;
  JsonObject phases;
  phases.add("import", r.seconds.import)
      .add("block_local", r.seconds.block_local)
      .add("merge", r.seconds.merge)
      .add("expansion", r.seconds.expansion);
  JsonObject summary = json_head("mst", options.mst.input, options.mst.output);
  add_raster_keys(summary, r)
      .add("device", r.device)
      .add("merge", to_string(r.merge_mode))
      .add("weight", to_string(r.params.model))
      .add("connectivity", static_cast<int>(options.mst.connectivity));
  add_scale_keys(summary, r.params, r.weights)
      .add("total_weight", r.total_weight)
      .add("total_weight_input_units", r.total_weight_input_units)
      .add("edges", r.edges)
      .add("vertices", r.vertices)
      .add("components", r.components)
      .add("phases", phases)
      .add("seconds", r.seconds.total)
      .add("merge_levels", r.merge_levels)
      .add("gpu_batch_tiles", r.gpu_batch_tiles)
      .add("gpu_kernel_seconds", r.gpu_kernel_seconds)
      .add("gpu_merge_kernel_seconds", r.gpu_merge_kernel_seconds)
      .add("merge_batches", r.merge_batches)
      .add("summary_edges", r.summary_edges)
      .add("expansion_records", r.expansion_records);
  if (!r.ranks.empty()) summary.add("ranks", ranks_json(r.ranks));
  add_pipeline_totals(summary, *this);
  return summary.str();
}

}  // namespace terrazo
