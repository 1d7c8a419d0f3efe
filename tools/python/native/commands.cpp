// tools/python/native/commands.cpp: terrazo's commands for Python, through their library entry points.
//
// `run(command, args, progress)` takes the command's arguments exactly as the terrazo program does
// (the Python wrapper, terrazo/_commands.py, spells keyword arguments as flags), parses them with
// the command's own parse_<command>_options, runs run_<command>_command without the GIL and returns
// the --json summary (<Command>CommandResult::to_json). One parser and one run function for the CLI
// and Python: same defaults, same validation, same one-line messages.
//
// Failures become Python exceptions with the message the CLI prints after "error: ":
//   UsageError -> ValueError, IoError -> OSError, BudgetError -> MemoryError, other Error ->
//   RuntimeError; a run cancelled from Python (the progress callable raised, or Ctrl-C) raises
//   that exception (KeyboardInterrupt for Ctrl-C); outputs are discarded as in the CLI.
#include "tools/python/native/commands.h"

#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/commands/clump_command.h"
#include "engine/commands/corridor_command.h"
#include "engine/commands/export_command.h"
#include "engine/commands/fill_command.h"
#include "engine/commands/gen_command.h"
#include "engine/commands/import_command.h"
#include "engine/commands/index_command.h"
#include "engine/commands/info_command.h"
#include "engine/commands/mst_command.h"
#include "engine/commands/network_command.h"
#include "engine/commands/od_matrix_command.h"
#include "engine/commands/path_command.h"
#include "engine/commands/render_command.h"
#include "engine/commands/sssp_command.h"
#include "kernels/common/error.h"
#include "tools/python/native/python_progress.h"

namespace py = pybind11;

namespace terrazo::python {
namespace {

using Runner = std::function<std::string(const std::vector<std::string>&, Progress&)>;

// parse (GIL held by the caller: reads no file), then run without the GIL.
template <class Options, class Result>
Runner runner(Options (*parse)(const std::vector<std::string>&), Result (*run)(const Options&, Progress&)) {
  return [parse, run](const std::vector<std::string>& args, Progress& progress) {
    const Options options = parse(args);
    py::gil_scoped_release release;
    return run(options, progress).to_json();
  };
}

struct CommandEntry {
  Runner run;
  const char* (*usage)();
};

const std::map<std::string, CommandEntry>& commands() {
  static const std::map<std::string, CommandEntry> table = {
      {"clump", {runner(parse_clump_options, run_clump_command), clump_usage}},
      {"corridor", {runner(parse_corridor_options, run_corridor_command), corridor_usage}},
      {"export", {runner(parse_export_options, run_export_command), export_usage}},
      {"fill", {runner(parse_fill_options, run_fill_command), fill_usage}},
      {"gen", {runner(parse_gen_options, run_gen_command), gen_usage}},
      {"import", {runner(parse_import_options, run_import_command), import_usage}},
      {"index", {runner(parse_index_options, run_index_command), index_usage}},
      {"info", {runner(parse_info_options, run_info_command), info_usage}},
      {"mst", {runner(parse_mst_options, run_mst_command), mst_usage}},
      {"network", {runner(parse_network_options, run_network_command), network_usage}},
      {"od-matrix", {runner(parse_od_matrix_options, run_od_matrix_command), od_matrix_usage}},
      {"path", {runner(parse_path_options, run_path_command), path_usage}},
      {"render", {runner(parse_render_options, run_render_command), render_usage}},
      {"sssp", {runner(parse_sssp_options, run_sssp_command), sssp_usage}},
  };
  return table;
}

const CommandEntry& find(const std::string& command) {
  const auto& table = commands();
  const auto it = table.find(command);
  if (it == table.end()) throw py::value_error("terrazo has no command '" + command + "'");
  return it->second;
}

[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

}  // namespace

std::string run_command(const std::string& command, const std::vector<std::string>& args, py::object progress) {
  const CommandEntry& entry = find(command);
  PythonProgress bridge(std::move(progress));
  try {
    return entry.run(args, bridge.progress());
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
  for (const auto& [name, entry] : commands()) names.push_back(name);
  return names;
}

}  // namespace terrazo::python
