// engine/commands/network_command.cpp: parse_network_options, network_usage, run_network_command (engine/commands/network_command.h).
#include "engine/commands/network_command.h"

#include "engine/commands/od_matrix_command.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {
namespace {

// The usage text; each "{flags SECTION}" line becomes that section's flags (engine/commands/flag_table.h).
const char kUsage[] =
    "Usage: terrazo network --site x,y --site x,y [...] | --sites-file FILE | --sites-raster R [options]\n"
    "                       INPUT OUT.geojson\n"
    "\n"
    "The least-cost network connecting K sites: the minimum spanning tree of the sites' exact cost matrix\n"
    "(`terrazo od-matrix`), each tree edge traced as a least-cost path (`terrazo sssp --backlink` from the\n"
    "lower site id, then `terrazo path`). Sites no path joins give a forest. docs/index.md.\n"
    "\n"
    "OUT.geojson  one LineString per tree edge (cell centres, INPUT's CRS), properties from_id, to_id,\n"
    "             cost (cost units), length (map units), cells\n"
    "\n"
    "Sites: points (--site, --sites-file), or regions: --sites-raster R, a raster of INPUT's size whose\n"
    "cells hold region ids (positive integers; 0 and nodata: none), e.g. habitat patches. The cost\n"
    "between two regions is the least over their cells' pairs; an edge's line runs from the cell of the\n"
    "higher region where that least cost is reached (lowest cell id on ties) back to the lower region;\n"
    "from_id and to_id are the region ids.\n"
    "\n"
    "Sites (at least 2; ids 1, 2, ... in the order given):\n"
    "{flags Sites}\n"
    "\n"
    "Options (those of `terrazo od-matrix` but --max-cost, --wide and --geojson):\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: sites, edges, components, total_cost, method, phases {matrix, paths}, seconds, peak_rss_bytes.\n"
    "\n"
    "Example:\n"
    "  terrazo network --index dem.tzi --sites-file towns.gpkg dem.tif links.geojson\n"
    "  terrazo network --sites-raster patches.tif friction.tif corridors.geojson\n";

}  // namespace

const char* network_usage() { return usage_text("network", kUsage); }

NetworkCommandOptions parse_network_options(const std::vector<std::string>& arguments) {
  for (const std::string& a : arguments)
    if (a == "--max-cost" || a == "--wide" || a == "--geojson" || a.rfind("--max-cost=", 0) == 0 || a.rfind("--geojson=", 0) == 0)
      throw UsageError(a + " does not apply to network (use od-matrix)");
  std::vector<std::string> args = arguments;
  NetworkCommandOptions parsed;
  try {
    const OdMatrixCommandOptions od = parse_od_matrix_options(args);
    parsed.network.od = od.od;
    parsed.common = od.common;
  } catch (const UsageError& e) {
    std::string message = e.what();
    const std::string from = "INPUT OUT.csv";
    const auto at = message.find(from);
    if (at != std::string::npos) message.replace(at, from.size(), "INPUT OUT.geojson");
    if (message.rfind("od-matrix needs", 0) == 0) message.replace(0, 9, "network");
    throw UsageError(message);
  }
  return parsed;
}

NetworkCommandResult run_network_command(const NetworkCommandOptions& options, Progress& progress) {
  const OdMatrixOptions& o = options.network.od;
  const std::vector<std::string> inputs = check_od_matrix_inputs(o);
  check_output_file(o.output, inputs);
  return run_in_context<NetworkCommandResult>(options, run_settings(options.common), progress,
                                        [&](RunContext& context) { return run_network(options.network, context); });
}

std::string NetworkCommandResult::summary() const {
  const NetworkResult& r = result;
  return format_line("network: %llu sites, %zu edges (%llu components), total cost %.6f; %.1f s, peak RSS %s",
                     static_cast<unsigned long long>(r.matrix.sites), r.edges.size(),
                     static_cast<unsigned long long>(r.components), r.total_cost, r.seconds_total,
                     MemoryBudget::format_size(r.peak_rss_bytes).c_str());
}

std::string NetworkCommandResult::to_json() const {
  const NetworkResult& r = result;
  JsonObject phases;
  phases.add("matrix", r.seconds_matrix).add("paths", r.seconds_paths);
  JsonObject s;
  s.add("command", "network")
      .add("input", options.network.od.input)
      .add("output", options.network.od.output)
      .add("method", r.matrix.method)
      .add("sites", r.matrix.sites)
      .add("edges", static_cast<std::uint64_t>(r.edges.size()))
      .add("components", r.components)
      .add("total_cost", r.total_cost)
      .add("phases", phases)
      .add("seconds", r.seconds_total);
  add_run_totals(s, *this, {{"peak_rss_bytes", r.peak_rss_bytes}});
  return s.str();
}

}  // namespace terrazo
