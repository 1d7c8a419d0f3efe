// tools/cli/cmd_sssp.cpp: `terrazo sssp`, a thin main over run_sssp_command (engine/commands/sssp_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/sssp_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const SsspCommandOptions options = parse_sssp_options(args);
  CliProgress progress(options.common.quiet);
  const SsspCommandResult result = run_sssp_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"sssp", "cost distance (exact multi-source shortest paths) with backlinks and allocation, out of core", sssp_usage(), run});
const RegisterCommand kRegisterAlias(Command{"cost-distance", "the same as sssp", sssp_usage(), run});
}  // namespace
}  // namespace terrazo
