// kernels/common/error.h: the two kinds of failure terrazo reports.
//
// UsageError: the user asked for something impossible (bad flag, bad value, out-of-range source);
//   the CLI prints one line and exits 2.
// Error: the run failed (corrupt file, budget too small, I/O error, nodata everywhere); exit 1.
// Cancelled: the progress callback asked to stop; exit 1, outputs are not published.
// Two kinds of Error say more, for callers that sort failures (the Python package raises OSError and
// MemoryError for them, docs/python.md "Errors"); the CLI treats them as any Error (exit 1):
// IoError: a file could not be opened, read, written, created, renamed or removed (the path and the
//   system's reason are in the message).
// BudgetError: --memory is too small for a structure the run needs (the message says how much).
// Messages say what is wrong and what to do, in one line, naming the flag or file; format_value
// writes the numbers they quote (10 significant digits, %.10g).
#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>

namespace terrazo {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(message) {}
};

class IoError : public Error {
 public:
  explicit IoError(const std::string& message) : Error(message) {}
};

class BudgetError : public Error {
 public:
  explicit BudgetError(const std::string& message) : Error(message) {}
};

class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled") {}
};

inline std::string format_value(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", v);
  return buffer;
}

}  // namespace terrazo
