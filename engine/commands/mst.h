// engine/commands/mst.h: the out-of-core minimum spanning forest of a raster's grid graph
// (`terrazo mst`). The library entry point; tools/cli/cmd_mst.cpp is a thin main over it.
//
// Source: [Gerritsen2012, ch. 2-3] (after Haverkort);
// docs/mst.md (pipeline, expansion argument, memory formula).
//
// Contract: the result is THE minimum spanning forest of the 8- (or 4-) connected grid graph of the
// input's valid cells under the total order of docs/mst.md (weight, min id, max id), weights from
// kernels/common/edge_weight.h with the parameters of mst_weight_params(). Outputs:
//  - `output` (optional): Byte GeoTIFF, georeferenced like the input, bit 0 E, 1 SE, 2 S, 3 SW of the
//    edges each cell owns, 255 on nodata cells (nodata value 255);
//  - `edge_list` (optional): binary, little-endian, 20 bytes per edge: u64 a, u64 b, u32 weight with
//    a < b global ids (y*W + x), in owner-tile Z-order, then owner cell row-major, then E, SE, S, SW;
//  - MstResult: totals, counts, phase times, I/O bytes, peak RSS.
// Phases 1-3 are engine/mst/phases.h (GDAL-free); this entry point adds the import and the GeoTIFF.
// Phases (Progress phase names in quotes):
//  0. "import": a non-store input (or a store of another tile size) is imported into the run
//     directory (engine/raster_inputs/raster_io.h);
//  1. "mst: block-local": per tile, in Z-order, in batches: block MST + reduce (kernels/, on the CPU
//     with `threads` threads or on the GPU through CudaMstBatchSolver); forest bits (1 byte per cell
//     of present tiles) and tile summaries (summary edges + ring values) go to scratch files;
//  2. "mst: merge": merge of 2x2 sibling summaries (engine/mst/merge_step.h), as a Z-order post-order
//     recursion (at most 4 summaries per level in memory) or level by level in batches of graphs
//     on the CPU or GPU (engine/mst/phase2_merge_levels.h), per `merge_mode`; dropped summary reps ("out")
//     and kept crossing edges ("in") go to an external sorter keyed by (owner tile Z-order, local
//     edge id);
//  3. "mst: expansion": per tile in Z-order, forest bits + in - out, written window by window.
// Memory: everything is reserved from `budget` before it is allocated; see docs/mst.md for the
// formula. A budget that cannot hold one batch of one tile is an Error up front.
// Errors: the weight rule of engine/cost_models/weight_params.h (docs/weights.md) refuses (UsageError, exit 2) friction
// on negative costs and a --scale at which the weights overflow; a raster with no valid cell gives 0 edges.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/common/device_choice.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"
#include "engine/mst/phases.h"
#include "io/gdal/geotiff_options.h"
#include "io/store/raster_info.h"
#include "engine/cost_models/weight_params.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/run/run_context.h"
#include "kernels/common/edge_weight.h"
#include "engine/run/rank_report.h"

namespace terrazo {

struct MstOptions {
  std::string input;      // any raster RasterReader::open accepts, or a tile store
  std::string output;     // edge raster (Byte GeoTIFF); empty: none
  std::string edge_list;  // binary edge list; empty: none
  GeoTiffOptions geotiff; // --co and the compression threads of the edge raster
  WeightModel weight = WeightModel::Max;
  double scale = 0.0;     // fixed-point scale; 0: the default of docs/weights.md (kMstDefaultStepLimit)
  Connectivity connectivity = Connectivity::Eight;
  std::uint32_t tile = 0;      // 0: the store's own tile size, or kDefaultTile when importing
  std::uint32_t band = 0;      // --band of a GDAL input (ImportOptions::band)
  InputMode input_mode = InputMode::Auto;  // --input-mode (engine/raster_inputs/pipeline_input.h)
  // Bytes for the expansion-record sorter; 0: min(budget / 8, 64 MiB). Tests set it small to force
  // the sorter's external runs.
  std::uint64_t record_buffer_bytes = 0;
  // --merge: how phase 2 runs (engine/mst/phases.h MstMergeMode); Auto: CudaLevels when phase 1
  // runs on the GPU, else CpuPostOrder. CudaLevels without a CUDA device is an Error.
  MstMergeMode merge_mode = MstMergeMode::Auto;
  std::uint64_t merge_batch_edges = 0;  // level merges: edges per batch slot; 0: from the budget (tests)
};

struct MstPhaseSeconds {
  double import = 0, block_local = 0, merge = 0, expansion = 0, total = 0;
};

struct MstResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::string device;               // "cpu" or "cuda (<device name>)"
  std::string input_read;           // how INPUT was read: PipelineInput::how() (engine/raster_inputs/pipeline_input.h)
  WeightParams params;              // model, scale, offset used
  WeightChoice weights;             // the same, with the error bounds (engine/cost_models/weight_params.h)
  std::uint64_t total_weight = 0;   // sum of the fixed-point weights of the forest's edges
  double total_weight_input_units = 0;  // total_weight / scale (+ edges * offset for max)
  std::uint64_t edges = 0;
  std::uint64_t vertices = 0;       // valid cells
  std::uint64_t components = 0;     // vertices - edges (trees of the forest, isolated cells included)
  MstPhaseSeconds seconds;
  std::uint64_t bytes_read = 0;     // input cells, scratch files
  std::uint64_t bytes_written = 0;  // import, scratch files, outputs
  std::uint64_t peak_rss_bytes = 0; // VmHWM of the process at the end
  std::uint64_t memory_peak_reserved = 0;
  std::uint64_t summary_edges = 0;        // level-0 summary edges (all tiles)
  std::uint64_t expansion_records = 0;    // "in" + "out" records
  std::uint64_t expansion_record_runs = 0;  // sorter runs written to disk (0: all in memory)
  std::uint32_t merge_levels = 0;
  std::uint64_t gpu_batch_tiles = 0;      // tiles per GPU batch (0: CPU)
  double gpu_kernel_seconds = 0;          // GPU kernel time of phase 1 (CUDA events)
  MstMergeMode merge_mode = MstMergeMode::CpuPostOrder;  // the merge that ran (never Auto)
  std::uint64_t merge_batches = 0;        // level merges: batches solved
  std::uint64_t merge_graphs = 0;         // level merges: merge steps with at least one edge
  std::uint64_t merge_oversized_graphs = 0;  // level merges: graphs solved alone (larger than a slot)
  std::uint64_t merge_batch_edges = 0;    // level merges: edge capacity of a batch slot
  double gpu_merge_kernel_seconds = 0;    // CudaLevels: GPU kernel time of phase 2 (CUDA events)
  // A distributed run (docs/distributed.md "mst"): every rank's report, at rank 0; empty otherwise.
  std::vector<RankReport> ranks;
};

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
MstResult run_mst(const MstOptions& options, RunContext& context);

}  // namespace terrazo
