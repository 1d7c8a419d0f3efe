// tools/cli/cmd_mst.cpp: `terrazo mst`, a thin main over run_mst_command (engine/commands/mst_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/mst_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const MstCommandOptions options = parse_mst_options(args);
  CliProgress progress(options.common.quiet);
  const MstCommandResult result = run_mst_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"mst", "minimum spanning tree (forest) of a raster's grid graph, out of core", mst_usage(), run});

}  // namespace
}  // namespace terrazo
