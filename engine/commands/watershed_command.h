// engine/commands/watershed_command.h: `terrazo watershed` as a library entry point (docs/architecture.md
// "Commands"): its options, the parser of its command line, the help text, the run function over
// run_watershed (engine/commands/watershed.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/watershed.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

namespace terrazo {

// Checks the files (UsageError), then run_watershed in a run context of the common flags.
TERRAZO_COMMAND(watershed, Watershed, WatershedOptions, watershed, WatershedResult, false);

}  // namespace terrazo
