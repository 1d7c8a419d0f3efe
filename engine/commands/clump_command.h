// engine/commands/clump_command.h: `terrazo clump` as a library entry point (GDAL-utility style:
// docs/architecture.md "Commands"): options, the parser (the same for the CLI and the tests), the
// help text, the run function over run_clump (engine/commands/clump.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/clump.h"
#include "engine/commands/command_line.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct ClumpCommandOptions {
  ClumpOptions clump;
  CommonOptions common;
};

// Parses `args` (after the command name); throws UsageError with a one-line message naming the
// flag and the value as typed. Reads no file.
ClumpCommandOptions parse_clump_options(const std::vector<std::string>& args);
const char* clump_usage();
// `text`, the value of --by: value | valid | range:LO,HI (LO <= HI, finite); UsageError otherwise.
void parse_clump_by(const std::string& text, ClumpOptions* options);

struct ClumpCommandResult {
  ClumpCommandOptions options;
  ClumpResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// Checks the files (UsageError), then run_clump under a budget of --memory.
ClumpCommandResult run_clump_command(const ClumpCommandOptions& options, Progress& progress);

}  // namespace terrazo
