// tools/cli/cli_progress.cpp: the stderr progress display of tools/cli/cli_progress.h.
#include "tools/cli/cli_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cmath>

namespace terrazo {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void handle_interrupt(int) { g_interrupted = 1; }

constexpr double kBarInterval = 0.1;   // seconds between redraws of a terminal bar
constexpr double kLineInterval = 5.0;  // seconds between plain progress lines

// "12.3 Mcells/s"
std::string format_rate(double cells_per_second) {
  const char* units[] = {"", "k", "M", "G", "T"};
  int unit = 0;
  while (cells_per_second >= 1000.0 && unit < 4) {
    cells_per_second /= 1000.0;
    ++unit;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.1f %scells/s", cells_per_second, units[unit]);
  return buffer;
}

// "0:42", "1:02:03"
std::string format_duration(double seconds) {
  const auto total = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  char buffer[48];
  if (total >= 3600)
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", total / 3600, (total / 60) % 60, total % 60);
  else
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld", total / 60, total % 60);
  return buffer;
}

int terminal_width() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) return size.ws_col;
  return 80;
}

// "45.2%  12.3 Mcells/s  ETA 0:42" (separator between parts; pad: fixed-width percentage for the bar)
std::string describe(const ProgressEvent& event, double elapsed, const char* separator, bool phase_end, bool pad) {
  std::string text;
  char buffer[64];
  if (event.total) {
    std::snprintf(buffer, sizeof buffer, pad ? "%5.1f%%" : "%.1f%%", 100.0 * event.fraction());
    text += buffer;
  } else {
    text += std::to_string(event.done) + " done";
  }
  if (event.cells && elapsed > 0) text += separator + format_rate(static_cast<double>(event.cells) / elapsed);
  if (phase_end) {
    text += std::string(separator) + "took " + format_duration(elapsed);
  } else if (event.total && event.done > 0 && event.done < event.total) {
    const double fraction = event.fraction();
    text += std::string(separator) + "ETA " + format_duration(elapsed * (1.0 - fraction) / fraction);
  }
  return text;
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = handle_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second signal gets the default action: the process ends at once
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() { return g_interrupted != 0; }

CliProgress::CliProgress(bool quiet)
    : quiet_(quiet),
      terminal_(isatty(STDERR_FILENO) != 0),
      progress_([this](const ProgressEvent& event) { return on_event(event); }) {}

CliProgress::~CliProgress() { finish(); }

void CliProgress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bar_open_) {
    std::fputc('\n', stderr);
    std::fflush(stderr);
    bar_open_ = false;
  }
}

void CliProgress::note(const std::string& line) {
  if (quiet_) return;
  finish();
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

bool CliProgress::on_event(const ProgressEvent& event) {
  if (interrupt_requested()) return false;
  if (quiet_) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = Clock::now();
  if (event.phase != phase_) {
    if (bar_open_) {
      std::fputc('\n', stderr);
      bar_open_ = false;
    }
    phase_ = event.phase;
    phase_start_ = now;
    printed_in_phase_ = false;
    phase_ended_ = false;
  }
  const double elapsed = std::chrono::duration<double>(now - phase_start_).count();
  const double since_output = std::chrono::duration<double>(now - last_output_).count();
  const bool phase_end = event.total > 0 && event.done >= event.total;
  if (terminal_) {
    if (!printed_in_phase_ || phase_end || since_output >= kBarInterval) {
      draw_bar(event, elapsed);
      last_output_ = now;
      printed_in_phase_ = true;
    }
  } else if (phase_end ? !phase_ended_ : (printed_in_phase_ ? since_output >= kLineInterval : elapsed >= kLineInterval)) {
    print_line(event, elapsed, phase_end);
    last_output_ = now;
    printed_in_phase_ = true;
  }
  if (phase_end) phase_ended_ = true;
  return true;
}

void CliProgress::draw_bar(const ProgressEvent& event, double elapsed) {
  const bool phase_end = event.total > 0 && event.done >= event.total;
  const std::string label = event.phase;
  const std::string tail = describe(event, elapsed, "  ", phase_end, true);
  const int width = terminal_width();
  // label, space, [bar], two spaces, tail; the bar takes what is left, at least 10 columns, with
  // room kept for the longest usual tail so the bar does not change width while it fills.
  const int tail_room = std::max(static_cast<int>(tail.size()), 40);
  const int bar_width = std::max(10, width - 1 - static_cast<int>(label.size()) - 1 - 2 - 2 - tail_room);
  const int filled = event.total ? static_cast<int>(std::lround(event.fraction() * bar_width)) : 0;
  std::string bar(static_cast<std::size_t>(std::clamp(filled, 0, bar_width)), '#');
  bar.resize(static_cast<std::size_t>(bar_width), ' ');
  std::fprintf(stderr, "\r\033[K%s [%s]  %s", label.c_str(), bar.c_str(), tail.c_str());
  std::fflush(stderr);
  bar_open_ = true;
}

void CliProgress::print_line(const ProgressEvent& event, double elapsed, bool phase_end) {
  std::string counts;
  if (event.total) counts = " (" + std::to_string(event.done) + "/" + std::to_string(event.total) + ")";
  std::fprintf(stderr, "%s: %s%s\n", event.phase.c_str(), describe(event, elapsed, ", ", phase_end, false).c_str(),
               counts.c_str());
  std::fflush(stderr);
}

}  // namespace terrazo
