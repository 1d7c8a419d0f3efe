// tools/cli/cmd_info.cpp: `terrazo info`, a thin main over run_info_command (engine/commands/info_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/info_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const InfoCommandOptions options = parse_info_options(args);
  CliProgress progress(options.common.quiet);
  const InfoCommandResult result = run_info_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"info", "describe a raster or tile store (size, type, nodata, min/max, CRS)", info_usage(), run});

}  // namespace
}  // namespace terrazo
