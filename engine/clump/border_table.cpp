// engine/clump/border_table.cpp: BorderRecords and BorderTable (engine/clump/border_table.h).
#include "engine/clump/border_table.h"

#include <cstring>

#include <algorithm>

#include "kernels/common/error.h"

namespace terrazo {

BorderRecords::BorderRecords(const std::string& path, const TileGrid& grid)
    : file_(path, PosixFile::Mode::CreateReadWrite), t_(grid.tile), present_(grid.tile_count(), 0) {}

void BorderRecords::pack(const TileBorder& border, std::uint8_t* record) const {
  std::memcpy(record, border.ring.data(), 16ull * t_);
  std::memcpy(record + 48ull * t_, border.interior_starts_per_row.data(), 4ull * t_);
}

void BorderRecords::write_run(std::uint64_t first, std::uint64_t tiles, const std::uint8_t* records) {
  file_.write_all(records, tiles * record_bytes(), first * record_bytes());
  for (std::uint64_t i = 0; i < tiles; ++i) present_[first + i] = 1;
  bytes_written_ += tiles * record_bytes();
}

bool BorderRecords::read_ring(std::uint64_t tile, std::uint32_t* ring, double* keys) const {
  if (!present_[tile]) return false;
  const std::uint64_t offset = tile * record_bytes();
  file_.read_exact(ring, 16ull * t_, offset);
  file_.read_exact(keys, 32ull * t_, offset + 16ull * t_);
  __atomic_fetch_add(&bytes_read_, 48ull * t_, __ATOMIC_RELAXED);
  return true;
}

bool BorderRecords::read_starts(std::uint64_t tile, std::uint32_t* starts) const {
  if (!present_[tile]) return false;
  file_.read_exact(starts, 4ull * t_, tile * record_bytes() + 48ull * t_);
  __atomic_fetch_add(&bytes_read_, 4ull * t_, __ATOMIC_RELAXED);
  return true;
}

void BorderRecords::read_record(std::uint64_t tile, std::uint8_t* record) const {
  file_.read_exact(record, record_bytes(), tile * record_bytes());
  __atomic_fetch_add(&bytes_read_, record_bytes(), __ATOMIC_RELAXED);
}

BorderTable::BorderTable(MemoryBudget& budget, std::uint64_t tiles, std::string spill_path)
    : budget_(budget), spill_path_(std::move(spill_path)) {
  tiles_reservation_ = budget.reserve((tiles + 1) * 8 + tiles, "clump tile offsets and record flags");
  tile_offset.assign(tiles + 1, 0);
}

bool BorderTable::try_grow(std::uint64_t more) {
  const std::uint64_t need = size() + more;
  if (need <= capacity_) return true;
  const std::uint64_t capacity = std::max<std::uint64_t>({need, capacity_ * 2, 4096});
  // The new arrays are reserved before the old ones are given back (both live while copying).
  if (capacity * kBytesPerRegion > budget_.available()) return false;
  MemoryBudget::Reservation next = budget_.reserve(capacity * kBytesPerRegion, "clump border table");
  first.reserve(capacity);
  starts_before.reserve(capacity);
  cells.reserve(capacity);
  reservation_ = std::move(next);
  capacity_ = capacity;
  return true;
}

void BorderTable::go_external() {
  if (external_) return;
  // The arrays go to the file in chunks of 4096 regions (96 KiB, inside the arrays' unused parent
  // and root bytes); the buffer is reserved after the arrays are given back.
  spill_ = PosixFile(spill_path_, PosixFile::Mode::CreateReadWrite);
  roots_ = PosixFile(spill_path_ + ".roots", PosixFile::Mode::CreateReadWrite);
  const std::uint64_t n = first.size();
  external_ = true;
  external_count_ = 0;
  {
    std::vector<BorderRegion> chunk(std::min<std::uint64_t>(n, 4096));
    for (std::uint64_t at = 0; at < n; at += chunk.size()) {
      const std::uint64_t m = std::min<std::uint64_t>(chunk.size(), n - at);
      for (std::uint64_t i = 0; i < m; ++i) chunk[i] = BorderRegion{first[at + i], cells[at + i], starts_before[at + i], 0};
      spill_.write_all(chunk.data(), m * sizeof(BorderRegion), at * sizeof(BorderRegion));
      bytes_written_ += m * sizeof(BorderRegion);
    }
  }
  external_count_ = n;
  std::vector<std::uint64_t>().swap(first);
  std::vector<std::uint32_t>().swap(starts_before);
  std::vector<std::uint64_t>().swap(cells);
  reservation_.release();
  capacity_ = 0;
  spill_reservation_ = budget_.reserve_up_to(std::min(kSpillBufferBytes, budget_.available() / 4), 4096 * sizeof(BorderRegion), "clump border region spill buffer");
  spill_buffer_.reserve(spill_reservation_.bytes() / sizeof(BorderRegion));
}

void BorderTable::append_external(std::uint64_t first_cell, std::uint32_t before, std::uint64_t region_cells) {
  spill_buffer_.push_back(BorderRegion{first_cell, region_cells, before, 0});
  ++external_count_;
  if (spill_buffer_.size() == spill_buffer_.capacity()) flush();
}

void BorderTable::flush() {
  if (spill_buffer_.empty()) return;
  const std::uint64_t n = spill_buffer_.size();
  spill_.write_all(spill_buffer_.data(), n * sizeof(BorderRegion), (external_count_ - n) * sizeof(BorderRegion));
  bytes_written_ += n * sizeof(BorderRegion);
  spill_buffer_.clear();
}

void BorderTable::read_regions(std::uint64_t begin, std::uint64_t n, BorderRegion* out) const {
  if (!n) return;
  spill_.read_exact(out, n * sizeof(BorderRegion), begin * sizeof(BorderRegion));
  __atomic_fetch_add(&bytes_read_, n * sizeof(BorderRegion), __ATOMIC_RELAXED);  // the external merge's threads
}

void BorderTable::write_roots(std::uint64_t begin, std::uint64_t n, const std::uint64_t* roots) {
  if (!n) return;
  roots_.write_all(roots, n * 8, begin * 8);
  __atomic_fetch_add(&bytes_written_, n * 8, __ATOMIC_RELAXED);
}

void BorderTable::read_roots(std::uint64_t begin, std::uint64_t n, std::uint64_t* roots) const {
  if (!n) return;
  roots_.read_exact(roots, n * 8, begin * 8);
  __atomic_fetch_add(&bytes_read_, n * 8, __ATOMIC_RELAXED);
}

}  // namespace terrazo
