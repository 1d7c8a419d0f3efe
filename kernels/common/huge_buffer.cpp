// kernels/common/huge_buffer.cpp: huge_allocate and huge_free (kernels/common/huge_buffer.h).
#include "kernels/common/huge_buffer.h"

#include <sys/mman.h>

#include <new>

namespace terrazo {

namespace {
constexpr std::size_t kSmallPage = 4096;
}

// Under 2 MiB: operator new, mapped = bytes. Else a mapping of the size rounded up to 4 KiB that
// starts on a 2 MiB boundary (mapped one huge page longer, the slack unmapped), advised for huge
// pages: every whole 2 MiB range of it can be a huge page, the tail stays on small pages (no
// rounding up to 2 MiB, so the resident set is what is touched); mapped = that length.
void* huge_allocate(std::size_t bytes, std::size_t* mapped) {
  if (bytes < kHugeBufferPage) {
    *mapped = bytes;
    return ::operator new(bytes == 0 ? 1 : bytes);
  }
  const std::size_t size = (bytes + kSmallPage - 1) / kSmallPage * kSmallPage;
  void* raw = ::mmap(nullptr, size + kHugeBufferPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kHugeBufferPage - 1) / kHugeBufferPage * kHugeBufferPage;
  if (aligned > base) ::munmap(raw, aligned - base);
  const std::uintptr_t end = base + size + kHugeBufferPage;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
#ifdef MADV_HUGEPAGE
  ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // advice only
#endif
  *mapped = size;
  return reinterpret_cast<void*>(aligned);
}

void huge_free(void* memory, std::size_t mapped) {
  if (mapped < kHugeBufferPage) {
    ::operator delete(memory);
    return;
  }
  ::munmap(memory, mapped);
}

}  // namespace terrazo
