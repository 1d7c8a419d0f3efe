// engine/index/index_in_memory.h: an index held in memory in the file's compact form (per present tile
// its record: B ring values, then the upper triangle of the boundary matrix in 4 or 8 bytes an entry;
// io/store/index_file.h), for the CPU sweep of od-matrix (engine/index/gprime_sweep.h).
// Filled by the index build (it is an IndexRecordSink: od-matrix's transient index on the CPU, no file
// written) or from an index file (every record read once, checksums checked).
// Layout: the records back to back in the order they come (the build's Z-order, the file's order), in
// one mapping of the worst case's size (8-byte entries, at most the budget's total) of which only the
// pages written are resident, advised into huge pages: the sweep reads a tile's triangle at each solve, and its
// neighbours' records lie close by.
// Memory: the records' bytes and 16 bytes per grid tile. With a budget, the records' bytes are reserved
// as they come, in steps of up to 64 MiB (BudgetError when the budget cannot hold the next record).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/index/boundary_ring.h"
#include "io/store/index_file.h"

namespace terrazo {

class IndexInMemory : public IndexRecordSink {
 public:
  // budget: reserves the records' bytes as they come (null: the caller has reserved them), and bounds
  // the mapping. capacity: the mapping's bytes (0: every tile of the grid with 8-byte entries).
  IndexInMemory(const TileGrid& grid, MemoryBudget* budget, std::uint64_t capacity = 0);
  ~IndexInMemory() override;
  IndexInMemory(const IndexInMemory&) = delete;
  IndexInMemory& operator=(const IndexInMemory&) = delete;
  // Every present tile's record of `index`, read on `threads` threads (the caller reserves bytes_of).
  static std::unique_ptr<IndexInMemory> load(const IndexFile& index, unsigned threads);
  // Bytes of the records of `present` tiles of side t with entries of `width` bytes.
  static std::uint64_t bytes_for(std::uint32_t t, std::uint64_t present, std::uint32_t width);
  // Bytes of the records of `index` (the table's sizes).
  static std::uint64_t bytes_of(const IndexFile& index);

  void write_record(std::uint64_t tile_index, const IndexRecord& record, std::uint32_t values_crc) override;
  void set_values_crc(std::uint64_t, std::uint32_t) override {}

  const TileGrid& grid() const { return grid_; }
  bool present(std::uint64_t tile) const { return width_[tile] != 0; }
  std::uint32_t width(std::uint64_t tile) const { return width_[tile]; }  // 4 or 8 (0: absent)
  const double* ring(std::uint64_t tile) const { return reinterpret_cast<const double*>(base_ + offset_[tile]); }
  // The triangle (std::uint32_t or PathLength entries by width()).
  const void* triangle(std::uint64_t tile) const { return base_ + offset_[tile] + ring_size(grid_.tile) * 8ull; }
  std::uint64_t present_tiles() const { return present_; }
  std::uint64_t bytes() const { return used_; }

 private:
  unsigned char* append(std::uint64_t tile_index, std::uint32_t width);
  TileGrid grid_;
  MemoryBudget* budget_ = nullptr;
  std::vector<MemoryBudget::Reservation> reserved_;
  std::uint64_t reserved_bytes_ = 0;
  unsigned char* base_ = nullptr;
  std::uint64_t capacity_ = 0, used_ = 0;
  std::vector<std::uint64_t> offset_;
  std::vector<std::uint8_t> width_;
  std::uint64_t present_ = 0;
};

}  // namespace terrazo
