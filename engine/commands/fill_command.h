// engine/commands/fill_command.h: `terrazo fill` as a library entry point (docs/architecture.md
// "Commands"): its options, the parser of its command line, the help text, the run function over
// run_fill (engine/commands/fill.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/fill.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

namespace terrazo {

// Checks the files (UsageError), then run_fill in a run context of the common flags.
TERRAZO_COMMAND(fill, Fill, FillOptions, fill, FillResult, false);

}  // namespace terrazo
