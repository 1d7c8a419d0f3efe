// engine/commands/network_command.cpp: parse_network_options, network_usage, run_network_command (engine/commands/network_command.h).
#include "engine/commands/network_command.h"

#include "engine/commands/od_matrix_command.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

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
  return format_line("network: %llu sites, %zu edges (%llu components), total cost %.6f",
                     static_cast<unsigned long long>(r.matrix.sites), r.edges.size(),
                     static_cast<unsigned long long>(r.components), r.total_cost) +
         run_line_tail(r.seconds_total, r.peak_rss_bytes);
}

std::string NetworkCommandResult::to_json() const {
  const NetworkResult& r = result;
  JsonObject phases;
  phases.add("matrix", r.seconds_matrix).add("paths", r.seconds_paths);
  JsonObject s = json_head("network", options.network.od.input, options.network.od.output);
  s.add("method", r.matrix.method)
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
