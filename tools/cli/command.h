// tools/cli/command.h: how the terrazo program runs a command of the command table
// (engine/commands/command_table.h): parse, run with the CLI's progress, print the result.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_table.h"

namespace terrazo {

// Prints a command result: its text (on stderr for the long runs, on stdout for the commands whose
// text is the result, unless -q, or --json for the stdout ones; CommandOutput::quiet_keeps_text: -q
// hides nothing but progress), then the --json line last on stdout.
void print_command_result(const CommandOutput& output, const CommonOptions& common);

// Parses `args` (after the command name), runs the command with a progress bar (lines off a
// terminal, nothing with -q) and prints the result; returns the exit code 0. Throws UsageError
// (exit 2), Error (exit 1) or Cancelled, which the main turns into one line.
int run_command_line(const CommandSpec& command, const std::vector<std::string>& args);

}  // namespace terrazo
