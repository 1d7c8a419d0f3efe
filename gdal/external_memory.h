// gdal/external_memory.h: STXXL set up for a terrazo run, and the byte budget its containers draw on.
//
// Contract:
//  - STXXL's disk is one file, `<scratch dir>/stxxl.disk`, opened with the syscall I/O backend,
//    grown on demand ("autogrow") and unlinked right after it is opened, so it never outlives the
//    process (not even a crash) and never lands in /var/tmp. STXXL's log and error-log files go to
//    the same directory, and its banner and disk messages are kept off stdout (they go to the log).
//  - STXXL reads its disk list once per process, when its block manager is first used. The first
//    ExternalMemory of a process therefore chooses the disk; later ones (another run in the same
//    process, as in tests) reuse that disk, which, being unlinked, needs its directory no longer.
//    No STXXL container may be made before the first ExternalMemory of the process: STXXL would
//    then have fallen back to its default disk in /var/tmp (STXXL offers no way to tell).
//  - STXXL containers size their internal memory at construction (vector: pages x blocks per page x
//    block bytes of cache, the page count a constructor argument; sorter and stxxl::sort: a byte
//    argument). An ExternalMemory reserves
//    `internal_bytes` from the MemoryBudget ("STXXL internal memory"); containers take slices of it
//    with take(), which throws Error when the slices would exceed it. The formulas below give each
//    container's share; the block manager's own bookkeeping (a few KiB per disk) is not reserved.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/memory_budget.h"

namespace terrazo {

class ExternalMemory {
 public:
  // Block size terrazo's STXXL containers use (bytes): large enough for sequential disk
  // bandwidth, small enough that a 64 MiB slice holds dozens of blocks.
  static constexpr std::uint64_t kBlockBytes = 1ull << 20;

  ExternalMemory(const std::string& scratch_dir, MemoryBudget& budget, std::uint64_t internal_bytes);
  ~ExternalMemory();
  ExternalMemory(const ExternalMemory&) = delete;
  ExternalMemory& operator=(const ExternalMemory&) = delete;

  // The memory STXXL containers of this run may use in all, and what is not yet taken.
  std::uint64_t internal_bytes() const { return reservation_.bytes(); }
  std::uint64_t available() const { return internal_bytes() - taken_; }
  // Takes `bytes` of the internal memory for `what`; throws Error naming both when it does not fit.
  // Returns `bytes` (so it can sit in a constructor argument: `stxxl::sorter s(cmp, em.take(...))`).
  std::uint64_t take(std::uint64_t bytes, std::string_view what);
  void give_back(std::uint64_t bytes);

  // The disk file STXXL of this process uses (from the first ExternalMemory), and its log file.
  static std::string disk_path();
  static std::string log_path();

  // stxxl::vector: its cache is numpages() pages of page_size blocks of block_size bytes, the page
  // count being a constructor argument: `Vector v(0, ExternalMemory::vector_pages<Vector>(em.take(bytes, "...")))`.
  template <class StxxlVector>
  static constexpr std::uint64_t vector_page_bytes() {
    return static_cast<std::uint64_t>(StxxlVector::page_size) * static_cast<std::uint64_t>(StxxlVector::block_size);
  }
  // Pages that fit in `bytes` (at least 1: a vector needs one page).
  template <class StxxlVector>
  static std::size_t vector_pages(std::uint64_t bytes) {
    const std::uint64_t pages = bytes / vector_page_bytes<StxxlVector>();
    return static_cast<std::size_t>(pages == 0 ? 1 : (pages > 1u << 30 ? 1u << 30 : pages));
  }
  // What a constructed vector holds in memory: numpages() x page bytes.
  template <class StxxlVector>
  static std::uint64_t vector_bytes(const StxxlVector& vector) {
    return static_cast<std::uint64_t>(vector.numpages()) * vector_page_bytes<StxxlVector>();
  }
  // The smallest byte argument to give STXXL's sorter / stxxl::sort with `block_bytes` blocks:
  // run formation needs 2 blocks x the parallel-sort factor (up to 2), the merger 2 x 2 prefetch
  // blocks + 3 (one disk): 7; 8 blocks cover both. Less makes STXXL throw bad_parameter.
  static constexpr std::uint64_t sorter_minimum_bytes(std::uint64_t block_bytes = kBlockBytes) {
    return 8 * block_bytes;
  }

 private:
  MemoryBudget::Reservation reservation_;
  std::uint64_t taken_ = 0;
};

}  // namespace terrazo
