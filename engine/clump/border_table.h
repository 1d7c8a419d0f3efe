// engine/clump/border_table.h: what the phases of `terrazo clump` share (engine/clump/phases.h):
//  - BorderRecords: the scratch file of per-tile border records, one fixed-size record per tile of
//    the grid at (row-major tile index) x record_bytes, written by phase 1, read by phases 2 and 3:
//      ring   u32[4t]  border index of each ring cell (kernels/clump/label_tile.h ring order), or kNoRegion
//      keys   f64[4t]  the ring cells' keys (NaN: no region)
//      starts u32[t]   interior regions whose first cell lies in row ly
//    52 t bytes per tile; tiles that are absent from the input have no record (read as empty).
//  - BorderTable: the border regions of all tiles, in memory, 36 bytes each + 8 per tile, reserved
//    from the budget as it grows ("clump border table"); an Error naming the count when it does not fit.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/memory_budget.h"
#include "kernels/clump/label_tile.h"
#include "store/posix_file.h"
#include "store/tile_store.h"

namespace terrazo {

class BorderRecords {
 public:
  BorderRecords(const std::string& path, const TileGrid& grid);
  std::uint64_t record_bytes() const { return 52ull * t_; }
  // Thread-safe (disjoint records).
  void write(std::uint64_t tile, const TileBorder& border, const double* ring_keys);
  // ring (4t) and keys (4t); false (and nothing read) for a tile without a record.
  bool read_ring(std::uint64_t tile, std::uint32_t* ring, double* keys) const;
  bool read_starts(std::uint64_t tile, std::uint32_t* starts) const;  // t
  void mark_present(std::uint64_t tile) { present_[tile] = 1; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  PosixFile file_;
  std::uint32_t t_;
  std::vector<char> present_;  // written by phase 1 (one byte per tile, in the table's reservation)
  mutable std::uint64_t bytes_read_ = 0;
  std::uint64_t bytes_written_ = 0;
};

struct BorderTable {
  static constexpr std::uint64_t kBytesPerRegion = 36;  // first 8, starts_before 4, cells 8, parent 8, root 8
  static constexpr std::uint64_t kOwner = 1ull << 63;   // in parent[] after phase 2: this region holds the first cell

  explicit BorderTable(MemoryBudget& budget, std::uint64_t tiles);
  // Room for `more` border regions (reserving from the budget first); throws Error when it does not fit.
  void grow(std::uint64_t more);
  std::vector<std::uint64_t> tile_offset;    // tiles + 1: border regions of tile i are [offset[i], offset[i+1])
  std::vector<std::uint64_t> first;          // global cell id of the region's first cell in its tile
  std::vector<std::uint32_t> starts_before;  // TileBorder::starts_before
  std::vector<std::uint64_t> cells;          // cells in its tile
  std::vector<std::uint64_t> parent;         // phase 2: root (| kOwner)
  std::vector<std::uint64_t> root;           // at roots: phase 2 the merged first cell, phase 3 the label
  std::uint64_t size() const { return first.size(); }

 private:
  MemoryBudget& budget_;
  MemoryBudget::Reservation tiles_reservation_, reservation_;
  std::uint64_t capacity_ = 0;
};

}  // namespace terrazo
