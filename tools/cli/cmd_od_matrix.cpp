// tools/cli/cmd_od_matrix.cpp: `terrazo od-matrix`, a thin main over run_od_matrix_command (engine/commands/od_matrix_command.h).
#include <string>
#include <vector>

#include "engine/commands/od_matrix_command.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

namespace terrazo {
namespace {

int run(const std::vector<std::string>& args) {
  const OdMatrixCommandOptions options = parse_od_matrix_options(args);
  CliProgress progress(options.common.quiet);
  const OdMatrixCommandResult result = run_od_matrix_command(options, progress.progress());
  progress.finish();
  print_command_result(result, options.common);
  return 0;
}

const RegisterCommand kRegister(
    Command{"od-matrix", "exact cost-distance matrix between K sites (with or without an index)", od_matrix_usage(), run});

}  // namespace
}  // namespace terrazo
