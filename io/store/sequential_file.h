// io/store/sequential_file.h: buffered sequential writing and reading of a scratch file.
//
// For the MST pipeline's side files (tile summaries, forest bits, edge list): records are appended
// in one pass and read back in the same order in a later pass. Memory: one buffer of `buffer_bytes`
// each, reserved from the budget under `what`; I/O through io/store/posix_file.h (errors name the file).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/huge_buffer.h"
#include "kernels/common/memory_budget.h"
#include "io/store/posix_file.h"

namespace terrazo {

class SequentialWriter {
 public:
  SequentialWriter(const std::string& path, MemoryBudget& budget, std::uint64_t buffer_bytes, const char* what);
  ~SequentialWriter();
  SequentialWriter(const SequentialWriter&) = delete;
  SequentialWriter& operator=(const SequentialWriter&) = delete;
  void write(const void* data, std::uint64_t bytes);
  // Writes what is buffered and closes the file (errors are reported here, not lost).
  void finish();
  std::uint64_t bytes_written() const { return offset_ + used_; }
  const std::string& path() const { return file_.path(); }

 private:
  void flush();
  PosixFile file_;
  MemoryBudget::Reservation reservation_;
  HugeBuffer<char> buffer_;  // written before read (kernels/common/huge_buffer.h)
  std::uint64_t used_ = 0, offset_ = 0;
};

class SequentialReader {
 public:
  // Reads from byte `start` on.
  SequentialReader(const std::string& path, MemoryBudget& budget, std::uint64_t buffer_bytes, const char* what,
                   std::uint64_t start = 0);
  // Reads exactly `bytes`; throws Error if the file ends first.
  void read(void* data, std::uint64_t bytes);
  void skip(std::uint64_t bytes);
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  PosixFile file_;
  MemoryBudget::Reservation reservation_;
  HugeBuffer<char> buffer_;  // written before read (kernels/common/huge_buffer.h)
  std::uint64_t position_ = 0, length_ = 0, offset_ = 0, bytes_read_ = 0;
};

}  // namespace terrazo
