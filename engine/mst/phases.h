// engine/mst/phases.h: phases 1-3 of the MST pipeline (block-local, merge, expansion) on any source
// of tiles, without GDAL. engine/commands/mst.h wraps them with the import and the GeoTIFF output;
// tools/bench/gpu_checks/mst_gpu_check.cpp drives them directly on the GPU machine, where GDAL is not installed.
//
// Source and design: docs/mst.md; the expansion argument: engine/mst/merge_step.h.
//
// Contract: for the valid cells of `source` (NaN = nodata), weights from `options.params`, the MSF
// under the total order of docs/mst.md; `sink` (optional) receives every tile's window of the edge raster
// (Byte, bits 0..3 = E, SE, S, SW, 255 = nodata) exactly once, in tile Z-order; `options.edge_list`
// (optional) receives the binary edge list (mst_pipeline.h). Scratch files go to
// `options.scratch_dir`, which must exist and outlive the call.
// Phase 1 runs on the CPU (WorkerPool of `threads`, the next batch read while one is solved) or,
// with `cuda`, through the streamed CudaMstBatchSolver (kernels/mst/block_mst_solver.h: tiles read straight
// into its pinned input, two batches in flight). Phase 2 runs as `merge_mode` says (MstMergeMode).
// Distributed (options.comm, docs/distributed.md "mst"): every rank runs phase 1 and phase 3 on its
// own tiles (options.ownership) and the post-order merge over the ranks (engine/mst/merge_ranks.h);
// `sink` and the edge list are rank 0's (engine/mst/distributed_output.h): every rank's windows
// reach rank 0's sink in Z-order. The totals in the result are every rank's sums, on every rank.
// Failures in phase 1 and in the totals' check are agreed (every rank throws); a failure in the
// merge or the expansion ends the job from main (MPI_Abort).
#pragma once
#include <cstdint>
#include <string>

#include "engine/run/memory_plan.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/tile_inputs/tile_input.h"
#include "io/store/atomic_output.h"
#include "io/store/tile_store.h"
#include "kernels/common/edge_weight.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"

namespace terrazo {

class MstWindowSink {
 public:
  virtual ~MstWindowSink() = default;
  // Cells [x0, x0+w) x [y0, y0+h) of the edge raster, row-major w*h.
  virtual void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                            const std::uint8_t* cells) = 0;
};

// How phase 2 (the hierarchical merge) runs. All modes make the same decisions: identical edge
// rasters, totals and expansion records.
//  CpuPostOrder: engine/mst/phase2_merge_post_order.h, the Z-order post-order recursion over the quadtree of
//                tiles, subtrees below a split level in parallel on the WorkerPool; reads the tile
//                summaries once.
//  CpuLevels:    engine/mst/phase2_merge_levels.h, level by level, every merge step a graph of
//                kernels/mst/graph_msf.h solved in batches by graph_msf_cpu on the WorkerPool (the CPU
//                twin of CudaLevels).
//  CudaLevels:   the same on the GPU (CudaGraphMsfBatchSolver, two slots in flight, bounded by
//                gpu_memory_bytes); the caller checked cuda_device().
//  Auto:         CudaLevels when `cuda` (phase 1 on the GPU), else CpuPostOrder.
enum class MstMergeMode { Auto, CpuPostOrder, CpuLevels, CudaLevels };
// "auto", "cpu", "cpu-levels", "cuda" (the --merge values).
const char* to_string(MstMergeMode mode);
// Parses a --merge value; UsageError naming --merge and the value otherwise.
MstMergeMode parse_merge_mode(const std::string& text);

struct MstPhaseOptions {
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  bool cuda = false;                     // phase 1 on the GPU (caller checked cuda_device())
  unsigned threads = 0;                  // CPU threads (0: all cores)
  std::uint64_t gpu_memory_bytes = 0;    // CudaMstBatchSolver's device budget (0: its default)
  std::uint64_t record_buffer_bytes = 0; // expansion record sorter; 0: min(budget / 8, 64 MiB)
  MstMergeMode merge_mode = MstMergeMode::Auto;
  std::uint64_t merge_batch_edges = 0;   // level merges: edges per batch slot; 0: from the budget
                                         // (engine/mst/phase2_merge_levels.h); tests set it small
  std::string edge_list;                 // binary edge list path; empty: none
  AtomicOutput* edge_list_output = nullptr;  // the edge list's output in the run's OutputSet (it
                                             // publishes); null: phase 3 publishes its own
  std::string scratch_dir;               // where the scratch files go
  MemoryPlan* plan = nullptr;            // the run's memory plan (engine/run/memory_plan.h); null: one of its own
  // A distributed run: the ranks and the tiles each owns (null: one process). Only the post-order
  // merge runs on ranks (Auto means CpuPostOrder there; the caller refuses the level merges).
  Communicator* comm = nullptr;
  const TileOwnership* ownership = nullptr;
  bool distributed() const { return comm != nullptr; }
};

struct MstPhaseResult {
  std::uint64_t total_weight = 0;
  std::uint64_t edges = 0, vertices = 0, components = 0;
  double block_local_seconds = 0, merge_seconds = 0, expansion_seconds = 0;
  std::uint64_t bytes_read = 0;     // scratch files (the source's own reads: source.bytes_read())
  std::uint64_t bytes_written = 0;  // scratch files and the edge list
  std::uint64_t summary_edges = 0, expansion_records = 0, expansion_record_runs = 0;
  std::uint32_t merge_levels = 0;
  std::uint64_t gpu_batch_tiles = 0;  // tiles per GPU batch (0: CPU)
  double gpu_kernel_ms = 0;           // sum of the batches' kernel times (CUDA events)
  MstMergeMode merge_mode = MstMergeMode::CpuPostOrder;  // the merge that ran (never Auto)
  // Level merges only (engine/mst/phase2_merge_levels.h):
  std::uint64_t merge_batches = 0;           // batches solved by the batch solver
  std::uint64_t merge_graphs = 0;            // merge steps with at least one edge
  std::uint64_t merge_oversized_graphs = 0;  // larger than a slot, solved alone by graph_msf_cpu
  std::uint64_t merge_batch_edges = 0;       // edge capacity of a batch slot
  double gpu_merge_kernel_ms = 0;            // CudaLevels: sum of the batches' kernel times
  // Distributed: this rank's messages (summaries, records, windows, edge list) and tiles.
  std::uint64_t bytes_sent = 0, bytes_received = 0, own_tiles = 0;
};

MstPhaseResult run_mst_phases(const TileInput& source, const MstPhaseOptions& options, MemoryBudget& budget,
                              Progress& progress, MstWindowSink* sink);

}  // namespace terrazo
