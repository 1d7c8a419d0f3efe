// engine/commands/info_command.h: `terrazo info` as a library entry point (GDAL-utility style: docs/architecture.md
// "Commands"): an options struct, the parser of the command line (the same for the CLI and the tests),
// the help text, the run function (over run_info, engine/raster_inputs/raster_io.h) with the progress callback, and a result that prints itself.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/index.h"
#include "engine/raster_inputs/raster_io.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct InfoCommandOptions {
  std::string input;
  std::uint32_t band = 0;  // --band (0: none given)
  CommonOptions common;  // --memory, --json, -q, ...
};

// Parses `args` (after the command name); throws UsageError with a one-line message naming the flag
// and the value as typed. Reads no file.
InfoCommandOptions parse_info_options(const std::vector<std::string>& args);
const char* info_usage();

struct InfoCommandResult : CommandResult<InfoCommandOptions, RasterSummary, true, true> {
  IndexSummary index;  // when INPUT is a boundary-graph index (.tzi): its description instead
  std::string to_json() const;
  std::string summary() const;
};

// Checks the files (UsageError), then runs under a budget of --memory.
InfoCommandResult run_info_command(const InfoCommandOptions& options, Progress& progress);

}  // namespace terrazo
