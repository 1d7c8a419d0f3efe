// tools/cli/cmd_index.cpp: `terrazo index`, a thin main over run_index_command (engine/commands/index_command.h).
#include <string>
#include <vector>

#include "engine/commands/index_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const IndexCommandOptions options = parse_index_options(args);
  CliProgress progress(options.common.quiet);
  const IndexCommandResult result = run_index_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(
    Command{"index", "the boundary-graph index (G') of a terrain, for fast many-site queries", index_usage(), run});

}  // namespace
}  // namespace terrazo
