// tools/cli/command.h: how a subcommand plugs into the terrazo program.
//
// Each tools/cli/cmd_<name>.cpp defines one subcommand as a thin main over engine/commands/<name>_command.h and
// registers it with a file-scope `static const RegisterCommand`, so adding a subcommand touches no
// other file. terrazo_main.cpp dispatches `terrazo <name> ...` and builds the overall --help.
// A run function parses with parse_<name>_options, runs run_<name>_command with the CLI's progress
// and prints the result (print_command_result); it throws UsageError (exit 2) or Error (exit 1),
// printed by the main.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"

namespace terrazo {

struct Command {
  const char* name;     // "mst"
  const char* summary;  // one line for `terrazo --help`
  const char* usage;    // full text for `terrazo mst --help`: synopsis, flags, an example
  int (*run)(const std::vector<std::string>& args);  // args after the subcommand name
};

std::vector<Command>& command_registry();

struct RegisterCommand {
  explicit RegisterCommand(const Command& command) { command_registry().push_back(command); }
};

// Prints a command result: its text (summary() on stderr for the long runs, on stdout for the raster
// commands, unless -q, or --json for the stdout ones; Result::kQuietKeepsText: -q hides nothing but
// progress), then the --json line last on stdout.
template <class Result>
void print_command_result(const Result& result, const CommonOptions& common) {
  const bool hidden = (common.quiet && !Result::kQuietKeepsText) || (Result::kTextOnStdout && common.json);
  if (!hidden) {
    std::FILE* out = Result::kTextOnStdout ? stdout : stderr;
    std::fprintf(out, "%s\n", result.summary().c_str());
    std::fflush(out);
  }
  if (common.json) {
    std::printf("%s\n", result.to_json().c_str());
    std::fflush(stdout);
  }
}

}  // namespace terrazo
