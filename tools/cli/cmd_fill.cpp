// tools/cli/cmd_fill.cpp: `terrazo fill`, a thin main over run_fill_command (engine/commands/fill_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/fill_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const FillCommandOptions options = parse_fill_options(args);
  CliProgress progress(options.common.quiet);
  const FillCommandResult result = run_fill_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"fill", "fill the depressions of an elevation raster, exactly, out of core", fill_usage(), run});

}  // namespace
}  // namespace terrazo
