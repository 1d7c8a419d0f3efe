// engine/commands/fill_command.h: `terrazo fill` as a library entry point (docs/architecture.md
// "Commands"): its options, the parser of its command line, the help text, the run function over
// run_fill (engine/commands/fill.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/fill.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

namespace terrazo {

struct FillCommandOptions {
  FillOptions fill;
  CommonOptions common;
};

// Parses `args` (after the command name); UsageError naming the flag and the value as typed. Reads no file.
FillCommandOptions parse_fill_options(const std::vector<std::string>& args);
const char* fill_usage();

struct FillCommandResult {
  FillCommandOptions options;
  FillResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// Checks the files (UsageError), then run_fill in a run context of the common flags.
FillCommandResult run_fill_command(const FillCommandOptions& options, Progress& progress);

}  // namespace terrazo
