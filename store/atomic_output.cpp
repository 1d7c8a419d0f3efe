// store/atomic_output.cpp: AtomicOutput (store/atomic_output.h).
#include "store/atomic_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "core/error.h"

namespace terrazo {

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string random_hex() {
  static thread_local std::random_device device;
  const std::uint64_t value = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::string AtomicOutput::partial_prefix(const std::string& path) { return path + ".partial-"; }

AtomicOutput::AtomicOutput(std::string path, std::vector<std::string> sidecar_suffixes)
    : path_(std::move(path)), sidecars_(std::move(sidecar_suffixes)) {
  if (path_.empty()) throw Error("internal error: an output without a path");
  const std::string prefix = partial_prefix(path_) + std::to_string(static_cast<long long>(::getpid())) + "-";
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string candidate = prefix + random_hex();
    if (!exists(candidate)) {
      partial_ = std::move(candidate);
      return;
    }
  }
  throw IoError("cannot choose a fresh partial-file name for '" + path_ + "'");
}

AtomicOutput::~AtomicOutput() { discard(); }

void AtomicOutput::discard() {
  if (published_ || discarded_) return;
  discarded_ = true;
  std::remove(partial_.c_str());
  for (const auto& suffix : sidecars_) std::remove((partial_ + suffix).c_str());
}

void AtomicOutput::publish() {
  if (published_) return;
  if (discarded_) throw Error("internal error: '" + path_ + "' published after it was discarded");
  for (const auto& suffix : sidecars_) {
    const std::string from = partial_ + suffix, to = path_ + suffix;
    if (exists(from) && std::rename(from.c_str(), to.c_str()) != 0)
      throw IoError("cannot rename '" + from + "' to '" + to + "': " + std::strerror(errno));
  }
  if (std::rename(partial_.c_str(), path_.c_str()) != 0)
    throw IoError("cannot rename '" + partial_ + "' to '" + path_ + "': " + std::strerror(errno));
  published_ = true;
}

}  // namespace terrazo
