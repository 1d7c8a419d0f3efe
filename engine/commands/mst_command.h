// engine/commands/mst_command.h: `terrazo mst` as a library entry point (GDAL-utility style: docs/architecture.md
// "Commands"): an options struct, the parser of the command line (the same for the CLI and the tests),
// the help text, the run function over run_mst (engine/commands/mst.h) with the progress callback, and a result
// that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/mst.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

// Checks the files (UsageError), then run_mst under a budget of --memory.
TERRAZO_COMMAND(mst, Mst, MstOptions, mst, MstResult, false);

}  // namespace terrazo
