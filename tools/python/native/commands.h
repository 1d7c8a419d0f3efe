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
std::vector<std::string> command_names();

}  // namespace terrazo::python
