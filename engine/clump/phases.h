// engine/clump/phases.h: connected regions of a raster's grid graph, out of core (`terrazo clump`,
// docs/clump.md). GDAL-free: reads a TileInput, writes label windows to a ClumpWindowSink.
//
// Contract: labels[c] for every cell c = y*W + x of the raster:
//   0 where the cell's key is NaN (nodata; outside [lo, hi] for --by range);
//   else 1..K, one number per connected region of the 4- or 8-connected grid graph whose edges join
//   neighbours with equal keys, numbered in row-major order of each region's first cell (its
//   smallest cell id). Keys (ClumpBy): value = the cell's value (exact `==` on the doubles the
//   store yields, so -0 == +0), valid = 0 for every valid cell, range = 0 for cells in [lo, hi].
//   The labels are a function of the raster alone: the same for every tile size, thread count and
//   budget. Plain formula (the tests' oracle): flood fill from each unlabelled cell in row-major order.
// Phases (Progress names in quotes):
//   1 "clump: tile labels"  engine/clump/phase1_tile_labels.h: label_tile per tile (kernels/clump/),
//     each tile's border record (ring regions and keys, per-row counts) to a scratch file, the
//     border regions to the in-memory BorderTable;
//   2 "clump: merge"        engine/clump/phase2_border_merge.h: union-find over the border regions,
//     joined across every seam and corner of adjacent tiles; each merged region's first cell; or,
//     when the border table did not fit the budget (BorderTable::external()),
//     engine/clump/phase2_external_merge.h: the same up a 2x2 hierarchy of tile groups, on disk;
//   3 "clump: relabel"      engine/clump/phase3_relabel.h: per tile row, the final numbers of the
//     first cells from per-row counts, then each tile relabelled and written in raster order;
//   4 "clump: stats"        engine/clump/region_stats.h (with a ClumpStatsSink only).
// Phases 1 and 3 label tiles through one tile solver (make_clump_tile_solver, made once per run for
// options.device: label_tile_cpu on the pool, or the CUDA twin; the same labels bit for bit).
// Memory (reserved from the budget before allocation; docs/clump.md "Memory"): the tile solver
// (16 t^2 per thread on the CPU; pinned batches on the GPU), per thread 16 t^2 of border scratch,
// per tile of a batch 160 t (phase 1) or 12 t^2 + 160 t (phase 3) bytes; the BorderTable: 36 bytes per border region
// + 9 per tile, or external (spill file, O(tiles) in memory) when that does not fit; phase 2: 96 W
// bytes of rings (external: O(W + H), phase2_external_merge.h);
// phase 3: 12 W bytes of row counts; --stats: see run_clump_phases.
// Errors: more than 2^32 - 2 regions (UInt32 labels) is an Error before anything is written.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/run/communicator.h"
#include "engine/run/memory_plan.h"
#include "engine/run/tile_ownership.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/raster_info.h"
#include "kernels/clump/clump_key_code.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"

namespace terrazo {

enum class ClumpBy { Value, Valid, Range };
const char* to_string(ClumpBy by);

constexpr std::uint64_t kMaxClumpRegions = 0xFFFFFFFEull;  // 2^32 - 2: UInt32 labels, 0 = nodata

struct ClumpPhaseOptions {
  Connectivity connectivity = Connectivity::Eight;
  ClumpBy by = ClumpBy::Value;
  double range_lo = 0, range_hi = 0;  // ClumpBy::Range: [lo, hi]
  unsigned threads = 0;               // 0: all cores
  Device device = Device::Cpu;        // the per-tile labeller (kernels/clump/label_tile_solver.h)
  std::uint64_t gpu_memory_bytes = 0; // Device::Cuda: device memory of its batches (0: a quarter of the free memory)
  // Device::Cuda: how the keys cross to the GPU (clump_gpu_key_code); every key the input gives
  // must fit it (a key that does not is an Error, never a wrong label).
  ClumpKeyCode gpu_key_code = ClumpKeyCode::Float64;
  std::string scratch_dir;            // the border records file (and the stats sorter's runs) go here
  // Bytes of the stats sorter (io/store/external_sorter.h); 0: min(a quarter of what is left, 64 MiB).
  // Tests set it small to force runs on disk.
  std::uint64_t stats_buffer_bytes = 0;
  // The most regions the labels may number (kMaxClumpRegions for UInt32); tests lower it.
  std::uint64_t max_regions = kMaxClumpRegions;
  // Always merge the border regions externally (engine/clump/phase2_external_merge.h), even when
  // they fit in memory; tests set it (the labels are the same either way).
  bool external_merge = false;
  MemoryPlan* plan = nullptr;  // the run's memory plan (engine/run/memory_plan.h); null: one of its own
  // A distributed run (docs/distributed.md "clump"): the ranks and their tiles; null: one process.
  // Each rank labels its own tiles in phases 1 and 3 and gives the sink only its own windows.
  Communicator* comm = nullptr;
  const TileOwnership* ownership = nullptr;
  bool distributed() const { return comm && ownership && comm->distributed(); }
  bool mine(std::uint64_t tile) const { return !distributed() || ownership->owner(tile) == comm->rank(); }
};

// One region's statistics (--stats): cells, the value (ClumpBy::Value; NaN otherwise), and the
// bounding box in cells (columns and rows, inclusive).
struct ClumpRegionStats {
  std::uint64_t label = 0, cells = 0;
  double value = 0;
  std::uint64_t col_min = 0, row_min = 0, col_max = 0, row_max = 0;
};

// Receives every region's statistics once, in label order (1..K), after the last window.
class ClumpStatsSink {
 public:
  virtual ~ClumpStatsSink() = default;
  virtual void region(const ClumpRegionStats& stats) = 0;
};

// Receives the label windows: tiles in row-major tile order, w x h labels row-major (0 = nodata).
class ClumpWindowSink {
 public:
  virtual ~ClumpWindowSink() = default;
  virtual void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                            const std::uint32_t* labels) = 0;
  // Optional, for a sink whose file blocks are the t x t tiles (the GeoTIFF's block writer): phase 3
  // takes a tile buffer (t*t UInt32 labels as bytes; any thread may call take_tile), fills it on its
  // threads (cells beyond the raster 0) and gives it back by write_tile in place of write_window, so
  // the writer thread copies nothing. Tiles still come in row-major tile order.
  virtual bool takes_tiles(std::uint32_t t) const {
    (void)t;
    return false;
  }
  virtual std::vector<std::uint8_t> take_tile() { return {}; }
  virtual void write_tile(std::uint64_t tx, std::uint64_t ty, std::vector<std::uint8_t> labels) {
    (void)tx, (void)ty, (void)labels;
  }
  // Called once after phase 3's last window, before phase 4 (a distributed run's rank 0 receives
  // the other ranks' last windows here: engine/clump/distributed_sinks.h).
  virtual void end_of_windows() {}
};

// Where phase 3's wall time goes (the profile of docs/clump.md "Performance"): the tile solver
// (reading the tiles and labelling them: GPU kernels and copies with --device cuda) and the numbering
// on the worker pool (border summaries, numbers, output windows, statistics), on the calling thread;
// and the sink (the GeoTIFF writer) on the writer thread, overlapping the next batches.
struct ClumpRelabelSeconds {
  double solve = 0, number = 0, write = 0;
  double device = 0;  // CUDA: the tile solver's GPU time in phase 3 (overlapping the rest)
};

struct ClumpPhaseResult {
  std::uint64_t regions = 0;          // K
  std::uint64_t cells_labelled = 0;   // cells with a label (key not NaN)
  std::uint64_t largest_region = 0;   // cells of the largest region (0: none)
  std::uint64_t border_regions = 0;   // per-tile regions that touch their tile's ring
  std::uint64_t merged_border_regions = 0;  // border regions after the merge (roots)
  bool external_merge = false;        // phase 2 was the external 2x2 merge (the table did not fit, or asked)
  std::uint32_t merge_levels = 0;     // external merge: levels of the hierarchy
  std::uint32_t merge_parallel_levels = 0;  // external merge: top levels run on threads of their own
  std::uint64_t merge_links = 0;      // external merge: link records written
  double tile_labels_seconds = 0, merge_seconds = 0, relabel_seconds = 0, stats_seconds = 0;
  double solver_setup_seconds = 0;    // making the tile solver (CUDA: its pinned and device buffers)
  // tile_labels_seconds split (phase1_tile_labels.h ClumpTileTotals): solver, borders, table.
  double tile_labels_solve = 0, tile_labels_borders = 0, tile_labels_table = 0;
  double device_busy_seconds = 0;     // CUDA: the tile solver's GPU time (copies and kernels), phases 1 and 3
  ClumpRelabelSeconds relabel;        // relabel_seconds split: tile solver, numbering, sink (phase3_relabel.h)
  std::uint64_t bytes_read = 0, bytes_written = 0;  // scratch records (the input's reads: the TileInput)
  // Distributed: the border exchange after phase 1 (engine/clump/distributed_borders.h), this rank's.
  double exchange_seconds = 0;
  std::uint64_t bytes_sent = 0, bytes_received = 0;
};

// `stats` (optional): phase 4 ("clump: stats"). Interior regions' statistics are complete in their
// tile and go to an external sorter keyed by label as phase 3 meets them; border regions' are
// accumulated per root in memory (24 more bytes per border region) and sorted in at the end; the
// sorted stream goes to `stats`. Needs W and H below 2^32.
// The narrowest exact key code for a raster of `type` (docs/clump.md "The GPU's keys"): UInt16 for
// --by valid and range (keys 0 and NaN) and a Byte raster's values; UInt32 (float bits) for Int16,
// UInt16 and Float32 values; Float64 otherwise (Int32, UInt32 and Float64 values).
ClumpKeyCode clump_gpu_key_code(CellType type, ClumpBy by);

ClumpPhaseResult run_clump_phases(const TileInput& input, const ClumpPhaseOptions& options, MemoryBudget& budget,
                                  Progress& progress, ClumpWindowSink* sink, ClumpStatsSink* stats = nullptr);

}  // namespace terrazo
