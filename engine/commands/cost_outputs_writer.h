// engine/commands/cost_outputs_writer.h: the GeoTIFF outputs of `terrazo sssp` (engine/commands/sssp.h), written tile by
// tile as an SsspResultSink (engine/sssp/output.h): the cost raster (Float64 or --ot Float32, dist /
// scale, nodata -1 where unreached), the backlink raster (Byte, kNoBacklink = 255 where none) and the
// allocation raster (UInt32, nodata 0 where unreached), each only when its path is set, each into
// its output of the run's OutputSet (io/store/output_set.h: finish() closes them, the run publishes
// them together). The single-pass run (engine/commands/sssp_pass.cpp) and the per-source group merge
// (engine/commands/sssp_groups.cpp) write through it.
// Memory: a GDAL block cache of 4 blocks per output (16 MiB at least) and, per slot, a window of a
// tile's cells of each output (8 bytes for costs and allocations, 1 for backlinks), reserved from the
// budget ("sssp output windows").
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/commands/sssp.h"
#include "kernels/common/huge_buffer.h"
#include "kernels/common/memory_budget.h"
#include "engine/sssp/output.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/output_set.h"
#include "io/store/raster_info.h"

namespace terrazo {

class CostOutputsWriter : public SsspResultSink {
 public:
  // The GDAL block cache of the writers: 4 blocks per output, 16 MiB at least; 0 without outputs.
  static std::uint64_t cache_bytes(const SsspOptions& options, const TileGrid& grid);
  // One slot's windows: a tile of each output's cells (8 bytes for costs and allocations, 1 for backlinks).
  static std::uint64_t window_bytes(const SsspOptions& options, const TileGrid& grid);
  // What the writers reserve up front: the cache and one slot of windows.
  static std::uint64_t reserved_bytes(const SsspOptions& options, const TileGrid& grid);

  // The bytes that give each output's block writer an encoder per core beyond the cache's minimum
  // (planned as a part the budget may cut: fewer encoders, never a broken promise).
  static std::uint64_t encoder_bytes(const SsspOptions& options, const TileGrid& grid);
  // `outputs` holds an output for each path of options.output, .backlink and .allocation that is set;
  // `encoders`: the bytes the plan gave the encoders (added to the GDAL cache limit).
  CostOutputsWriter(const SsspOptions& options, OutputSet& outputs, const RasterInfo& info, const TileGrid& grid,
                    double scale, MemoryBudget& budget, std::uint64_t encoders = 0);

  std::uint64_t slot_bytes() const override { return window_bytes_; }
  void set_slots(unsigned count) override;
  // The cells of each output, converted on the output phase's worker threads.
  void prepare_tile(const SsspTileResult& r) override;
  void write_tile(const SsspTileResult& r) override;
  // Writes and closes every output (unpublished); returns the bytes they hold.
  std::uint64_t finish();

 private:
  struct Slot {  // each window written in full by prepare_tile before write_tile reads it
    double* cost = nullptr;        // in cost_cells_
    double* allocation = nullptr;  // in allocation_cells_
    std::uint8_t* bytes = nullptr; // in byte_cells_
    std::vector<std::uint8_t> cost_block;  // the cost tile as its GeoTIFF block, when cost_blocks_
  };
  // The cost cells of `r` as one block of the cost raster's type T (the tile is the block): what the
  // block writer's conversion makes of the window (NaN and padding -1, a value T cannot hold an Error).
  template <typename T>
  void fill_cost_block(const SsspTileResult& r, std::vector<std::uint8_t>& block) const;
  // The slots' windows, one buffer of each kind for all slots (kernels/common/huge_buffer.h: a few windows of
  // 256^2 cells share huge pages instead of faulting 4 KiB pages each).
  HugeBuffer<double> cost_cells_, allocation_cells_;
  HugeBuffer<std::uint8_t> byte_cells_;
  double scale_;
  std::size_t cells_;
  std::uint64_t window_bytes_;
  MemoryBudget& budget_;
  std::vector<Slot> slots_;
  std::unique_ptr<GdalCacheLimit> cache_;
  MemoryBudget::Reservation buffers_, more_buffers_;
  std::unique_ptr<GeoTiffWriter> cost_, backlink_, allocation_;
  CellType cost_type_ = CellType::Float64;
  std::uint32_t block_ = 0;
  bool cost_blocks_ = false;  // tiles are the cost raster's blocks and its writer takes whole blocks
};

}  // namespace terrazo
