// engine/commands/flowacc_command.h: `terrazo flowacc` as a library entry point (docs/architecture.md
// "Commands"): its options, the parser of its command line, the help text, the run function over
// run_flowacc (engine/commands/flowacc.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/flowacc.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

namespace terrazo {

// Checks the files (UsageError), then run_flowacc in a run context of the common flags.
TERRAZO_COMMAND(flowacc, Flowacc, FlowAccOptions, flowacc, FlowAccResult, false);

}  // namespace terrazo
