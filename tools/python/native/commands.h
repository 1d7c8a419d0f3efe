// tools/python/native/commands.h: terrazo's commands as Python callables (commands.cpp has the contract).
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace terrazo::python {

// Parses `args` (the command line after the command name) with the command's parser, runs it with
// the GIL released and returns its --json summary line. Raises ValueError, OSError, MemoryError,
// RuntimeError, or the exception that cancelled the run (commands.cpp).
std::string run_command(const std::string& command, const std::vector<std::string>& args, pybind11::object progress);
std::string command_usage(const std::string& command);  // the --help text
std::vector<std::string> command_names();              // the table's commands, aliases left out
// The command's flags, in usage order, as dicts: name, alias, type ("switch", "size", "integer",
// "number", "text", "choice", "path", "point"), value_name, choices, default, help, repeatable,
// keyword (the Python keyword of a repeatable flag when not the name's, e.g. "sources").
pybind11::list command_flag_list(const std::string& command);
pybind11::dict shared_flag_dict(const std::string& name);  // a shared flag ("--memory") as above

}  // namespace terrazo::python
