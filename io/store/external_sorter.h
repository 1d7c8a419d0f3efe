// io/store/external_sorter.h: external merge sort of 16-byte records under a byte budget.
//
// Used by the MST pipeline for its expansion records (engine/commands/mst.cpp): O(N/t) records made
// in merge order, consumed in tile Z-order. Plain files in the run directory; why not STXXL: docs/memory_budget.md.
//
// Contract: push() any number of records, then finish(), then next() returns them in increasing
// (key, value) order, each exactly once. Memory: exactly `buffer_bytes` (reserved from the budget as
// "MST expansion records"): while pushing, a buffer of buffer_bytes/16 records; when it is full it
// is sorted and written as a run to `path`; after finish() the same bytes are cut into one read
// buffer per run for a k-way merge (heap of k entries, k x 24 bytes more, outside the reservation).
// A run's read buffer is at least R = clamp(buffer_bytes / 16, 512 B, 64 KiB); when more runs exist
// than buffer_bytes / R, groups of F = buffer_bytes / R - 1 runs are merged into longer runs first
// (a second file, `path` + ".2", ping-pong).
// With no run spilled, the records never touch the disk.
// I/O: each record is written and read once per pass; passes = ceil(log_F(runs)) with fan-in F.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "io/store/posix_file.h"

namespace terrazo {

struct SortRecord {
  std::uint64_t key = 0;
  std::uint64_t value = 0;
  friend bool operator<(const SortRecord& p, const SortRecord& q) {
    return p.key != q.key ? p.key < q.key : p.value < q.value;
  }
};

class ExternalSorter {
 public:
  // The smallest buffer (64 records); tests use it to force runs and multi-pass merges.
  static constexpr std::uint64_t kMinimumBufferBytes = 1024;
  // Read buffer per run in a merge: buffer_bytes / 16, clamped to [512 B, 64 KiB].
  static constexpr std::uint64_t kRunBufferMaxBytes = 64ull << 10;
  static constexpr std::uint64_t kRunBufferMinBytes = 512;

  // `buffer_bytes` >= kMinimumBufferBytes (raised to it otherwise).
  ExternalSorter(std::string path, MemoryBudget& budget, std::uint64_t buffer_bytes);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  void push(const SortRecord& record);
  void finish();
  bool next(SortRecord* record);

  std::uint64_t size() const { return count_; }
  std::uint64_t runs_spilled() const { return runs_spilled_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t buffer_bytes() const { return reservation_.bytes(); }

 private:
  struct Run {
    std::uint64_t offset = 0, count = 0;
  };
  struct Cursor;
  void spill();
  void merge_group(PosixFile& from, const std::vector<Run>& group, PosixFile& to, std::uint64_t to_offset);
  void open_final_merge();

  std::string path_;
  MemoryBudget::Reservation reservation_;
  std::vector<SortRecord> buffer_;
  std::uint64_t capacity_ = 0;  // records
  std::uint64_t count_ = 0;
  std::uint64_t runs_spilled_ = 0;
  std::uint64_t bytes_written_ = 0, bytes_read_ = 0;
  bool finished_ = false;
  std::size_t memory_position_ = 0;  // in-memory mode: next record in buffer_
  PosixFile file_, other_;
  std::vector<Run> runs_;
  std::vector<std::unique_ptr<Cursor>> cursors_;
  std::vector<std::pair<SortRecord, std::uint32_t>> heap_;
};

}  // namespace terrazo
