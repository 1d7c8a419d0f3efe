// io/store/posix_file.h: an owned file descriptor with positioned, complete reads and writes.
//
// pread/pwrite into caller buffers (no mapping), so the only memory a read costs is the caller's
// buffer, and several threads may read or write disjoint ranges at once. Short reads and writes
// are retried until complete; EINTR is retried; every failure is an Error naming the file, the
// operation, the offset and strerror. 64-bit offsets throughout.
#pragma once
#include <cstdint>
#include <string>

namespace terrazo {

class PosixFile {
 public:
  enum class Mode { Read, CreateReadWrite };
  PosixFile() = default;
  PosixFile(const std::string& path, Mode mode);
  ~PosixFile();
  PosixFile(PosixFile&& other) noexcept;
  PosixFile& operator=(PosixFile&& other) noexcept;
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  std::uint64_t size() const;

  // Reads exactly `bytes` at `offset`; throws Error if the file ends first.
  void read_exact(void* buffer, std::uint64_t bytes, std::uint64_t offset) const;
  // Reads up to `bytes` at `offset`, returning how many were read (fewer only at end of file).
  std::uint64_t read_some(void* buffer, std::uint64_t bytes, std::uint64_t offset) const;
  void write_all(const void* buffer, std::uint64_t bytes, std::uint64_t offset);
  void truncate(std::uint64_t bytes);
  // Frees the blocks of [offset, offset+bytes) where the file system can (a sparse hole); else no-op.
  void punch_hole(std::uint64_t offset, std::uint64_t bytes);
  void sync_data();
  void close();  // throws Error if close reports a failure (a lost write)

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace terrazo
