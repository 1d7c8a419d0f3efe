// engine/commands/mst_command.cpp: parse_mst_options, mst_usage, run_mst_command (engine/commands/mst_command.h).
#include "engine/commands/mst_command.h"

#include <cstdio>

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

MstCommandOptions parse_mst_options(const std::vector<std::string>& arguments) {
  ArgParser args("mst", arguments);
  auto parsed = parse_common<MstCommandOptions>(args);
  const std::uint32_t band = parse_band_option(args);  // before positionals(): they refuse unknown flags
  const std::optional<std::string> input_mode = args.value("--input-mode");
  const CommonOptions& common = parsed.common;
  MstOptions& options = parsed.mst;
  if (auto weight = args.value("--weight")) {
    options.weight = parse_weight_model(*weight);
    if (options.weight == WeightModel::Unit || options.weight == WeightModel::Geometric)
      throw UsageError("invalid --weight '" + *weight + "' for mst: expected max, absdiff or friction (unit and "
                       "geometric are cost distance weights)");
  }
  if (auto text = args.value("--scale")) {
    const double scale = parse_finite_double("--scale", *text);
    if (!(scale > 0)) throw UsageError("invalid --scale '" + *text + "': expected a positive number, e.g. 100");
    options.scale = scale;
  }
  if (auto connectivity = args.value("--connectivity")) options.connectivity = parse_connectivity(*connectivity);
  if (auto edge_list = args.value("--edge-list")) options.edge_list = *edge_list;
  if (auto merge = args.value("--merge")) options.merge_mode = parse_merge_mode(*merge);
  options.geotiff = parse_geotiff_options(args, common);
  const std::vector<std::string> files = args.positionals(2, 2, "INPUT EDGES.tif");
  options.input = files[0];
  options.band = band;
  if (files[1] != "-") options.output = files[1];
  if (options.output.empty() && options.edge_list.empty() && !common.json)
    throw UsageError("EDGES.tif is '-' and neither --edge-list nor --json is given: nothing would be output");
  options.tile = common.tile;
  if (input_mode) options.input_mode = parse_input_mode(*input_mode);
  return parsed;
}

MstCommandResult run_mst_command(const MstCommandOptions& options, Progress& progress) {
  const MstOptions& o = options.mst;
  return run_in_context<MstCommandResult>(options, run_settings(options.common), progress, [&](RunContext& context) {
    // Every rank of a distributed run checks the files; a failure on any one is every rank's.
    agreed_stage(context.comm(), "mst: checking the files", [&] {
      check_input_file(o.input);
      if (!o.output.empty()) check_output_file(o.output, {o.input});
      if (!o.edge_list.empty()) check_output_file(o.edge_list, {o.input, o.output});
    });
    return run_mst(o, context);
  });
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
  summary.add("width", r.width)
      .add("height", r.height)
      .add("tile", r.tile)
      .add("input_read", r.input_read)
      .add("device", r.device)
      .add("merge", to_string(r.merge_mode))
      .add("weight", to_string(r.params.model))
      .add("connectivity", static_cast<int>(options.mst.connectivity))
      .add("scale", r.params.scale)
      .add("scale_given", r.weights.scale_given)
      .add("step_error_bound", r.weights.step_error_bound)
      .add("relative_error_bound", r.weights.relative_error_bound)
      .add("offset", r.params.offset)
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
  add_run_totals(summary, *this, {{"memory_peak_reserved_bytes", r.memory_peak_reserved},
                                  {"peak_rss_bytes", r.peak_rss_bytes}, {"bytes_read", r.bytes_read},
                                  {"bytes_written", r.bytes_written}});
  return summary.str();
}

}  // namespace terrazo
