// tools/cli/cmd_export.cpp: `terrazo export`, a thin main over run_export_command (engine/commands/export_command.h): parse, run, print.
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/export_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const ExportCommandOptions options = parse_export_options(args);
  CliProgress progress(options.common.quiet);
  const ExportCommandResult result = run_export_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"export", "write a tile store (or any raster) as a tiled, compressed GeoTIFF", export_usage(), run});

}  // namespace
}  // namespace terrazo
