// tools/cli/cmd_render.cpp: `terrazo render`, a thin main over run_render_command (engine/commands/render_command.h): parse, run, print.
#include <string>
#include <vector>

#include "engine/commands/render_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const RenderCommandOptions options = parse_render_options(args);
  CliProgress progress(options.common.quiet);
  const RenderCommandResult result = run_render_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(Command{"render", "draw a quick-look PNG of a DEM, cost surface, backlinks, labels or MST edges",
                                        render_usage(), run});

}  // namespace
}  // namespace terrazo
