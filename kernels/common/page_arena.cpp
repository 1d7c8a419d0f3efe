// kernels/common/page_arena.cpp: PageArena (kernels/common/page_arena.h).
#include "kernels/common/page_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <string>

#include "kernels/common/error.h"
#include "kernels/common/huge_buffer.h"

namespace terrazo {

namespace {

constexpr std::uint64_t kSmallPage = 4096;
// The first chunk maps this much (or what max_pieces needs, if less); each next one twice the last,
// up to kLargestChunk, so a cache that fills grows in a handful of mappings.
constexpr std::uint64_t kFirstChunk = 32ull << 20;
constexpr std::uint64_t kLargestChunk = 512ull << 20;

}  // namespace

PageArena::PageArena(std::uint64_t piece_bytes, std::uint64_t max_pieces)
    : piece_bytes_((std::max<std::uint64_t>(piece_bytes, 1) + 63) / 64 * 64), max_pieces_(max_pieces) {}

PageArena::~PageArena() {
  for (const Chunk& c : chunks_) huge_free(c.address, c.bytes);
}

void* PageArena::take() {
  if (!free_.empty()) {
    void* p = free_.back();
    free_.pop_back();
    return p;
  }
  if (left_in_chunk_ == 0) {
    if (pieces_ >= max_pieces_)
      throw Error("internal: page arena of " + std::to_string(max_pieces_) + " pieces is exhausted");
    const std::uint64_t last = chunks_.empty() ? 0 : chunks_.back().bytes;
    const std::uint64_t target = chunks_.empty() ? kFirstChunk : std::min(kLargestChunk, 2 * last);
    const std::uint64_t count =
        std::min(max_pieces_ - pieces_, std::max<std::uint64_t>(1, target / piece_bytes_));
    std::size_t mapped = 0;
    void* address = huge_allocate(count * piece_bytes_, &mapped);
    chunks_.push_back(Chunk{address, mapped});
    next_ = static_cast<unsigned char*>(address);
    left_in_chunk_ = count;
  }
  void* p = next_;
  next_ += piece_bytes_;
  --left_in_chunk_;
  ++pieces_;
  return p;
}

void PageArena::give_back(void* piece) {
  const auto begin = reinterpret_cast<std::uintptr_t>(piece);
  const std::uintptr_t first = (begin + kSmallPage - 1) / kSmallPage * kSmallPage;
  const std::uintptr_t last = (begin + piece_bytes_) / kSmallPage * kSmallPage;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  free_.push_back(piece);
}

}  // namespace terrazo
