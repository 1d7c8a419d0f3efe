// engine/commands/watershed_command.h: `terrazo watershed` as a library entry point (docs/architecture.md
// "Commands"): its options, the parser of its command line, the help text, the run function over
// run_watershed (engine/commands/watershed.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/watershed.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

namespace terrazo {

struct WatershedCommandOptions {
  WatershedOptions watershed;
  CommonOptions common;
};

// Parses `args` (after the command name); UsageError naming the flag and the value as typed. Reads no file.
WatershedCommandOptions parse_watershed_options(const std::vector<std::string>& args);
const char* watershed_usage();

struct WatershedCommandResult {
  WatershedCommandOptions options;
  WatershedResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// Checks the files (UsageError), then run_watershed in a run context of the common flags.
WatershedCommandResult run_watershed_command(const WatershedCommandOptions& options, Progress& progress);

}  // namespace terrazo
