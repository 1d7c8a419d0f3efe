#include "io/store/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernels/common/error.h"

namespace terrazo {

namespace {

std::string reason() { return std::strerror(errno); }

// Calls move(done, chunk) (a pread or pwrite of `chunk` bytes, `done` bytes past the start; at most
// 1 GiB a call) until `bytes` are moved or a call moves none (end of file), retrying on EINTR; a
// failure calls fail(done), which throws. Returns the bytes moved.
template <class Move, class Fail>
std::uint64_t move_all(std::uint64_t bytes, Move move, Fail fail) {
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t chunk = bytes - done < (1ull << 30) ? bytes - done : (1ull << 30);
    const ssize_t moved = move(done, chunk);
    if (moved < 0) {
      if (errno == EINTR) continue;
      fail(done);
    }
    if (moved <= 0) break;
    done += static_cast<std::uint64_t>(moved);
  }
  return done;
}

}  // namespace

PosixFile::PosixFile(const std::string& path, Mode mode) : path_(path) {
  const int flags = mode == Mode::Read ? (O_RDONLY | O_CLOEXEC) : (O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC);
  do {
    fd_ = ::open(path.c_str(), flags, 0644);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0)
    throw IoError(std::string("cannot ") + (mode == Mode::Read ? "open '" : "create '") + path + "': " + reason());
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw IoError("'" + path + "' is not a regular file");
  }
}

PosixFile::~PosixFile() {
  if (fd_ >= 0) ::close(fd_);
}

PosixFile::PosixFile(PosixFile&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }

PosixFile& PosixFile::operator=(PosixFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

std::uint64_t PosixFile::size() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) throw IoError("cannot stat '" + path_ + "': " + reason());
  return static_cast<std::uint64_t>(st.st_size);
}

std::uint64_t PosixFile::read_some(void* buffer, std::uint64_t bytes, std::uint64_t offset) const {
  auto* out = static_cast<unsigned char*>(buffer);
  const auto read = [&](std::uint64_t done, std::uint64_t chunk) {
    return ::pread(fd_, out + done, chunk, static_cast<off_t>(offset + done));
  };
  return move_all(bytes, read, [&](std::uint64_t done) {
    throw IoError("cannot read '" + path_ + "' at byte " + std::to_string(offset + done) + ": " + reason());
  });
}

void PosixFile::read_exact(void* buffer, std::uint64_t bytes, std::uint64_t offset) const {
  const std::uint64_t got = read_some(buffer, bytes, offset);
  if (got != bytes)
    throw Error("'" + path_ + "' is truncated: it ends at byte " + std::to_string(offset + got) + ", " +
                std::to_string(bytes - got) + " bytes short of what its header describes");
}

void PosixFile::write_all(const void* buffer, std::uint64_t bytes, std::uint64_t offset) {
  const auto* in = static_cast<const unsigned char*>(buffer);
  const auto fail = [&](std::uint64_t done) {
    throw IoError("cannot write '" + path_ + "' at byte " + std::to_string(offset + done) + ": " + reason() +
                  " (is the disk full?)");
  };
  const auto write = [&](std::uint64_t done, std::uint64_t chunk) {
    return ::pwrite(fd_, in + done, chunk, static_cast<off_t>(offset + done));
  };
  const std::uint64_t written = move_all(bytes, write, fail);
  if (written < bytes) {  // a call that wrote nothing: no space to grow into
    errno = ENOSPC;
    fail(written);
  }
}

void PosixFile::truncate(std::uint64_t bytes) {
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
    throw IoError("cannot size '" + path_ + "' to " + std::to_string(bytes) + " bytes: " + reason());
}

void PosixFile::punch_hole(std::uint64_t offset, std::uint64_t bytes) {
#ifdef FALLOC_FL_PUNCH_HOLE
  // Best effort: where the file system cannot punch holes the bytes stay, unreferenced by the index.
  (void)::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                    static_cast<off_t>(bytes));
#else
  (void)offset;
  (void)bytes;
#endif
}

void PosixFile::sync_data() {
  if (::fdatasync(fd_) != 0) throw IoError("cannot flush '" + path_ + "' to disk: " + reason());
}

void PosixFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR) throw IoError("cannot close '" + path_ + "': " + reason());
}

}  // namespace terrazo
