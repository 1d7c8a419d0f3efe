// engine/commands/fill_command.cpp: parse_fill_options, fill_usage, run_fill_command (engine/commands/fill_command.h).
#include "engine/commands/fill_command.h"

#include "engine/commands/flow_run.h"

namespace terrazo {
namespace {

// fill's own flags: --outlets, --connectivity.
void parse_own_flags(ArgParser& args, FillOptions& options) {
  if (auto outlets = args.value("--outlets")) options.outlets = parse_fill_outlets(*outlets);
  if (auto connectivity = args.value("--connectivity")) options.connectivity = parse_connectivity(*connectivity);
}

}  // namespace

FillCommandOptions parse_fill_options(const std::vector<std::string>& arguments) {
  return parse_raster_command("fill", arguments, &FillCommandOptions::fill, "INPUT FILLED.tif", parse_own_flags);
}

FillCommandResult run_fill_command(const FillCommandOptions& options, Progress& progress) {
  return run_flow_command<FillCommandResult>(options, options.fill, progress, run_fill);
}

std::string FillCommandResult::summary() const {
  const FillPhaseResult& f = result.phases;
  return format_line("fill: %llu of %llu valid cells raised, %llu with no outlet",
                     static_cast<unsigned long long>(f.raised_cells), static_cast<unsigned long long>(f.valid_cells),
                     static_cast<unsigned long long>(f.closed_cells)) +
         run_line_tail(result.seconds.total, result.peak_rss_bytes);
}

std::string FillCommandResult::to_json() const {
  const FillPhaseResult& p = result.phases;
  JsonObject summary = json_head("fill", options.fill.input, options.fill.output);
  add_raster_keys(summary, result)
      .add("outlets", to_string(options.fill.outlets))
      .add("connectivity", static_cast<int>(options.fill.connectivity))
      .add("valid_cells", p.valid_cells)
      .add("raised_cells", p.raised_cells)
      .add("closed_cells", p.closed_cells)
      .add("graph_nodes", p.graph_nodes)
      .add("graph_edges", p.graph_edges)
      .add("kept_tiles", p.kept_tiles);
  return flow_json_tail(summary, *this,
                        {{"flood", p.flood_seconds}, {"graph", p.graph_seconds}, {"write", p.write_seconds}});
}

}  // namespace terrazo
