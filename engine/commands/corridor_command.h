// engine/commands/corridor_command.h: `terrazo corridor` as a library entry point (docs/architecture.md
// "Commands"): options, the parser (the same for the CLI and the tests), the help text, the run
// function over run_corridor (engine/commands/corridor.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/corridor.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct CorridorCommandOptions {
  CorridorOptions corridor;
  CommonOptions common;
};

// Parses `args` (after the command name); UsageError with a one-line message naming the flag.
CorridorCommandOptions parse_corridor_options(const std::vector<std::string>& args);
const char* corridor_usage();

struct CorridorCommandResult {
  CorridorCommandOptions options;
  CorridorResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// Checks the files (UsageError), then run_corridor under a budget of --memory.
CorridorCommandResult run_corridor_command(const CorridorCommandOptions& options, Progress& progress);

}  // namespace terrazo
