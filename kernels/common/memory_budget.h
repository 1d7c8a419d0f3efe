// kernels/common/memory_budget.h: the one host memory budget of a run (docs/memory_budget.md).
//
// `--memory SIZE` makes one MemoryBudget; every structure that holds more than a few KiB
// (tile caches, strip buffers, GDAL's block cache, sort buffers, queues) takes a
// Reservation from it before allocating, naming what it is for, and gives it back by RAII.
// A reservation that does not fit throws terrazo::Error naming the budget, what was asked and
// what is already held, so "budget too small" is a clear error up front, not an OOM kill.
// The promise checked by tests and benchmarks: peak RSS (VmHWM) <= total() + kFixedOverhead.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace terrazo {

class MemoryBudget {
 public:
  // Code, libraries, stacks and small objects that are not reserved: the "+ 64 MiB" of docs/memory_budget.md.
  static constexpr std::uint64_t kFixedOverhead = 64ull << 20;
  // What a cache that takes "the rest of the budget" leaves unreserved: min(32 MiB, total / 32).
  // The fixed overhead above holds the code pages of GDAL and its codecs (about 41 MiB at the 4 G-cell
  // 16-neighbour sssp run's write phase, docs/benchmarks.md), which left only ~20 MiB for the worker
  // threads' allocator slack; this margin keeps that slack inside the promise with room to spare.
  std::uint64_t cache_margin() const { return std::min<std::uint64_t>(32ull << 20, total_ / 32); }

  // A budget error ends with `remedy`, in the flags of the command that owns the budget: the
  // default names --tile, which commands without it replace ("raise --memory").
  explicit MemoryBudget(std::uint64_t total_bytes, std::string remedy = kRaiseMemoryOrLowerTile);
  static constexpr const char* kRaiseMemoryOrLowerTile = "raise --memory or lower --tile";
  static constexpr const char* kRaiseMemory = "raise --memory";
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept;
    Reservation& operator=(Reservation&& other) noexcept;
    ~Reservation();
    std::uint64_t bytes() const { return bytes_; }
    void release();

   private:
    friend class MemoryBudget;
    Reservation(MemoryBudget* budget, std::string what, std::uint64_t bytes)
        : budget_(budget), what_(std::move(what)), bytes_(bytes) {}
    MemoryBudget* budget_ = nullptr;
    std::string what_;
    std::uint64_t bytes_ = 0;
  };

  // Throws BudgetError if `bytes` does not fit in what is left; its message ends with the budget's
  // remedy, or with `remedy` where a part shrinks otherwise (a graph of tile perimeters: larger tiles).
  Reservation reserve(std::uint64_t bytes, std::string_view what);
  Reservation reserve(std::uint64_t bytes, std::string_view what, std::string_view remedy);
  // Takes min(bytes, available()) but at least `minimum` (throws if even that does not fit).
  Reservation reserve_up_to(std::uint64_t bytes, std::uint64_t minimum, std::string_view what);

  std::uint64_t total() const { return total_; }
  std::uint64_t reserved() const;
  std::uint64_t available() const;
  std::uint64_t peak_reserved() const;
  // "tile cache 128.0 MiB, strip buffer 32.0 MiB, ..." for logs and --json.
  std::string describe() const;

  // "512M", "2G", "1.5G", "65536" (bytes), "300K", "1T"; case-insensitive, optional trailing B/iB.
  // Throws UsageError naming the text on anything else or on zero.
  static std::uint64_t parse_size(std::string_view text);
  // 1.5 GiB style formatting.
  static std::string format_size(std::uint64_t bytes);

 private:
  void give_back(const std::string& what, std::uint64_t bytes);
  mutable std::mutex mutex_;
  std::uint64_t total_;
  std::string remedy_;
  std::uint64_t reserved_ = 0;
  std::uint64_t peak_ = 0;
  std::map<std::string, std::uint64_t> holders_;
};

// Peak and current resident set of this process from /proc/self/status (VmHWM, VmRSS), bytes.
std::uint64_t peak_rss_bytes();
std::uint64_t current_rss_bytes();

// Returns the heap's free memory to the system (glibc's malloc_trim over every arena). Called
// between the phases of a command that runs one pipeline after another (network: the matrix, then
// the paths): glibc keeps what a phase freed resident in its arenas (its dynamic mmap threshold
// moves large blocks into the heap), so the next phase's allocations came on top of it and the
// run peaked at about the sum of the two phases.
void return_freed_memory();

}  // namespace terrazo
