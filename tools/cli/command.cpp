// tools/cli/command.cpp: run_command_line and print_command_result (tools/cli/command.h).
#include "tools/cli/command.h"

#include <cstdio>

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

int run_command_line(const CommandSpec& command, const std::vector<std::string>& args) {
  const std::unique_ptr<ParsedCommand> parsed = command.parse(args);
  CliProgress progress(parsed->common().quiet);
  const CommandOutput output = parsed->run(progress.progress());
  progress.finish();
  print_command_result(output, parsed->common());
  return 0;
}

}  // namespace terrazo
