// engine/clump/border_table.h: what the phases of `terrazo clump` share (engine/clump/phases.h):
//  - BorderRecords: the scratch file of per-tile border records, one fixed-size record per tile of
//    the grid at (row-major tile index) x record_bytes, written by phase 1, read by phases 2 and 3:
//      ring   u32[4t]  border index of each ring cell (kernels/clump/label_tile.h ring order), or kNoRegion
//      keys   f64[4t]  the ring cells' keys (NaN: no region)
//      starts u32[t]   interior regions whose first cell lies in row ly
//    52 t bytes per tile; tiles that are absent from the input have no record (read as empty).
//  - BorderTable: the border regions of all tiles, in tile order, 36 bytes each in memory + 9 per
//    tile, reserved from the budget as it grows ("clump border table"). When the next tile's regions
//    do not fit (or ClumpPhaseOptions::external_merge asks for it), the table goes *external*: every
//    region so far is written to a spill file (BorderRegion, 24 bytes each) and its memory given
//    back; later regions are appended there through a buffer of min(1 MiB, a quarter of what is left) (96 KiB at least), and phase 2 merges them with the
//    external 2x2 hierarchy (engine/clump/phase2_external_merge.h), which writes each region's root
//    (the global id of its merged region's first cell, u64) to a second file that phase 3 streams a
//    tile row at a time. The tile offsets stay in memory in both modes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/clump/label_tile.h"
#include "io/store/posix_file.h"
#include "io/store/tile_store.h"

namespace terrazo {

class BorderRecords {
 public:
  BorderRecords(const std::string& path, const TileGrid& grid);
  std::uint64_t record_bytes() const { return 52ull * t_; }
  // A tile's record built in memory (record_bytes() at `record`, 8-byte aligned): the ring and the
  // per-row starts from `border`; the caller puts the ring's 4t keys at ring_keys(record).
  // Thread-safe. Then write_run stores the records of `tiles` consecutive tiles from `first` with
  // one write (one write a batch: the pool's threads each writing their tiles' records would queue
  // on the file's lock, 0.27 s of phase 1 at 1 G cells on 16 threads).
  void pack(const TileBorder& border, std::uint8_t* record) const;
  double* ring_keys(std::uint8_t* record) const { return reinterpret_cast<double*>(record + 16ull * t_); }
  void write_run(std::uint64_t first, std::uint64_t tiles, const std::uint8_t* records);
  // ring (4t) and keys (4t); false (and nothing read) for a tile without a record.
  bool read_ring(std::uint64_t tile, std::uint32_t* ring, double* keys) const;
  bool read_starts(std::uint64_t tile, std::uint32_t* starts) const;  // t
  void mark_present(std::uint64_t tile) { present_[tile] = 1; }
  bool present(std::uint64_t tile) const { return present_[tile] != 0; }
  // A present tile's whole record (record_bytes()), as write_run stores it (a distributed run's
  // exchange, engine/clump/distributed_borders.h).
  void read_record(std::uint64_t tile, std::uint8_t* record) const;
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  PosixFile file_;
  std::uint32_t t_;
  std::vector<char> present_;  // written by phase 1 (one byte per tile, in the table's reservation)
  mutable std::uint64_t bytes_read_ = 0;
  std::uint64_t bytes_written_ = 0;
};

// One border region on the spill file (external mode).
struct BorderRegion {
  std::uint64_t first = 0;          // global cell id of its first cell in its tile
  std::uint64_t cells = 0;          // cells in its tile
  std::uint32_t starts_before = 0;  // TileBorder::starts_before
  std::uint32_t unused = 0;
};
static_assert(sizeof(BorderRegion) == 24, "BorderRegion is the spill file's record");

struct BorderTable {
  static constexpr std::uint64_t kBytesPerRegion = 36;  // first 8, starts_before 4, cells 8, parent 8, root 8
  static constexpr std::uint64_t kOwner = 1ull << 63;   // in parent[] after phase 2: this region holds the first cell

  static constexpr std::uint64_t kSpillBufferBytes = 1ull << 20;

  // `spill_path`: the external mode's region file (its root file is spill_path + ".roots").
  BorderTable(MemoryBudget& budget, std::uint64_t tiles, std::string spill_path);
  // Room for `more` border regions in memory (reserving from the budget first); false, and nothing
  // changed, when they do not fit.
  bool try_grow(std::uint64_t more);
  // External mode from now on: the regions so far to the spill file, the in-memory arrays freed.
  void go_external();
  bool external() const { return external_; }
  // External mode: appends one region (buffered); flush() before reading.
  void append_external(std::uint64_t first, std::uint32_t starts_before, std::uint64_t cells);
  void flush();
  // External mode: regions [begin, begin + n) of the spill file; their roots (written by phase 2).
  // Safe from several threads at once on distinct or equal ranges (positioned reads and writes).
  void read_regions(std::uint64_t begin, std::uint64_t n, BorderRegion* out) const;
  void write_roots(std::uint64_t begin, std::uint64_t n, const std::uint64_t* roots);
  void read_roots(std::uint64_t begin, std::uint64_t n, std::uint64_t* roots) const;
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

  std::vector<std::uint64_t> tile_offset;    // tiles + 1: border regions of tile i are [offset[i], offset[i+1])
  std::vector<std::uint64_t> first;          // global cell id of the region's first cell in its tile
  std::vector<std::uint32_t> starts_before;  // TileBorder::starts_before
  std::vector<std::uint64_t> cells;          // cells in its tile
  std::vector<std::uint64_t> parent;         // phase 2: root (| kOwner)
  std::vector<std::uint64_t> root;           // at roots: phase 2 the merged first cell, phase 3 the label
  std::uint64_t size() const { return external_ ? external_count_ : first.size(); }

 private:
  MemoryBudget& budget_;
  MemoryBudget::Reservation tiles_reservation_, reservation_, spill_reservation_;
  std::uint64_t capacity_ = 0;
  std::string spill_path_;
  bool external_ = false;
  std::uint64_t external_count_ = 0;
  PosixFile spill_, roots_;
  std::vector<BorderRegion> spill_buffer_;
  mutable std::uint64_t bytes_read_ = 0;
  std::uint64_t bytes_written_ = 0;
};

}  // namespace terrazo
