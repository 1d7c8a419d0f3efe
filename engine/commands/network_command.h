// engine/commands/network_command.h: `terrazo network` as a library entry point (docs/architecture.md
// "Commands"): options, the parser (the same for the CLI and the tests), the help text, the run
// function over run_network (engine/commands/network.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/network.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct NetworkCommandOptions {
  NetworkOptions network;
  CommonOptions common;
};

NetworkCommandOptions parse_network_options(const std::vector<std::string>& args);
const char* network_usage();

struct NetworkCommandResult {
  NetworkCommandOptions options;
  NetworkResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

NetworkCommandResult run_network_command(const NetworkCommandOptions& options, Progress& progress);

}  // namespace terrazo
