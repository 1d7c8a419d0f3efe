// tools/cli/cmd_corridor.cpp: `terrazo corridor`, a thin main over run_corridor_command (engine/commands/corridor_command.h).
#include <string>
#include <vector>

#include "engine/commands/corridor_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const CorridorCommandOptions options = parse_corridor_options(args);
  CliProgress progress(options.common.quiet);
  const CorridorCommandResult result = run_corridor_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"corridor", "least-cost corridor: the sum of two cost surfaces, thresholded",
                                        corridor_usage(), run});

}  // namespace
}  // namespace terrazo
