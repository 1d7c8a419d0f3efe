// engine/clump/region_stats.h: the per-region statistics of `terrazo clump --stats`
// (engine/clump/phases.h "stats"), gathered during phase 3 and streamed out in label order.
//
// Interior regions (complete in one tile) go to an ExternalSorter as 4 records each, key =
// label * 4 + field (0 cells, 1 value bits, 2 col_min << 32 | row_min, 3 col_max << 32 | row_max),
// so a region's fields come out together and in order. Border regions are accumulated per root in
// memory (bounding box 16 bytes + value 8 bytes per border region, reserved as "clump border
// region stats"), pushed to the sorter by finish(). Memory: the sorter's buffer + 24 bytes per
// border region. I/O: 64 bytes per region written and read once per sorter pass (none when no run spills).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "engine/clump/border_table.h"
#include "engine/clump/phases.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"
#include "io/store/external_sorter.h"

namespace terrazo {

class RegionStatsCollector {
 public:
  RegionStatsCollector(const std::string& path, std::uint64_t border_regions, MemoryBudget& budget,
                       std::uint64_t buffer_bytes);
  // A complete region: an interior one, or (external mode) a merged border region whose last row is done.
  void push_interior(const ClumpRegionStats& s);
  // Border region `j` (its root `root`) covers the box [c0, c1] x [r0, r1] with value `value`.
  void add_border(std::uint64_t root, std::uint32_t c0, std::uint32_t r0, std::uint32_t c1, std::uint32_t r1,
                  double value);
  // Pushes the roots (labels in table.root, cells in table.cells; none when the table is external:
  // construct with border_regions = 0 then), sorts, streams to `sink`.
  // `push_roots` false: the roots are another rank's to push (a distributed run's ranks other than 0).
  void finish(const BorderTable& table, ClumpStatsSink& sink, bool push_roots = true);
  // A distributed run (in-memory table, the same on every rank): every rank's boxes of the border
  // regions' roots combined (min and max over the ranks), and each root's value taken from the rank
  // that owns its last border region in tile order, the one whose value one process keeps.
  void combine_border_stats(Communicator& comm, const BorderTable& table, const TileOwnership& ownership,
                            std::uint64_t tiles);
  std::uint64_t bytes_read() const { return sorter_.bytes_read(); }
  std::uint64_t bytes_written() const { return sorter_.bytes_written(); }

 private:
  void push(const ClumpRegionStats& s);
  MemoryBudget::Reservation reservation_;
  std::vector<std::uint32_t> c0_, r0_, c1_, r1_;
  std::vector<double> value_;
  ExternalSorter sorter_;
};

}  // namespace terrazo
