// tools/cli/command.cpp: run_command_line and print_command_result (tools/cli/command.h).
#include "tools/cli/command.h"

#include <cstdio>
#include <exception>

#include "engine/run/communicator.h"

#include "tools/cli/cli_progress.h"

namespace terrazo {

void print_command_result(const CommandOutput& output, const CommonOptions& common) {
  const bool hidden = (common.quiet && !output.quiet_keeps_text) || (output.text_on_stdout && common.json);
  if (!hidden) {
    std::FILE* out = output.text_on_stdout ? stdout : stderr;
    std::fprintf(out, "%s\n", output.text.c_str());
    std::fflush(out);
  }
  if (common.json) {
    std::printf("%s\n", output.json.c_str());
    std::fflush(stdout);
  }
}

// In a distributed run every rank parses the same arguments and runs the command; a parse error is
// agreed before any work (every rank refuses alike), and only rank 0 shows progress and the result.
int run_command_line(const CommandSpec& command, const std::vector<std::string>& args) {
  Communicator& comm = world();
  std::unique_ptr<ParsedCommand> parsed;
  std::exception_ptr error;
  try {
    parsed = command.parse(args);
  } catch (...) {
    error = std::current_exception();
  }
  comm.agree(error, "reading the command line");
  CliProgress progress(parsed->common().quiet || !comm.root());
  const CommandOutput output = parsed->run(progress.progress());
  progress.finish();
  if (comm.root()) print_command_result(output, parsed->common());
  return 0;
}

}  // namespace terrazo
