// engine/clump/border_table.cpp: BorderRecords and BorderTable (engine/clump/border_table.h).
#include "engine/clump/border_table.h"

#include <algorithm>

#include "core/error.h"

namespace terrazo {

BorderRecords::BorderRecords(const std::string& path, const TileGrid& grid)
    : file_(path, PosixFile::Mode::CreateReadWrite), t_(grid.tile), present_(grid.tile_count(), 0) {}

void BorderRecords::write(std::uint64_t tile, const TileBorder& border, const double* ring_keys) {
  const std::uint64_t offset = tile * record_bytes();
  file_.write_all(border.ring.data(), 16ull * t_, offset);
  file_.write_all(ring_keys, 32ull * t_, offset + 16ull * t_);
  file_.write_all(border.interior_starts_per_row.data(), 4ull * t_, offset + 48ull * t_);
  present_[tile] = 1;
  __atomic_fetch_add(&bytes_written_, record_bytes(), __ATOMIC_RELAXED);
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

BorderTable::BorderTable(MemoryBudget& budget, std::uint64_t tiles) : budget_(budget) {
  tiles_reservation_ = budget.reserve((tiles + 1) * 8 + tiles, "clump tile offsets and record flags");
  tile_offset.assign(tiles + 1, 0);
}

void BorderTable::grow(std::uint64_t more) {
  const std::uint64_t need = size() + more;
  if (need <= capacity_) return;
  const std::uint64_t capacity = std::max<std::uint64_t>({need, capacity_ * 2, 4096});
  MemoryBudget::Reservation next;
  try {
    // The new arrays are reserved before the old ones are given back (both live while copying).
    next = budget_.reserve(capacity * kBytesPerRegion, "clump border table");
  } catch (const BudgetError& e) {
    throw BudgetError("clump: the border-region table (" + std::to_string(kBytesPerRegion) +
                " bytes per region touching a tile's edge) needs " + MemoryBudget::format_size(need * kBytesPerRegion) +
                " for " + std::to_string(need) + " border regions and does not fit in the budget (" + e.what() +
                "); give a larger --memory or a larger --tile (docs/clump.md \"Memory\")");
  }
  first.reserve(capacity);
  starts_before.reserve(capacity);
  cells.reserve(capacity);
  reservation_ = std::move(next);
  capacity_ = capacity;
}

}  // namespace terrazo
