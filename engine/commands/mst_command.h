// engine/commands/mst_command.h: `terrazo mst` as a library entry point (GDAL-utility style: docs/architecture.md
// "Commands"): an options struct, the parser of the command line (the same for the CLI and the tests),
// the help text, the run function over run_mst (engine/commands/mst.h) with the progress callback, and a result
// that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/mst.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct MstCommandOptions {
  MstOptions mst;        // input, output ("" for '-'), edge list, weights, device, ...
  CommonOptions common;  // --memory, --json, -q, ...
};

// Parses `args` (after the command name); throws UsageError with a one-line message naming the flag
// and the value as typed. Reads no file.
MstCommandOptions parse_mst_options(const std::vector<std::string>& args);
const char* mst_usage();

struct MstCommandResult {
  MstCommandOptions options;
  MstResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;  // one line: the --json summary
  std::string summary() const;  // one line for stderr
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// Checks the files (UsageError), then run_mst under a budget of --memory.
MstCommandResult run_mst_command(const MstCommandOptions& options, Progress& progress);

}  // namespace terrazo
