// cli/command.h: how a subcommand plugs into the terrazo program.
//
// Each cli/cmd_<name>.cpp defines one subcommand as a thin main over an api/ entry point and
// registers it with a file-scope `static const RegisterCommand`, so adding a subcommand touches no
// other file. terrazo_main.cpp dispatches `terrazo <name> ...` and builds the overall --help.
// A run function parses with api/command_line.h, validates in one place, calls the library and
// returns the exit code; it throws UsageError (exit 2) or Error (exit 1), printed by the main.
#pragma once
#include <string>
#include <vector>

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

}  // namespace terrazo
