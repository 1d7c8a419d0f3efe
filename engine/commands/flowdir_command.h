// engine/commands/flowdir_command.h: `terrazo flowdir` as a library entry point (docs/architecture.md
// "Commands"): its options, the parser of its command line, the help text, the run function over
// run_flowdir (engine/commands/flowdir.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/flowdir.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

namespace terrazo {

// Checks the files (UsageError), then run_flowdir in a run context of the common flags.
TERRAZO_COMMAND(flowdir, Flowdir, FlowdirOptions, flowdir, FlowdirResult, false);

}  // namespace terrazo
