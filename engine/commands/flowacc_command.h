// engine/commands/flowacc_command.h: `terrazo flowacc` as a library entry point (docs/architecture.md
// "Commands"): its options, the parser of its command line, the help text, the run function over
// run_flowacc (engine/commands/flowacc.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/flowacc.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

namespace terrazo {

struct FlowaccCommandOptions {
  FlowAccOptions flowacc;
  CommonOptions common;
};

// Parses `args` (after the command name); UsageError naming the flag and the value as typed. Reads no file.
FlowaccCommandOptions parse_flowacc_options(const std::vector<std::string>& args);
const char* flowacc_usage();

struct FlowaccCommandResult {
  FlowaccCommandOptions options;
  FlowAccResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// Checks the files (UsageError), then run_flowacc in a run context of the common flags.
FlowaccCommandResult run_flowacc_command(const FlowaccCommandOptions& options, Progress& progress);

}  // namespace terrazo
