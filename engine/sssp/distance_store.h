// engine/sssp/distance_store.h: the per-run, on-disk state of the SSSP pipeline (docs/sssp.md).
//
// One file in the run directory with one fixed slot per tile (slot = tile index ty * tiles_x + tx):
//   interior  dist[t*t] u64, then (labelled runs) source[t*t] u32 and hops[t*t] u32, row-major;
//   ring      4t+4 RingCell entries: the labels and cell values of the one-cell ring around the
//             tile (the block solver's halo, kernels/sssp/block_sssp.h) as pushed by the neighbours
//             (8t+16 for the two-cell ring of 16 neighbours: ring_index below).
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
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/types.h"
#include "io/store/tile_store.h"

namespace terrazo {

struct RingCell {
  PathLength dist = kUnreached;
  double value = 0.0;  // the cell's value (meaningful where dist is finite)
  std::uint32_t source = 0;
  std::uint32_t hops = 0;
};
static_assert(sizeof(RingCell) == 24, "RingCell is stored as 24 bytes");

// Ring position of halo cell (hx, hy) of a t x t tile with a halo h cells wide, in the window's
// coordinates (0 <= hx, hy < t + 2h, outside the interior [h, t + h)^2). With s = t + 2h:
//   [0, h s)                top band     rows 0..h-1, row-major
//   [h s, 2 h s)            bottom band  rows t+h..t+2h-1, row-major
//   [2 h s, 2 h s + t h)    left band    rows h..t+h-1, columns 0..h-1, row-major
//   [2 h s + t h, 4ht+4h^2) right band   rows h..t+h-1, columns t+h..t+2h-1, row-major
// h = 1 is the layout above (the default); h = 2 with 16 neighbours (kernels/sssp/knight.h). What
// one neighbour pushes is one contiguous run (a side) or a run with gaps (a corner's h x h block).
inline std::uint32_t ring_cell_count(std::uint32_t t, std::uint32_t h = 1) { return 4 * h * t + 4 * h * h; }
inline std::uint32_t ring_index(std::uint32_t t, std::uint32_t hx, std::uint32_t hy, std::uint32_t h = 1) {
  const std::uint32_t s = t + 2 * h;
  if (hy < h) return hy * s + hx;
  if (hy >= t + h) return h * s + (hy - t - h) * s + hx;
  if (hx < h) return 2 * h * s + (hy - h) * h + hx;
  return 2 * h * s + t * h + (hy - h) * h + (hx - t - h);
}
// Halo coordinates of ring position r.
inline void ring_cell(std::uint32_t t, std::uint32_t r, std::uint32_t* hx, std::uint32_t* hy, std::uint32_t h = 1) {
  const std::uint32_t s = t + 2 * h;
  if (r < h * s) { *hx = r % s; *hy = r / s; return; }
  if (r < 2 * h * s) { r -= h * s; *hx = r % s; *hy = t + h + r / s; return; }
  r -= 2 * h * s;
  if (r < t * h) { *hx = r % h; *hy = h + r / h; return; }
  r -= t * h;
  *hx = t + h + r % h;
  *hy = h + r / h;
}

// Where the output phase (engine/sssp/output.h) reads the final labels: the DistanceStore, or the
// resident exchange's device memory (engine/sssp/resident_exchange.h) when its distances stay there.
class SsspLabelSource {
 public:
  virtual ~SsspLabelSource() = default;
  virtual const TileGrid& grid() const = 0;
  virtual bool labelled() const = 0;
  // The halo's width: 2 with 16 neighbours, else 1 (kernels/sssp/knight.h).
  virtual std::uint32_t halo() const { return 1; }
  std::uint32_t ring_cells() const { return ring_cell_count(grid().tile, halo()); }
  // False: every cell of the tile is unreached (no read needed).
  virtual bool interior_present(std::uint64_t tile) const = 0;
  // t*t each; source/hops only with labels (may be null otherwise). Absent: unreached, 0, 0.
  virtual void read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source, std::uint32_t* hops) = 0;
  // Host memory [dist, dist + cells) that read_interior will fill many times (the write phase's
  // slots): a device source may page-lock it to copy straight into it; (nullptr, 0) ends that.
  virtual void set_read_target(PathLength* /*dist*/, std::uint64_t /*cells*/) {}
  // Ring positions [first, first + count) (labelled sources only).
  virtual void read_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, RingCell* out) = 0;
  // The tile is no longer needed (its storage may go).
  virtual void release(std::uint64_t tile) = 0;
  virtual std::uint64_t bytes_read() const = 0;
};

class DistanceStore final : public SsspLabelSource {
 public:
  // halo: the ring's width (ring_index).
  DistanceStore(const std::string& path, const TileGrid& grid, bool labelled, MemoryBudget& budget,
                std::uint32_t halo = 1);
  ~DistanceStore();
  DistanceStore(const DistanceStore&) = delete;
  DistanceStore& operator=(const DistanceStore&) = delete;

  const TileGrid& grid() const override { return grid_; }
  bool labelled() const override { return labelled_; }
  std::uint32_t halo() const override { return halo_; }
  bool interior_present(std::uint64_t tile) const override { return interior_present_[tile]; }
  bool ring_present(std::uint64_t tile) const { return ring_present_[tile]; }
  std::uint64_t tiles_with_interior() const { return interior_count_; }

  // t*t each; source/hops only in labelled stores (may be null otherwise). Absent: unreached, 0, 0.
  // The reads (read_interior, read_ring) of distinct tiles may run on several threads at once, while
  // nothing writes or releases; writes and releases are one thread's.
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
  std::uint32_t halo_;
  int fd_ = -1;
  std::uint64_t cells_;       // t*t
  std::uint64_t ring_offset_; // within a slot
  std::uint64_t slot_bytes_;
  std::vector<bool> interior_present_, ring_present_;
  std::uint64_t interior_count_ = 0, ring_count_ = 0;
  std::vector<std::uint64_t> scratch_;  // complement buffer, t*t u64
  MemoryBudget::Reservation reservation_;
  std::atomic<std::uint64_t> bytes_read_{0};  // reads of distinct tiles may run on several threads
  std::uint64_t bytes_written_ = 0;
};

}  // namespace terrazo
