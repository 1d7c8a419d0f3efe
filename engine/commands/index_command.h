// engine/commands/index_command.h: `terrazo index` as a library entry point (docs/architecture.md "Commands"):
// options, the parser (the same for the CLI and the tests), the help text, the run function over
// run_index (engine/commands/index.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/index.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

TERRAZO_COMMAND(index, Index, IndexOptions, index, IndexResult, false);

}  // namespace terrazo
