// kernels/common/warnings.cpp: warn, set_warning_sink (kernels/common/warnings.h).
#include "kernels/common/warnings.h"

#include <cstdio>
#include <mutex>

namespace terrazo {
namespace {

std::mutex sink_mutex;
WarningSink& current_sink() {
  static WarningSink sink;
  return sink;
}

}  // namespace

void warn(const std::string& text) {
  std::lock_guard<std::mutex> lock(sink_mutex);
  if (current_sink()) {
    current_sink()(text);
    return;
  }
  std::fprintf(stderr, "terrazo: warning: %s\n", text.c_str());
  std::fflush(stderr);
}

WarningSink set_warning_sink(WarningSink sink) {
  std::lock_guard<std::mutex> lock(sink_mutex);
  WarningSink previous = std::move(current_sink());
  current_sink() = std::move(sink);
  return previous;
}

}  // namespace terrazo
