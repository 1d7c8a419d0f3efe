// engine/commands/clump_command.h: `terrazo clump` as a library entry point (GDAL-utility style:
// docs/architecture.md "Commands"): options, the parser (the same for the CLI and the tests), the
// help text, the run function over run_clump (engine/commands/clump.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/clump.h"
#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

// `text`, the value of --by: value | valid | range:LO,HI (LO <= HI, finite); UsageError otherwise.
void parse_clump_by(const std::string& text, ClumpOptions* options);

// Checks the files (UsageError), then run_clump under a budget of --memory.
TERRAZO_COMMAND(clump, Clump, ClumpOptions, clump, ClumpResult, false);

}  // namespace terrazo
