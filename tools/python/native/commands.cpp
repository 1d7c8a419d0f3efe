// tools/python/native/commands.cpp: terrazo's commands for Python, through their library entry points.
//
// `run(command, args, progress)` takes the command's arguments exactly as the terrazo program does
// (the Python wrapper, terrazo/_commands.py, spells keyword arguments as flags), parses them with
// the command's own parser from the command table (engine/commands/command_table.h), runs it without
// the GIL and returns the --json summary (<Command>CommandResult::to_json). `flags(command)` gives
// the command's flag declarations (engine/commands/flag_table.h), from which _commands.py spells
// keywords and the QGIS provider makes its common parameters. One parser and one run function for the CLI
// and Python: same defaults, same validation, same one-line messages.
//
// Failures become Python exceptions with the message the CLI prints after "error: ":
//   UsageError -> ValueError, IoError -> OSError, BudgetError -> MemoryError, other Error ->
//   RuntimeError; a run cancelled from Python (the progress callable raised, or Ctrl-C) raises
//   that exception (KeyboardInterrupt for Ctrl-C); outputs are discarded as in the CLI.
#include "tools/python/native/commands.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/commands/command_table.h"
#include "kernels/common/error.h"
#include "tools/python/native/python_progress.h"

namespace py = pybind11;

namespace terrazo::python {
namespace {

// A command of the table that Python runs: not an alias (cost-distance is sssp).
const CommandSpec& find(const std::string& command) {
  const CommandSpec* spec = find_command(command);
  if (!spec || spec->alias) throw py::value_error("terrazo has no command '" + command + "'");
  return *spec;
}

py::dict flag_dict(const FlagSpec& flag) {
  py::dict d;
  d["name"] = flag.name;
  d["alias"] = flag.alias;
  d["type"] = to_string(flag.type);
  d["value_name"] = flag.value_name;
  d["choices"] = flag.choices();
  d["default"] = flag.default_text;
  d["help"] = flag.help;
  d["repeatable"] = flag.repeatable;
  d["keyword"] = flag.keyword;
  return d;
}

[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

}  // namespace

std::string run_command(const std::string& command, const std::vector<std::string>& args, py::object progress) {
  const CommandSpec& spec = find(command);
  PythonProgress bridge(std::move(progress));
  try {
    const std::unique_ptr<ParsedCommand> parsed = spec.parse(args);  // with the GIL: reads no file
    py::gil_scoped_release release;
    return parsed->run(bridge.progress()).json;
  } catch (const Cancelled&) {
    bridge.rethrow_if_failed();
    raise(PyExc_KeyboardInterrupt, "terrazo " + command + ": interrupted; no output was written");
  } catch (const UsageError& e) {
    raise(PyExc_ValueError, e.what());
  } catch (const IoError& e) {
    raise(PyExc_OSError, e.what());
  } catch (const BudgetError& e) {
    raise(PyExc_MemoryError, e.what());
  } catch (const Error& e) {
    raise(PyExc_RuntimeError, e.what());
  }
}

std::string command_usage(const std::string& command) { return find(command).usage(); }

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const CommandSpec& command : command_table())
    if (!command.alias) names.push_back(command.name);
  return names;
}

py::list command_flag_list(const std::string& command) {
  py::list flags;
  for (const CommandFlag& flag : *command_flags(find(command).flag_table)) flags.append(flag_dict(flag.spec));
  return flags;
}

py::dict shared_flag_dict(const std::string& name) { return flag_dict(shared_flag(name)); }

}  // namespace terrazo::python
