// engine/sssp/source_groups.h: per-source settings (multiplier, maximum cost) by groups of sources:
// each group's pass of the pipeline writes its per-tile results to a scratch file
// (SsspGroupScratch, a result sink), and merge_source_groups takes, cell by cell, the smallest
// (dist, source id) over the groups and hands the merged tiles to the real sink (the GeoTIFF writers).
//
// Source: docs/sssp.md "Per-source settings" (the semantics and the proof of exactness).
// Contract: every group's dist is in the same fixed point (the run's scale; a group's multiplier
// scales its weights, not its distances), so the merge compares exact integers: the merged label of
// a cell is the lexicographic minimum of (dist, source) over the groups, ties (equal pairs) to the
// earlier group; the backlink is the winning group's. Unreached (kUnreached) in every group stays
// unreached.
// Disk: per group, one slot per tile the group reached: 8 (dist) + 4 (with source ids) + 1 (with
// backlinks) bytes per cell, in a sparse file of the run directory; tiles a group did not reach are
// never written nor read. Memory: a bitmap of written tiles per group (tiles / 8 bytes) while it
// exists; one tile of the slot's layout while a pass writes; two tiles while merging, all reserved.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/sssp/output.h"
#include "io/store/posix_file.h"
#include "io/store/tile_store.h"

namespace terrazo {

class SsspGroupScratch : public SsspResultSink {
 public:
  SsspGroupScratch(const std::string& path, const TileGrid& grid, bool sources, bool backlinks, MemoryBudget& budget);
  // The tile buffer is reserved while the pass writes; release it when the pass is done.
  void finish_writing();
  void write_tile(const SsspTileResult& tile) override;

  const TileGrid& grid() const { return grid_; }
  bool has_tile(std::uint64_t tile) const { return written_[tile]; }
  // Cells of a tile written (row pitch `width` of the tile's window), into the caller's arrays.
  void read_tile(std::uint64_t tile, std::uint32_t width, std::uint32_t height, PathLength* dist,
                 std::uint32_t* source, std::uint8_t* backlink);
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t bytes_on_disk() const { return tiles_written_ * slot_bytes_; }

 private:
  TileGrid grid_;
  bool sources_, backlinks_;
  std::uint64_t slot_bytes_ = 0;
  PosixFile file_;
  std::vector<bool> written_;
  std::vector<char> buffer_;
  MemoryBudget::Reservation bitmap_, tile_;
  std::uint64_t bytes_read_ = 0, bytes_written_ = 0, tiles_written_ = 0;
};

struct SourceGroupMergeStats {
  std::uint64_t reached_cells = 0;
  PathLength max_dist = 0;
};

// Merges the groups' scratch files (same grid and arrays) tile by tile in raster order into `sink`
// (set_slots(1), then prepare_tile and write_tile per tile). Progress phase "sssp: merge".
SourceGroupMergeStats merge_source_groups(std::vector<std::unique_ptr<SsspGroupScratch>>& groups, SsspResultSink& sink,
                                          MemoryBudget& budget, Progress& progress);

}  // namespace terrazo
