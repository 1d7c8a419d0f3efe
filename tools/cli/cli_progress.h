// tools/cli/cli_progress.h: the terrazo program's Progress sink and Ctrl-C handling.
//
// Use it in every subcommand that runs long:
//
//   const CommonOptions common = parse_common_options(args);
//   CliProgress progress(common.quiet);
//   const auto result = run_sssp(options, progress.progress());   // engine call
//   progress.finish();                                             // before printing results
//
// What it shows on stderr:
//  - stderr is a terminal: one redrawn line per phase, "phase [#####     ]  45.2%  12.3 Mcells/s  ETA 0:42",
//    redrawn at most 10 times a second, left on screen when the phase changes;
//  - otherwise (logs, CI): a plain line at most every 5 seconds and one when a phase ends;
//  - quiet (-q): nothing.
// Cancellation: the terrazo main installs a SIGINT/SIGTERM handler that only sets a flag; the sink
// returns false at its next update, Progress::update throws Cancelled, RAII removes partial
// outputs and the main reports the interruption. A second Ctrl-C kills the process at once.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include "kernels/common/progress.h"

namespace terrazo {

// Makes SIGINT and SIGTERM set the interrupt flag (once, from main).
void install_interrupt_handler();
// True once SIGINT or SIGTERM arrived.
bool interrupt_requested();

class CliProgress {
 public:
  explicit CliProgress(bool quiet);
  ~CliProgress();
  CliProgress(const CliProgress&) = delete;
  CliProgress& operator=(const CliProgress&) = delete;

  // The sink to hand to engine calls; it cancels the run after Ctrl-C, also when quiet.
  Progress& progress() { return progress_; }
  // Prints a line of its own on stderr (not when quiet), below any bar.
  void note(const std::string& line);
  // Ends an open bar line; call before printing results.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool on_event(const ProgressEvent& event);
  void draw_bar(const ProgressEvent& event, double elapsed);
  void print_line(const ProgressEvent& event, double elapsed, bool phase_end);

  bool quiet_;
  bool terminal_;
  std::mutex mutex_;
  std::string phase_;
  Clock::time_point phase_start_{};
  Clock::time_point last_output_{};
  bool printed_in_phase_ = false;
  bool phase_ended_ = false;
  bool bar_open_ = false;
  Progress progress_;
};

}  // namespace terrazo
