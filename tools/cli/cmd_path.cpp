// tools/cli/cmd_path.cpp: `terrazo path`, a thin main over run_path_command (engine/commands/path_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/path_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const PathCommandOptions options = parse_path_options(args);
  CliProgress progress(options.common.quiet);
  const PathCommandResult result = run_path_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"path", "least-cost paths from a backlink raster to GeoJSON", path_usage(), run});

}  // namespace
}  // namespace terrazo
