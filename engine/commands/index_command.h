// engine/commands/index_command.h: `terrazo index` as a library entry point (docs/architecture.md "Commands"):
// options, the parser (the same for the CLI and the tests), the help text, the run function over
// run_index (engine/commands/index.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/index.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct IndexCommandOptions {
  IndexOptions index;
  CommonOptions common;
};

IndexCommandOptions parse_index_options(const std::vector<std::string>& args);
const char* index_usage();

struct IndexCommandResult {
  IndexCommandOptions options;
  IndexResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

IndexCommandResult run_index_command(const IndexCommandOptions& options, Progress& progress);

}  // namespace terrazo
