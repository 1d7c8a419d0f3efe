// engine/commands/corridor_command.h: `terrazo corridor` as a library entry point (docs/architecture.md
// "Commands"): options, the parser (the same for the CLI and the tests), the help text, the run
// function over run_corridor (engine/commands/corridor.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/corridor.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

// Checks the files (UsageError), then run_corridor under a budget of --memory.
TERRAZO_COMMAND(corridor, Corridor, CorridorOptions, corridor, CorridorResult, false);

}  // namespace terrazo
