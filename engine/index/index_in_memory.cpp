// engine/index/index_in_memory.cpp: IndexInMemory (engine/index/index_in_memory.h).
#include "engine/index/index_in_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"

namespace terrazo {

IndexInMemory::IndexInMemory(const TileGrid& grid, MemoryBudget* budget, std::uint64_t capacity)
    : grid_(grid), budget_(budget), offset_(grid.tile_count(), 0), width_(grid.tile_count(), 0) {
  // Room for every tile of the grid with 8-byte entries, or the budget's whole (the reservations keep
  // the records within it), or what the caller says: address space only until written.
  capacity_ = capacity ? capacity : bytes_for(grid.tile, grid.tile_count(), 8);
  if (budget) capacity_ = std::min(capacity_, budget->total());
  if (capacity_ == 0) return;
  void* p = ::mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)  // (a BudgetError: the transient index then takes a file)
    throw BudgetError("index in memory: cannot map " + MemoryBudget::format_size(capacity_) + " of address space");
#ifdef MADV_HUGEPAGE
  ::madvise(p, capacity_, MADV_HUGEPAGE);  // advice only: fewer TLB misses where the kernel grants it
#endif
  base_ = static_cast<unsigned char*>(p);
}

IndexInMemory::~IndexInMemory() {
  if (base_) ::munmap(base_, capacity_);
}

std::uint64_t IndexInMemory::bytes_for(std::uint32_t t, std::uint64_t present, std::uint32_t width) {
  return present * index_record_bytes(t, width);
}

std::uint64_t IndexInMemory::bytes_of(const IndexFile& index) {
  std::uint64_t bytes = 0;
  const std::uint64_t tiles = index.header().grid().tile_count();
  for (std::uint64_t tile = 0; tile < tiles; ++tile)
    if (index.entry(tile).offset != 0) bytes += index.entry(tile).bytes;
  return bytes;
}

unsigned char* IndexInMemory::append(std::uint64_t tile_index, std::uint32_t width) {
  if (width != 4 && width != 8) throw Error("index record of entry width " + std::to_string(width));
  if (width_.at(tile_index) != 0) throw Error("index in memory: tile " + std::to_string(tile_index) + " written twice");
  const std::uint64_t bytes = index_record_bytes(grid_.tile, width);
  if (used_ + bytes > capacity_) {
    if (budget_) throw BudgetError("memory budget too small for the index in memory: its records pass " + MemoryBudget::format_size(capacity_));
    throw Error("index in memory: more records than room");
  }
  if (budget_ && used_ + bytes > reserved_bytes_) {
    // Steps of up to 64 MiB (a sixteenth of what is left when that is less), at least this record.
    const std::uint64_t chunk = std::min<std::uint64_t>(64ull << 20, std::max<std::uint64_t>(1ull << 20, budget_->available() / 16));
    const std::uint64_t step = std::max<std::uint64_t>(chunk, used_ + bytes - reserved_bytes_);
    reserved_.push_back(budget_->reserve(step, "od-matrix index in memory"));
    reserved_bytes_ += step;
  }
  offset_[tile_index] = used_;
  width_[tile_index] = static_cast<std::uint8_t>(width);
  used_ += bytes;
  ++present_;
  return base_ + offset_[tile_index];
}

void IndexInMemory::write_record(std::uint64_t tile_index, const IndexRecord& record, std::uint32_t) {
  if (record.bytes.size() != index_record_bytes(grid_.tile, record.width))
    throw Error("index record of " + std::to_string(record.bytes.size()) + " bytes for a tile of " + std::to_string(grid_.tile));
  std::memcpy(append(tile_index, record.width), record.bytes.data(), record.bytes.size());
}

std::unique_ptr<IndexInMemory> IndexInMemory::load(const IndexFile& index, unsigned threads) {
  auto memory = std::make_unique<IndexInMemory>(index.header().grid(), nullptr, std::max<std::uint64_t>(1, bytes_of(index)));
  const std::uint64_t tiles = memory->grid_.tile_count();
  std::vector<std::pair<std::uint64_t, std::uint64_t>> present;  // (file offset, tile): the file's order
  for (std::uint64_t tile = 0; tile < tiles; ++tile)
    if (index.entry(tile).offset != 0) present.emplace_back(index.entry(tile).offset, tile);
  std::sort(present.begin(), present.end());
  std::vector<unsigned char*> at(present.size());
  for (std::uint64_t i = 0; i < present.size(); ++i) {
    const IndexTileEntry& e = index.entry(present[i].second);
    if (index_record_bytes(index.header().tile, e.width) != e.bytes)  // (before its room: the read fills e.bytes)
      throw Error("index tile " + std::to_string(present[i].second) + ": bad record size");
    at[i] = memory->append(present[i].second, e.width);
  }
  WorkerPool pool(std::max(1u, threads));
  pool.run(present.size(), [&](std::uint64_t i) { index.read_record(present[i].second, at[i]); });
  return memory;
}

}  // namespace terrazo
