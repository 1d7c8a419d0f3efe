// engine/commands/fill_command.cpp: parse_fill_options, fill_usage, run_fill_command (engine/commands/fill_command.h).
#include "engine/commands/fill_command.h"

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

FillCommandOptions parse_fill_options(const std::vector<std::string>& arguments) {
  ArgParser args("fill", arguments);
  auto parsed = parse_common<FillCommandOptions>(args);
  auto& options = parsed.fill;
  parse_raster_to_raster(args, parsed.common, "INPUT FILLED.tif", options, [&] {
    if (auto outlets = args.value("--outlets")) options.outlets = parse_fill_outlets(*outlets);
    if (auto connectivity = args.value("--connectivity")) options.connectivity = parse_connectivity(*connectivity);
  });
  return parsed;
}

FillCommandResult run_fill_command(const FillCommandOptions& options, Progress& progress) {
  check_input_file(options.fill.input);
  check_output_file(options.fill.output, {options.fill.input});
  return run_in_context<FillCommandResult>(options, run_settings(options.common), progress,
                                        [&](RunContext& context) { return run_fill(options.fill, context); });
}

std::string FillCommandResult::summary() const {
  const FillResult& f = result;
  return format_line("fill: %llu of %llu valid cells raised, %llu with no outlet",
                     static_cast<unsigned long long>(f.raised_cells), static_cast<unsigned long long>(f.valid_cells),
                     static_cast<unsigned long long>(f.closed_cells)) +
         run_line_tail(f.seconds.total, f.peak_rss_bytes);
}

std::string FillCommandResult::to_json() const {
  const FillResult& r = result;
  JsonObject phases;
  phases.add("import", r.seconds.import).add("flood", r.seconds.flood).add("graph", r.seconds.graph).add("write", r.seconds.write);
  JsonObject summary = json_head("fill", options.fill.input, options.fill.output);
  summary.add("width", r.width)
      .add("height", r.height)
      .add("tile", r.tile)
      .add("input_read", r.input_read)
      .add("outlets", to_string(options.fill.outlets))
      .add("connectivity", static_cast<int>(options.fill.connectivity))
      .add("valid_cells", r.valid_cells)
      .add("raised_cells", r.raised_cells)
      .add("closed_cells", r.closed_cells)
      .add("graph_nodes", r.graph_nodes)
      .add("graph_edges", r.graph_edges)
      .add("phases", phases)
      .add("seconds", r.seconds.total);
  add_run_totals(summary, *this, {{"memory_peak_reserved_bytes", r.memory_peak_reserved},
                                  {"peak_rss_bytes", r.peak_rss_bytes}, {"bytes_read", r.bytes_read},
                                  {"bytes_written", r.bytes_written}});
  return summary.str();
}

}  // namespace terrazo
