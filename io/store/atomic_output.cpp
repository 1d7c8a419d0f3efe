// io/store/atomic_output.cpp: AtomicOutput (io/store/atomic_output.h).
#include "io/store/atomic_output.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "kernels/common/error.h"

namespace terrazo {

namespace {

constexpr const char* kMarker = ".partial-";
constexpr const char* kFresh = ".new";  // the locked file's name before it becomes the partial name

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

std::string directory_of(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Length of the partial name at the start of `name` ("X.partial-<digits>-<16 hex>"), 0 if none.
// The last ".partial-" counts, so an output named "a.partial-1-..." still works.
std::size_t partial_name_length(const std::string& name) {
  const std::size_t marker = name.rfind(kMarker);
  if (marker == std::string::npos || marker == 0) return 0;
  std::size_t i = marker + std::strlen(kMarker);
  const std::size_t digits = i;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == digits || i >= name.size() || name[i] != '-') return 0;
  ++i;
  for (int k = 0; k < 16; ++k, ++i)
    if (i >= name.size() || !std::isxdigit(static_cast<unsigned char>(name[i]))) return 0;
  if (i < name.size() && name[i] != '.') return 0;
  return i;
}

// Takes the lock of `path` if no one holds it; returns the descriptor (caller closes), or -1.
int lock_if_free(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::string AtomicOutput::partial_prefix(const std::string& path) { return path + kMarker; }

unsigned AtomicOutput::remove_stale_partials(const std::string& directory) {
  namespace fs = std::filesystem;
  unsigned removed = 0;
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (partial_name_length(name) != 0) names.push_back(name);
  }
  for (const std::string& name : names) {
    const std::size_t base_length = partial_name_length(name);
    const std::string base = name.substr(0, base_length), suffix = name.substr(base_length);
    // A partial file, or a fresh one killed before its rename; sidecars go with their partial file.
    if (!suffix.empty() && suffix != kFresh) continue;
    const std::string path = directory + "/" + name;
    const int fd = lock_if_free(path);
    if (fd < 0) continue;  // its writer lives (or it is gone already)
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      ::unlink(path.c_str());
      ++removed;
      if (suffix.empty())
        for (const std::string& other : names)
          if (other.size() > base.size() + 1 && other.compare(0, base.size() + 1, base + ".") == 0 && other != name)
            ::unlink((directory + "/" + other).c_str());
    }
    ::close(fd);
  }
  return removed;
}

AtomicOutput::AtomicOutput(std::string path, std::vector<std::string> sidecar_suffixes)
    : path_(std::move(path)), sidecars_(std::move(sidecar_suffixes)) {
  if (path_.empty()) throw Error("internal error: an output without a path");
  remove_stale_partials(directory_of(path_));
  const std::string prefix = partial_prefix(path_) + std::to_string(static_cast<long long>(::getpid())) + "-";
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string candidate = prefix + random_hex();
    if (exists(candidate)) continue;
    const std::string fresh = candidate + kFresh;
    const int fd = ::open(fresh.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      throw IoError("cannot create '" + fresh + "' (the partial file of '" + path_ + "'): " + std::strerror(errno));
    }
    // Another run's stale-file sweep may remove `fresh` before it is locked: then the rename fails
    // with ENOENT and a new name is tried.
    int saved = 0;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && !exists(candidate)) {
      if (std::rename(fresh.c_str(), candidate.c_str()) == 0) {
        lock_fd_ = fd;
        partial_ = std::move(candidate);
        return;
      }
      saved = errno;
    }
    ::close(fd);
    ::unlink(fresh.c_str());
    if (saved != 0 && saved != ENOENT)
      throw IoError("cannot create the partial file '" + candidate + "' of '" + path_ + "': " + std::strerror(saved));
  }
  throw IoError("cannot choose a fresh partial-file name for '" + path_ + "'");
}

AtomicOutput::~AtomicOutput() { discard(); }

void AtomicOutput::release_lock() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

void AtomicOutput::discard() {
  if (published_ || discarded_) return;
  discarded_ = true;
  std::remove(partial_.c_str());  // still locked: no sweep of another run touches it meanwhile
  for (const auto& suffix : sidecars_) std::remove((partial_ + suffix).c_str());
  release_lock();
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
  release_lock();
}

}  // namespace terrazo
