// tools/cli/cmd_clump.cpp: `terrazo clump`, a thin main over run_clump_command (engine/commands/clump_command.h).
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/clump_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const ClumpCommandOptions options = parse_clump_options(args);
  CliProgress progress(options.common.quiet);
  const ClumpCommandResult result = run_clump_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(
    Command{"clump", "connected regions (equal values, valid cells or a value range), out of core", clump_usage(), run});

}  // namespace
}  // namespace terrazo
