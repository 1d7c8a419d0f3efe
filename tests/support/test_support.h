// tests/support/test_support.h: helpers shared by the test suites.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/run/run_context.h"
#include "io/store/run_directory.h"

namespace terrazo::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when destroyed: the
// engine's own scratch-directory class, so tests exercise the same clean-up the runs rely on.
using TempDir = RunDirectory;

// The partial files of output `path` that exist now (io/store/atomic_output.h names them
// `path.partial-<pid>-<hex>`), sidecars such as `.aux.xml` included.
std::vector<std::string> partial_files_of(const std::string& path);

// The names in `dir`, its own lock file (RunDirectory::kOwnerFile) aside.
std::vector<std::string> entries_of(const TempDir& dir);

// True in a build under AddressSanitizer (-DTERRAZO_SANITIZE=ON): its shadow memory and quarantine
// are in every VmHWM, so the tests of the budget promise (VmHWM <= --memory + 64 MiB) check the run
// but not VmHWM there.
constexpr bool kSanitizedBuild =
#if defined(__SANITIZE_ADDRESS__)
    true;
#else
    false;
#endif

// What a run of a program left: its exit status (-1 when it did not exit), stdout and stderr.
struct CliRun {
  int code = -1;
  std::string out, err;
};

// Runs `program arguments` through the shell (arguments are one shell-quoted string), its stdout
// and stderr captured in files of `dir`.
CliRun run_program(const std::string& program, const std::string& arguments, const TempDir& dir);

// Runs `argv[0]` with the arguments argv[1..] as they are (no shell), stdout and stderr captured in
// files of a directory of its own; code is the exit status, or 128 + the signal that ended it.
CliRun run_argv(const std::vector<std::string>& argv);

// A file's bytes ("" when it cannot be read).
std::string slurp(const std::string& path);

// Writes `bytes` as the whole of `path` (slurp's counterpart).
void spit(const std::string& path, const std::string& bytes);

// A child process that makes what `make` makes and never cleans it up (the child waits to be
// killed), and the path `make` returns, read back over a pipe: a run killed while it holds a file.
struct HoldingChild {
  pid_t pid = -1;
  std::string path;
};
HoldingChild fork_holding(const std::function<std::string()>& make);

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A tile store's cells, whole, row-major (NaN = nodata), read tile by tile through TileStore.
std::vector<double> read_store_cells(const std::string& path);

// Bit for bit, but any NaN equals any NaN.
bool same_cells(const std::vector<double>& a, const std::vector<double>& b);

#ifdef TERRAZO_BINARY
// Runs the terrazo program built with the tests (TERRAZO_BINARY, set by CMake on each test target).
inline CliRun run_cli(const std::string& arguments, const TempDir& dir) {
  return run_program(TERRAZO_BINARY, arguments, dir);
}

// The same with the arguments one by one (no shell quoting): run_argv of TERRAZO_BINARY and `args`.
inline CliRun run_terrazo(const std::vector<std::string>& args) {
  std::vector<std::string> argv{TERRAZO_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_argv(argv);
}
#endif

// A library entry point run as a command runs it: `run(options, context)` in a run context of
// `settings` (the common flags), sharing the test's `budget`, reporting to `progress`.
template <class Run, class Options>
auto run_with(Run run, const Options& options, const RunSettings& settings, MemoryBudget& budget,
              Progress& progress = Progress::silent()) {
  RunContext context(settings, budget, progress);
  return run(options, context);
}

}  // namespace terrazo::testing
