// engine/commands/flag_table.h: every flag of every command, declared once (docs/architecture.md
// "Commands from one table").
//
// A flag is one FlagSpec: its name (and a second spelling), the type of its value, the default, one
// help text, whether it repeats, and its Python keyword. The flags several commands share (--memory,
// --device, --threads, --tile, --tmpdir, --json, -q, --band, --co, --input-mode, --connectivity) are
// declared once here (flag_table.cpp) with one wording; a command takes one with an optional note
// (what the flag drives in that command) and its own default. The flags of one command are declared in
// command_flags.cpp, all commands in one place. From these declarations come:
//   - the Options sections of `terrazo <command> --help` (usage_with_flags),
//   - the parser's check: ArgParser refuses to read a flag its command does not declare, and
//     parse_common_options reads only the common flags the command declares (command_line.h),
//   - the Python keywords of terrazo._commands and the common QGIS parameters (through
//     terrazo._native.flags, tools/python/native/module.cpp).
#pragma once
#include <string>
#include <vector>

namespace terrazo {

enum class FlagType {
  Switch,   // --json: present or not, takes no value
  Size,     // --memory 512M: bytes, with K, M, G, T suffixes
  Integer,  // --threads 4
  Number,   // --max-cost 5e6: a finite double
  Text,     // --crs EPSG:4326
  Choice,   // --device auto|cpu|cuda: one of the words of value_name
  Path,     // --backlink back.tif: a file or directory name
  Point,    // --source 10,20: x,y (cells, or map coordinates with --map-coords)
};
const char* to_string(FlagType type);  // "switch", "size", ...

// The parts of `text` between its `separator`s, in order (one part when there is none; empty parts kept).
std::vector<std::string> split_text(const std::string& text, char separator);

struct FlagSpec {
  std::string name;          // "--memory"
  std::string alias;         // a second spelling ("-q" of --quiet), or ""
  FlagType type = FlagType::Switch;
  std::string value_name;    // "SIZE", "auto|cpu|cuda"; "" for a switch
  std::string default_text;  // "1G"; "" when there is none or the help states it in words
  std::string help;          // lines separated by '\n'; a line's leading spaces indent it further
  bool repeatable = false;   // --source x,y --source x,y: every value counts
  std::string keyword;       // the Python keyword when not the name's ("sources" for --source)

  std::vector<std::string> choices() const;  // the words of value_name for a Choice, else none
};

// One flag as one command takes it: where its usage line goes ("Options", "Sources", ...) and the
// declaration (for a shared flag: the common one, with the command's note appended to the help and
// its own default).
struct CommandFlag {
  std::string section;
  FlagSpec spec;
};

// The flags of `command` ("sssp", "od-matrix", ...), in usage order; nullptr for a name the table does
// not know (an ad-hoc ArgParser, e.g. in the tests, then reads any flag).
const std::vector<CommandFlag>* command_flags(const std::string& command);

// The declaration `command` has for `name` (or its alias), or nullptr.
const FlagSpec* find_flag(const std::string& command, const std::string& name);

// `usage_template` with each line "{flags SECTION}" replaced by the usage lines of the command's flags
// of that section: the synopsis (name and value) in a column, the help beside it, "(default X)" last.
std::string usage_with_flags(const std::string& command, const std::string& usage_template);

// A flag taking one value (a switch: FlagType::Switch and value_name ""), not repeatable, its keyword the name's.
FlagSpec make_flag(const char* name, FlagType type, const char* value_name, const char* default_text, const char* help);

// usage_with_flags(command, usage_template), made once per command: the text of `terrazo <command> --help`.
const char* usage_text(const std::string& command, const char* usage_template);

// The shared declarations (flag_table.cpp), for command_flags.cpp: the common flag `name` with
// `note` appended to its help ("; note") and `default_text` when not null.
FlagSpec shared_flag(const std::string& name, const std::string& note = "", const char* default_text = nullptr);

}  // namespace terrazo
