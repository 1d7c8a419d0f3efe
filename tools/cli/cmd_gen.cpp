// tools/cli/cmd_gen.cpp: `terrazo gen`, a thin main over run_gen_command (engine/commands/gen_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/gen_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const GenCommandOptions options = parse_gen_options(args);
  CliProgress progress(options.common.quiet);
  const GenCommandResult result = run_gen_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"gen", "make deterministic fractal terrain of any size (tile store or GeoTIFF)", gen_usage(), run});

}  // namespace
}  // namespace terrazo
