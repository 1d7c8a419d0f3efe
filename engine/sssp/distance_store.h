// engine/sssp/distance_store.h: the per-run, on-disk state of the SSSP pipeline (docs/sssp.md).
//
// One file in the run directory with one fixed slot per tile (slot = tile index ty * tiles_x + tx):
//   interior  dist[t*t] u64, then (labelled runs) source[t*t] u32 and hops[t*t] u32, row-major;
//   ring      4t+4 RingCell entries: the labels and cell values of the one-cell ring around the
//             tile (the block solver's halo, kernels/sssp/block_sssp.h) as pushed by the neighbours.
// Ring order (each side contiguous, so a neighbour's push is one read-modify-write):
//   [0, t+2)        top row     halo (hx, 0),   hx = 0..t+1
//   [t+2, 2t+4)     bottom row  halo (hx, t+1), hx = 0..t+1
//   [2t+4, 3t+4)    left column halo (0, hy),   hy = 1..t
//   [3t+4, 4t+4)    right column halo (t+1, hy), hy = 1..t
// Distances are stored bit-complemented, so bytes never written (a sparse file's holes) read as
// kUnreached with source and hops 0: a tile no source reaches costs no disk space and no reads (a
// bitmap in memory says which slots were ever written; absent slots are not read at all).
// Memory: two bits per tile (tile_count / 4 bytes), reserved from the budget; I/O goes through
// caller buffers with pread/pwrite. The file is removed when the store is destroyed.
// release(tile) gives a slot's disk space back (a punched hole, read as unreached afterwards): the
// final pass releases each tile once its outputs are written, so the store shrinks while the
// output rasters grow and the run's disk peak is the store at the end of the exchange.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_budget.h"
#include "core/types.h"
#include "store/tile_store.h"

namespace terrazo {

struct RingCell {
  PathLength dist = kUnreached;
  double value = 0.0;  // the cell's value (meaningful where dist is finite)
  std::uint32_t source = 0;
  std::uint32_t hops = 0;
};
static_assert(sizeof(RingCell) == 24, "RingCell is stored as 24 bytes");

// Ring position of halo cell (hx, hy) of a t x t tile (one of hx, hy is 0 or t+1).
inline std::uint32_t ring_index(std::uint32_t t, std::uint32_t hx, std::uint32_t hy) {
  if (hy == 0) return hx;
  if (hy == t + 1) return t + 2 + hx;
  if (hx == 0) return 2 * t + 4 + (hy - 1);
  return 3 * t + 4 + (hy - 1);
}
// Halo coordinates of ring position r.
inline void ring_cell(std::uint32_t t, std::uint32_t r, std::uint32_t* hx, std::uint32_t* hy) {
  if (r < t + 2) { *hx = r; *hy = 0; return; }
  if (r < 2 * t + 4) { *hx = r - (t + 2); *hy = t + 1; return; }
  if (r < 3 * t + 4) { *hx = 0; *hy = r - (2 * t + 4) + 1; return; }
  *hx = t + 1;
  *hy = r - (3 * t + 4) + 1;
}

// Where the output phase (engine/sssp/output.h) reads the final labels: the DistanceStore, or the
// resident exchange's device memory (engine/sssp/resident_exchange.h) when its distances stay there.
class SsspLabelSource {
 public:
  virtual ~SsspLabelSource() = default;
  virtual const TileGrid& grid() const = 0;
  virtual bool labelled() const = 0;
  std::uint32_t ring_cells() const { return 4 * grid().tile + 4; }
  // False: every cell of the tile is unreached (no read needed).
  virtual bool interior_present(std::uint64_t tile) const = 0;
  // t*t each; source/hops only with labels (may be null otherwise). Absent: unreached, 0, 0.
  virtual void read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source, std::uint32_t* hops) = 0;
  // Ring positions [first, first + count) (labelled sources only).
  virtual void read_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, RingCell* out) = 0;
  // The tile is no longer needed (its storage may go).
  virtual void release(std::uint64_t tile) = 0;
  virtual std::uint64_t bytes_read() const = 0;
};

class DistanceStore final : public SsspLabelSource {
 public:
  DistanceStore(const std::string& path, const TileGrid& grid, bool labelled, MemoryBudget& budget);
  ~DistanceStore();
  DistanceStore(const DistanceStore&) = delete;
  DistanceStore& operator=(const DistanceStore&) = delete;

  const TileGrid& grid() const override { return grid_; }
  bool labelled() const override { return labelled_; }
  bool interior_present(std::uint64_t tile) const override { return interior_present_[tile]; }
  bool ring_present(std::uint64_t tile) const { return ring_present_[tile]; }
  std::uint64_t tiles_with_interior() const { return interior_count_; }

  // t*t each; source/hops only in labelled stores (may be null otherwise). Absent: unreached, 0, 0.
  void read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source, std::uint32_t* hops) override;
  void write_interior(std::uint64_t tile, const PathLength* dist, const std::uint32_t* source,
                      const std::uint32_t* hops);
  // Ring positions [first, first + count).
  void read_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, RingCell* out) override;
  void write_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, const RingCell* in);

  // Forgets the tile: its slot reads as never written (unreached) and its disk blocks are freed
  // (fallocate PUNCH_HOLE; where the file system cannot punch holes the bytes stay on disk, the
  // slot still reads as unreached).
  void release(std::uint64_t tile) override;

  std::uint64_t bytes_read() const override { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  // Disk space the slots written and not released take (upper bound).
  std::uint64_t bytes_on_disk() const;

 private:
  std::uint64_t slot_offset(std::uint64_t tile) const { return tile * slot_bytes_; }
  void pread_all(void* buffer, std::uint64_t bytes, std::uint64_t offset);
  void pwrite_all(const void* buffer, std::uint64_t bytes, std::uint64_t offset);

  std::string path_;
  TileGrid grid_;
  bool labelled_;
  int fd_ = -1;
  std::uint64_t cells_;       // t*t
  std::uint64_t ring_offset_; // within a slot
  std::uint64_t slot_bytes_;
  std::vector<bool> interior_present_, ring_present_;
  std::uint64_t interior_count_ = 0, ring_count_ = 0;
  std::vector<std::uint64_t> scratch_;  // complement buffer, t*t u64
  MemoryBudget::Reservation reservation_;
  std::uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace terrazo
