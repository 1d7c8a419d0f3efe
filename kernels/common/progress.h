// kernels/common/progress.h: the one progress callback type of terrazo.
//
// A long-running function takes a `Progress&`, calls `update` at 0, after each unit of work
// (tile, level, strip) and at 1 of every phase. The sink returns false to cancel: `update` then
// throws terrazo::Cancelled, and the caller's RAII cleanup removes half-written outputs.
// The CLI's sink draws a bar on a terminal and plain lines otherwise (cli/), tests use a
// recording or silent sink.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "kernels/common/error.h"

namespace terrazo {

struct ProgressEvent {
  std::string phase;         // e.g. "import", "mst: block-local", "sssp: exchange"
  std::uint64_t done = 0;    // units of work done in this phase
  std::uint64_t total = 0;   // units in this phase (0 when unknown)
  std::uint64_t cells = 0;   // cells processed so far in this phase, for cells/s
  double fraction() const { return total ? static_cast<double>(done) / static_cast<double>(total) : 0.0; }
};

class Progress {
 public:
  using Sink = std::function<bool(const ProgressEvent&)>;
  Progress() = default;
  explicit Progress(Sink sink) : sink_(std::move(sink)) {}

  // Reports; throws Cancelled if the sink returns false.
  void update(const std::string& phase, std::uint64_t done, std::uint64_t total, std::uint64_t cells = 0) {
    if (!sink_) return;
    ProgressEvent event{phase, done, total, cells};
    if (!sink_(event)) throw Cancelled();
  }

  static Progress& silent() {
    static Progress none;
    return none;
  }

 private:
  Sink sink_;
};

}  // namespace terrazo
