// engine/commands/path_command.h: `terrazo path` as a library entry point (GDAL-utility style: docs/architecture.md
// "Commands"): an options struct, the parser of the command line (the same for the CLI and the tests),
// the help text, the run function (over run_path, engine/commands/path.h) with the progress callback, and a result that prints itself.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/path.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct PathCommandOptions {
  PathOptions path;
  CommonOptions common;  // --memory, --json, -q, ...
};

// Parses `args` (after the command name); throws UsageError with a one-line message naming the flag
// and the value as typed. Reads no file.
PathCommandOptions parse_path_options(const std::vector<std::string>& args);
const char* path_usage();

struct PathCommandResult {
  PathCommandOptions options;
  PathResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;  // one line: the --json summary
  std::string summary() const;  // the text printed without --json
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// Checks the files (UsageError), then runs under a budget of --memory.
PathCommandResult run_path_command(const PathCommandOptions& options, Progress& progress);

}  // namespace terrazo
