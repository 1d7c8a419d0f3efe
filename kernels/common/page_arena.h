// kernels/common/page_arena.h: equal pieces of anonymous memory for caches of buffers that are written
// before they are read (the SSSP exchange's tile entries).
//
// Why: `std::vector::resize` zero-fills every buffer (a memset the cache then overwrites) and each
// buffer of more than 128 KiB is a fresh mapping whose 4 KiB pages fault one by one; on a
// paravirtualised VM a page fault is expensive (docs/benchmarks.md "Fixed costs of a small run").
// The arena maps chunks on 2 MiB boundaries advised for transparent huge pages
// (kernels/common/huge_buffer.h), hands them out in pieces and never clears them: the kernel's fresh pages
// are zero, a piece taken again holds what its last user left (callers overwrite it).
//
// Contract: piece_bytes is rounded up to 64 bytes; at most max_pieces pieces are ever mapped (the
// caller's budget reservation covers max_pieces x piece_bytes; each chunk is mapped to what its
// pieces span, rounded up to 4 KiB, so the resident set stays within it); give_back(p) returns a
// piece's whole 4 KiB pages to the kernel (MADV_DONTNEED) and keeps the piece for take() (it then
// reads as zeros or as before). Not thread-safe: one owner.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace terrazo {

class PageArena {
 public:
  PageArena(std::uint64_t piece_bytes, std::uint64_t max_pieces);
  ~PageArena();
  PageArena(const PageArena&) = delete;
  PageArena& operator=(const PageArena&) = delete;

  std::uint64_t piece_bytes() const { return piece_bytes_; }
  // A piece: a returned one first, else a new one (throws terrazo::Error past max_pieces).
  void* take();
  // Back to the arena for take(); its pages go back to the kernel.
  void give_back(void* piece);
  // Back to the arena for take(), pages kept (the next user overwrites them).
  void recycle(void* piece) { free_.push_back(piece); }

 private:
  struct Chunk {
    void* address = nullptr;
    std::size_t bytes = 0;
  };
  std::uint64_t piece_bytes_;
  std::uint64_t max_pieces_;
  std::uint64_t pieces_ = 0;  // handed out from chunks so far
  std::vector<Chunk> chunks_;
  unsigned char* next_ = nullptr;  // the next piece of the last chunk
  std::uint64_t left_in_chunk_ = 0;
  std::vector<void*> free_;
};

}  // namespace terrazo
