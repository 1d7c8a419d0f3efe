// engine/commands/fill_command.cpp: parse_fill_options, fill_usage, run_fill_command (engine/commands/fill_command.h).
#include "engine/commands/fill_command.h"

#include "engine/commands/flow_run.h"
#include "engine/flow/fill_resident.h"

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

namespace {

// The resident fill's rounds (engine/flow/fill_resident.h).
JsonObject resident_json(const ResidentFillStats& r) {
  JsonObject resident;
  resident.add("tile", kResidentFillTile)
      .add("rounds", r.rounds)
      .add("solves", r.solves)
      .add("tiles_solved", r.tiles_solved)
      .add("max_round_tiles", r.max_active)
      .add("cells_lowered", r.cells_lowered)
      .add("sweeps", r.sweeps)
      .add("gpu_ms", r.kernel_ms);
  return resident;
}

}  // namespace

std::string FillCommandResult::to_json() const {
  const FillPhaseResult& p = result.phases;
  const bool resident = std::string(p.path) == "resident";
  JsonObject summary = json_head("fill", options.fill.input, options.fill.output);
  add_raster_keys(summary, result)
      .add("outlets", to_string(options.fill.outlets))
      .add("connectivity", static_cast<int>(options.fill.connectivity))
      .add("device", p.device)
      .add("path", p.path);
  if (!p.fallback.empty()) summary.add("fallback", p.fallback);
  summary.add("valid_cells", p.valid_cells).add("raised_cells", p.raised_cells).add("closed_cells", p.closed_cells);
  if (resident) {
    summary.add("resident", resident_json(p.resident));
    return flow_json_tail(summary, *this, {{"load", p.load_seconds}, {"solve", p.solve_seconds}, {"write", p.write_seconds}});
  }
  summary.add("graph_nodes", p.graph_nodes).add("graph_edges", p.graph_edges).add("kept_tiles", p.kept_tiles);
  return flow_json_tail(summary, *this,
                        {{"flood", p.flood_seconds}, {"graph", p.graph_seconds}, {"write", p.write_seconds}});
}

}  // namespace terrazo
