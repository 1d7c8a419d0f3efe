// tools/cli/terrazo_main.cpp: the terrazo program: dispatches `terrazo <command> ...` to the
// commands of the command table (engine/commands/command_table.h) and turns their failures into one
// line and an exit code.
//
//   terrazo --help             the commands with their summaries (exit 0)
//   terrazo --version          version and build features (exit 0)
//   terrazo <command> --help   the command's usage, with an example (exit 0)
//   terrazo <command> ARGS     runs it; exit codes:
//     0  success
//     1  runtime error (terrazo::Error: missing or corrupt input, I/O failure, budget too small),
//        also an interrupted run (Ctrl-C / SIGTERM: terrazo::Cancelled; no output is published)
//     2  usage error (terrazo::UsageError: unknown flag, bad value, missing argument), ONE line on
//        stderr: "terrazo <command>: error: <message> (usage: terrazo <command> --help)"
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "engine/run/communicator.h"
#include "kernels/common/error.h"
#include "tools/cli/cli_progress.h"
#include "tools/cli/command.h"

#ifndef TERRAZO_VERSION
#define TERRAZO_VERSION "unknown"
#endif

namespace terrazo {

namespace {

void print_overview(std::FILE* out) {
  std::fprintf(out,
               "terrazo: out-of-core minimum spanning trees and cost distance on terrain rasters larger than RAM\n"
               "\n"
               "Usage: terrazo <command> [options] INPUT [OUTPUT]\n"
               "       terrazo <command> --help\n"
               "       terrazo --version\n"
               "\n"
               "Commands:\n");
  int width = 10;
  for (const auto& command : command_table()) width = std::max(width, static_cast<int>(std::string(command.name).size()));
  for (const auto& command : command_table()) std::fprintf(out, "  %-*s  %s\n", width, command.name, command.summary);
  std::fprintf(out,
               "\n"
               "Inputs are any GDAL raster (GeoTIFF, .hgt, .bil, .asc, .asc.gz) or a terrazo tile store (.tzs).\n"
               "Every command takes --memory SIZE, --json and -q; its --help lists the rest. Exit codes: 0 ok,\n"
               "1 runtime error or interrupted, 2 usage error.\n");
}

void print_version() {
  std::printf("terrazo %s\n", TERRAZO_VERSION);
#ifdef TERRAZO_WITH_CUDA
  std::printf("CUDA solvers: built in\n");
#else
  std::printf("CUDA solvers: not built (CPU only)\n");
#endif
  std::printf("MPI: %s\n", built_with_mpi() ? "built in (mpirun -np N terrazo ...; docs/distributed.md)"
                                              : "not built (one process)");
}

bool wants_help(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--") return false;
    if (arg == "-h" || arg == "--help") return true;
  }
  return false;
}

// Closest command name by edit distance, for "did you mean".
std::string suggestion(const std::string& name) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    return row[b.size()];
  };
  std::string best;
  std::size_t best_distance = 3;  // only close matches
  for (const auto& command : command_table()) {
    const std::size_t d = distance(name, command.name);
    if (d < best_distance) {
      best_distance = d;
      best = command.name;
    }
  }
  return best;
}

// Runs the command; its failure as one line on stderr and an exit code. In a distributed run
// (docs/distributed.md "Faults") a failure every rank agreed on is said once, by rank 0, naming the
// failing rank; any other failure is said by its own rank ("terrazo clump: rank 2 of 4: error: ...").
int run_command(const CommandSpec& command, const std::vector<std::string>& args) {
  Communicator& comm = world();
  std::string prefix = std::string("terrazo ") + command.name;
  if (comm.distributed()) prefix += ": rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size());
  auto say = [&comm](const char* format, auto... values) {
    if (comm.failed_together() && !comm.root()) return;
    std::fprintf(stderr, format, values...);
  };
  try {
    return run_command_line(command, args);
  } catch (const Cancelled&) {
    // Under mpirun, SIGTERM is also how mpirun ends the other ranks when one fails or is killed.
    say(comm.distributed() ? "%s: stopped (interrupted, or mpirun ended the job); no output was written\n"
                           : "%s: interrupted; no output was written\n",
        prefix.c_str());
    return 1;
  } catch (const UsageError& e) {
    // One line: the message, then where the usage is.
    say("%s: error: %s (usage: terrazo %s --help)\n", prefix.c_str(), e.what(), command.name);
    return 2;
  } catch (const Error& e) {
    say("%s: error: %s\n", prefix.c_str(), e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    say("%s: error: out of memory; lower --memory to what this machine has free\n", prefix.c_str());
    return 1;
  } catch (const std::exception& e) {
    say("%s: internal error: %s\n", prefix.c_str(), e.what());
    return 1;
  }
}

}  // namespace
}  // namespace terrazo

int main(int argc, char** argv) {
  using namespace terrazo;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_overview(stderr);
    return 2;
  }
  const std::string& name = args[0];
  if (name == "-h" || name == "--help" || name == "help") {
    if (name == "help" && args.size() > 1) {
      if (const CommandSpec* command = find_command(args[1])) {
        std::printf("%s", command->usage());
        return 0;
      }
    }
    print_overview(stdout);
    return 0;
  }
  if (name == "--version" || name == "-V") {
    print_version();
    return 0;
  }
  const CommandSpec* command = find_command(name);
  if (!command) {
    const std::string close = suggestion(name);
    const std::string hint = close.empty() ? "" : "; did you mean '" + close + "'?";
    std::fprintf(stderr, "terrazo: error: unknown command '%s'%s (commands: terrazo --help)\n", name.c_str(),
                 hint.c_str());
    return 2;
  }
  std::vector<std::string> command_args(args.begin() + 1, args.end());
  if (wants_help(command_args)) {
    std::printf("%s", command->usage());
    return 0;
  }
  install_interrupt_handler();
  // Under mpirun: MPI's ranks (engine/run/communicator.h); their waits end on SIGINT/SIGTERM too.
  init_world(&argc, &argv);
  world().set_interrupt_check(interrupt_requested);
  return finish_world(run_command(*command, command_args));
}
