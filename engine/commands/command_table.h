// engine/commands/command_table.h: every command of terrazo in one table, for the terrazo program
// (tools/cli), the Python module (tools/python/native) and the tests (docs/architecture.md
// "Commands from one table").
//
// A command is its name, a one-line summary, its usage text, its flags (flag_table.h) and a
// type-erased parse + run over its library entry points (parse_<name>_options, run_<name>_command):
// parse() reads no file (UsageError on a bad command line), run() does the work and returns the
// result's text and --json line, whatever the command's Result type.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "kernels/common/progress.h"

namespace terrazo {

// What a run printed: Result::summary(), Result::to_json() and where the text goes.
struct CommandOutput {
  std::string text;
  std::string json;
  bool text_on_stdout = false;    // Result::kTextOnStdout: the text is the result (import, export, info)
  bool quiet_keeps_text = false;  // Result::kQuietKeepsText: -q hides only the progress
};

// A command line parsed by its command, ready to run.
class ParsedCommand {
 public:
  virtual ~ParsedCommand() = default;
  virtual const CommonOptions& common() const = 0;
  virtual CommandOutput run(Progress& progress) const = 0;
};

struct CommandSpec {
  const char* name;        // "sssp"
  const char* summary;     // one line for `terrazo --help`
  const char* flag_table;  // its flags' name in the flag table ("sssp" for the alias cost-distance)
  bool alias;              // another name of a command (the program takes it; Python lists only the first)
  const char* (*usage)();  // `terrazo <name> --help`
  // Parses the arguments after the command name; throws UsageError naming the flag and the value.
  std::unique_ptr<ParsedCommand> (*parse)(const std::vector<std::string>& args);
};

const std::vector<CommandSpec>& command_table();              // in name order, aliases included
const CommandSpec* find_command(const std::string& name);    // nullptr when there is none

}  // namespace terrazo
