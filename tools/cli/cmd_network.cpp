// tools/cli/cmd_network.cpp: `terrazo network`, a thin main over run_network_command (engine/commands/network_command.h).
#include <string>
#include <vector>

#include "engine/commands/network_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const NetworkCommandOptions options = parse_network_options(args);
  CliProgress progress(options.common.quiet);
  const NetworkCommandResult result = run_network_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(
    Command{"network", "least-cost network of K sites: the MST of their cost matrix, traced as paths", network_usage(), run});

}  // namespace
}  // namespace terrazo
