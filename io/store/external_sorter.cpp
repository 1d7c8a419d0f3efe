// io/store/external_sorter.cpp: see external_sorter.h.
#include "io/store/external_sorter.h"

#include <algorithm>
#include <cstdio>

#include "kernels/common/error.h"

namespace terrazo {

struct ExternalSorter::Cursor {
  const PosixFile* file = nullptr;
  std::uint64_t offset = 0;     // next byte of the run in the file
  std::uint64_t remaining = 0;  // records of the run not yet read into the buffer
  SortRecord* buffer = nullptr;
  std::uint64_t capacity = 0, position = 0, length = 0;
  std::uint64_t* bytes_read = nullptr;

  bool get(SortRecord* record) {
    if (position == length) {
      if (remaining == 0) return false;
      length = std::min(capacity, remaining);
      file->read_exact(buffer, length * sizeof(SortRecord), offset);
      *bytes_read += length * sizeof(SortRecord);
      offset += length * sizeof(SortRecord);
      remaining -= length;
      position = 0;
    }
    *record = buffer[position++];
    return true;
  }
};

namespace {

bool heap_after(const std::pair<SortRecord, std::uint32_t>& p, const std::pair<SortRecord, std::uint32_t>& q) {
  return q.first < p.first;  // min-heap on the record
}

}  // namespace

ExternalSorter::ExternalSorter(std::string path, MemoryBudget& budget, std::uint64_t buffer_bytes)
    : path_(std::move(path)) {
  buffer_bytes = std::max(buffer_bytes, kMinimumBufferBytes);
  reservation_ = budget.reserve(buffer_bytes, "MST expansion records");
  capacity_ = buffer_bytes / sizeof(SortRecord);
  buffer_.reserve(capacity_);
}

ExternalSorter::~ExternalSorter() {
  cursors_.clear();
  const bool had_files = file_.is_open() || other_.is_open();
  try {
    if (file_.is_open()) file_.close();
    if (other_.is_open()) other_.close();
  } catch (const Error&) {
    // Scratch files only: a close failure loses nothing the run still needs.
  }
  if (had_files) {
    std::remove(path_.c_str());
    std::remove((path_ + ".2").c_str());
  }
}

void ExternalSorter::push(const SortRecord& record) {
  if (finished_) throw Error("internal error: ExternalSorter::push after finish");
  if (buffer_.size() == capacity_) spill();
  buffer_.push_back(record);
  ++count_;
}

void ExternalSorter::spill() {
  if (buffer_.empty()) return;
  if (!file_.is_open()) file_ = PosixFile(path_, PosixFile::Mode::CreateReadWrite);
  std::sort(buffer_.begin(), buffer_.end());
  const std::uint64_t offset = runs_.empty() ? 0 : runs_.back().offset + runs_.back().count * sizeof(SortRecord);
  file_.write_all(buffer_.data(), buffer_.size() * sizeof(SortRecord), offset);
  bytes_written_ += buffer_.size() * sizeof(SortRecord);
  runs_.push_back(Run{offset, buffer_.size()});
  ++runs_spilled_;
  buffer_.clear();
}

void ExternalSorter::merge_group(PosixFile& from, const std::vector<Run>& group, PosixFile& to,
                                 std::uint64_t to_offset) {
  // Buffers: one per input run and one for the output, carved from buffer_'s storage.
  buffer_.resize(capacity_);
  const std::uint64_t share = capacity_ / (group.size() + 1);
  std::vector<Cursor> cursors(group.size());
  std::vector<std::pair<SortRecord, std::uint32_t>> heap;
  for (std::size_t i = 0; i < group.size(); ++i) {
    cursors[i] = Cursor{&from, group[i].offset, group[i].count, buffer_.data() + i * share, share, 0, 0, &bytes_read_};
    SortRecord r;
    if (cursors[i].get(&r)) heap.push_back({r, static_cast<std::uint32_t>(i)});
  }
  std::make_heap(heap.begin(), heap.end(), heap_after);
  SortRecord* out = buffer_.data() + group.size() * share;
  std::uint64_t out_length = 0;
  auto flush = [&] {
    to.write_all(out, out_length * sizeof(SortRecord), to_offset);
    bytes_written_ += out_length * sizeof(SortRecord);
    to_offset += out_length * sizeof(SortRecord);
    out_length = 0;
  };
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), heap_after);
    auto [record, source] = heap.back();
    heap.pop_back();
    out[out_length++] = record;
    if (out_length == share) flush();
    SortRecord r;
    if (cursors[source].get(&r)) {
      heap.push_back({r, source});
      std::push_heap(heap.begin(), heap.end(), heap_after);
    }
  }
  flush();
}

void ExternalSorter::finish() {
  if (finished_) return;
  finished_ = true;
  if (runs_.empty()) {
    std::sort(buffer_.begin(), buffer_.end());
    memory_position_ = 0;
    return;
  }
  spill();
  // Fan-in: runs whose 64 KiB buffers (plus one output buffer) fit in the reservation.
  const std::uint64_t run_buffer =
      std::min(kRunBufferMaxBytes, std::max(kRunBufferMinBytes, reservation_.bytes() / 16));
  const std::uint64_t fan_in = std::max<std::uint64_t>(2, reservation_.bytes() / run_buffer - 1);
  while (runs_.size() > fan_in + 1) {
    if (!other_.is_open()) other_ = PosixFile(path_ + ".2", PosixFile::Mode::CreateReadWrite);
    std::vector<Run> merged;
    std::uint64_t offset = 0;
    for (std::size_t first = 0; first < runs_.size(); first += fan_in) {
      std::vector<Run> group(runs_.begin() + static_cast<std::ptrdiff_t>(first),
                             runs_.begin() + static_cast<std::ptrdiff_t>(std::min(runs_.size(), first + fan_in)));
      std::uint64_t count = 0;
      for (const Run& r : group) count += r.count;
      merge_group(file_, group, other_, offset);
      merged.push_back(Run{offset, count});
      offset += count * sizeof(SortRecord);
    }
    std::swap(file_, other_);
    runs_ = std::move(merged);
  }
  open_final_merge();
}

void ExternalSorter::open_final_merge() {
  buffer_.resize(capacity_);
  const std::uint64_t share = capacity_ / runs_.size();
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    auto cursor = std::make_unique<Cursor>(
        Cursor{&file_, runs_[i].offset, runs_[i].count, buffer_.data() + i * share, share, 0, 0, &bytes_read_});
    SortRecord r;
    if (cursor->get(&r)) heap_.push_back({r, static_cast<std::uint32_t>(i)});
    cursors_.push_back(std::move(cursor));
  }
  std::make_heap(heap_.begin(), heap_.end(), heap_after);
}

bool ExternalSorter::next(SortRecord* record) {
  if (!finished_) throw Error("internal error: ExternalSorter::next before finish");
  if (runs_.empty()) {
    if (memory_position_ == buffer_.size()) return false;
    *record = buffer_[memory_position_++];
    return true;
  }
  if (heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), heap_after);
  auto [top, source] = heap_.back();
  heap_.pop_back();
  *record = top;
  SortRecord r;
  if (cursors_[source]->get(&r)) {
    heap_.push_back({r, source});
    std::push_heap(heap_.begin(), heap_.end(), heap_after);
  }
  return true;
}

}  // namespace terrazo
