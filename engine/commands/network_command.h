// engine/commands/network_command.h: `terrazo network` as a library entry point (docs/architecture.md
// "Commands"): options, the parser (the same for the CLI and the tests), the help text, the run
// function over run_network (engine/commands/network.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/network.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

TERRAZO_COMMAND(network, Network, NetworkOptions, network, NetworkResult, false);

}  // namespace terrazo
