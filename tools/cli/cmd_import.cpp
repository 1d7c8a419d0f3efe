// tools/cli/cmd_import.cpp: `terrazo import`, a thin main over run_import_command (engine/commands/import_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/import_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const ImportCommandOptions options = parse_import_options(args);
  CliProgress progress(options.common.quiet);
  const ImportCommandResult result = run_import_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"import", "convert a GDAL raster into a Z-order tile store (.tzs)", import_usage(), run});

}  // namespace
}  // namespace terrazo
