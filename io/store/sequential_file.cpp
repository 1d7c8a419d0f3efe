// io/store/sequential_file.cpp: see sequential_file.h.
#include "io/store/sequential_file.h"

#include <algorithm>
#include <cstring>

#include "kernels/common/error.h"

namespace terrazo {

SequentialWriter::SequentialWriter(const std::string& path, MemoryBudget& budget, std::uint64_t buffer_bytes,
                                   const char* what)
    : file_(path, PosixFile::Mode::CreateReadWrite), reservation_(budget.reserve(buffer_bytes, what)),
      buffer_(buffer_bytes) {}

SequentialWriter::~SequentialWriter() = default;

void SequentialWriter::flush() {
  if (used_ == 0) return;
  file_.write_all(buffer_.data(), used_, offset_);
  offset_ += used_;
  used_ = 0;
}

void SequentialWriter::write(const void* data, std::uint64_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    if (used_ == buffer_.size()) flush();
    const std::uint64_t n = std::min<std::uint64_t>(bytes, buffer_.size() - used_);
    std::memcpy(buffer_.data() + used_, p, n);
    used_ += n;
    p += n;
    bytes -= n;
  }
}

void SequentialWriter::finish() {
  flush();
  file_.close();
}

SequentialReader::SequentialReader(const std::string& path, MemoryBudget& budget, std::uint64_t buffer_bytes,
                                   const char* what, std::uint64_t start)
    : file_(path, PosixFile::Mode::Read), reservation_(budget.reserve(buffer_bytes, what)), buffer_(buffer_bytes),
      offset_(start) {}

void SequentialReader::read(void* data, std::uint64_t bytes) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    if (position_ == length_) {
      length_ = file_.read_some(buffer_.data(), buffer_.size(), offset_);
      if (length_ == 0) throw Error("'" + file_.path() + "' ended early (a scratch file of this run was truncated)");
      offset_ += length_;
      bytes_read_ += length_;
      position_ = 0;
    }
    const std::uint64_t n = std::min(bytes, length_ - position_);
    std::memcpy(p, buffer_.data() + position_, n);
    position_ += n;
    p += n;
    bytes -= n;
  }
}

void SequentialReader::skip(std::uint64_t bytes) {
  const std::uint64_t buffered = std::min(bytes, length_ - position_);
  position_ += buffered;
  bytes -= buffered;
  offset_ += bytes;
}

}  // namespace terrazo
