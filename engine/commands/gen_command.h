// engine/commands/gen_command.h: `terrazo gen` as a library entry point (GDAL-utility style: docs/architecture.md
// "Commands"): an options struct, the parser of the command line (the same for the CLI and the tests),
// the help text, the run function (over run_generate, engine/commands/generate_terrain.h) with the progress callback, and a result that prints itself.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/generate_terrain.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct GenCommandOptions {
  GenerateOptions gen;
  CommonOptions common;  // --memory, --json, -q, ...
};

// Parses `args` (after the command name); throws UsageError with a one-line message naming the flag
// and the value as typed. Reads no file.
GenCommandOptions parse_gen_options(const std::vector<std::string>& args);
const char* gen_usage();

struct GenCommandResult {
  GenCommandOptions options;
  GenerateResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;  // one line: the --json summary
  std::string summary() const;  // the text printed without --json
  static constexpr bool kTextOnStdout = true, kQuietKeepsText = false;
};

// Checks the files (UsageError), then runs under a budget of --memory.
GenCommandResult run_gen_command(const GenCommandOptions& options, Progress& progress);

}  // namespace terrazo
