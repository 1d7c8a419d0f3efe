// engine/commands/sssp.h: out-of-core cost distance (exact multi-source shortest paths) over a
// raster's grid graph (`terrazo sssp`). The library entry point; tools/cli/cmd_sssp.cpp is a
// thin main over it. docs/sssp.md has the pipeline, the tie-breaks, the fixed-point error bound and
// the memory formula.
//
// Source: docs/sssp.md; [Gerritsen2012, ch. 4-5].
// Contract: dist(u) = min over sources s and paths s -> u of the sum of the path's edge weights
// (kernels/common/edge_weight.h, fixed point), exactly; cells farther than max_cost, or unreachable, are
// unreached. Friction (the default) equals GRASS r.cost / scikit-image MCP_Geometric to rounding.
// Per-source settings (initial cost, maximum cost, multiplier; docs/sssp.md "Per-source settings"):
// cost(u) = min over sources s with init(s) + d_m(s)(s, u) <= max(s) of that, ties to the lower id;
// sources of one (multiplier, maximum) are one pass of the pipeline, several groups are merged cell by
// cell (engine/sssp/source_groups.h, phase "sssp: merge").
// Phases (Progress phase names in quotes):
//   "import"          a non-store input is imported into the run directory (engine/raster_inputs/raster_io.h)
//   "sssp: sources"   point sources located, or the source mask streamed tile by tile
//   "sssp: exchange"  block-local solves + boundary exchange (engine/sssp/exchange.h)
//   "sssp: write"     final labels -> outputs (engine/sssp/output.h)
// Outputs (each optional; each written as a partial file of its own and renamed at the end: io/store/atomic_output.h):
//   output      Float64 (or --ot Float32) GeoTIFF: dist / scale in cost units, nodata -1 where unreached
//   backlink    Byte GeoTIFF: direction 0..7 (clockwise from east) to the predecessor, 255 at
//               sources, nodata and unreached cells (kernels/sssp/backlink.h has the tie-break)
//   allocation  UInt32 GeoTIFF: id of the nearest source (lowest id among the nearest), 0 where
//               unreached
// Errors: UsageError for the user's choices (no source, a source outside the raster or on nodata,
// malformed coordinates, and what the weight rule of engine/cost_models/weight_params.h refuses: friction on
// negative costs, weights overflowing at the chosen --scale); Error for runtime failures (nodata
// everywhere, I/O, budget too small).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/device_choice.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "engine/cost_models/step_lengths.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/run/rank_report.h"
#include "engine/run/run_context.h"
#include "io/store/raster_info.h"
#include "engine/cost_models/weight_params.h"
#include "io/gdal/geotiff_options.h"
#include "kernels/common/edge_weight.h"
#include "kernels/sssp/resident_sssp.h"

namespace terrazo {

struct SsspOptions {
  std::string input;       // any raster RasterReader::open accepts, or a tile store
  std::string output;      // cost raster; empty: none
  std::string backlink;    // backlink raster; empty: none
  std::string allocation;  // allocation raster; empty: none
  std::vector<SourcePoint> sources;  // --source (parse_source_point)
  bool map_coords = false;           // --map-coords: sources (and file points) are map coordinates
  std::string source_crs;            // --source-crs: CRS of --source points (implies map coordinates)
  std::string sources_file;          // --sources-file: OGR points
  std::string source_start;          // --source-initial-field (or --source-start) FIELD: per-point initial cost (cost units) from --sources-file
  std::string source_max_field;      // --source-max-field FIELD: per-point maximum cost (cost units; null: none)
  std::string source_multiplier_field;  // --source-multiplier-field FIELD: per-point cost multiplier (> 0; null: the default)
  double source_initial = 0;         // --source-initial C: initial cost of every source without its own (cost units, >= 0)
  double source_multiplier = 1;      // --source-multiplier M: multiplier of every source without its own (> 0)
  std::string source_raster;         // --source-raster: mask
  std::string index;                 // --index: a boundary-graph index of INPUT (docs/index.md); distances only
  bool skip_fingerprint_check = false;  // --skip-fingerprint-check: --index not checked against INPUT's cells
  bool skip_empty_features = false;  // --skip-empty-features: --sources-file features without geometry skipped, ids kept
  WeightModel weight = WeightModel::Friction;   // --weight, or --model walk|tobler (directed)
  DistanceMode distance = DistanceMode::Cells;  // --distance: step lengths of friction, geometric, walk, tobler
  bool distance_given = false;       // --distance given; else walk and tobler take map (geodesic on lon/lat)
  std::string friction;              // --friction: walk/tobler friction raster on INPUT's grid (INPUT: elevation)
  WalkParams walk;                   // --walk-coeff, --lambda, --slope-factor, --direction (walk.reverse)
  std::string barrier_raster;        // --barrier-raster: cells not 0 and not nodata cannot be entered
  std::uint32_t barrier_band = 0;    // --barrier-band: its band (0: none chosen; several bands are then refused)
  double scale = 0.0;                // 0: the default of docs/weights.md (kSsspDefaultStepLimit)
  Connectivity connectivity = Connectivity::Eight;
  double max_cost = -1.0;            // cost units; < 0: no limit
  std::uint32_t tile = 0;            // 0: the store's own, or kDefaultTile when importing
  std::uint32_t band = 0;            // --band of a GDAL input (ImportOptions::band)
  InputMode input_mode = InputMode::Auto;  // --input-mode (engine/raster_inputs/pipeline_input.h)
  std::uint64_t cache_bytes = 0;     // tile cache; 0: what the budget leaves (tests force evictions)
  // --exchange: streamed (tile cache and queue, out of core, engine/sssp/exchange.h), resident (the
  // whole raster on the solver's device, engine/sssp/resident_exchange.h; distances only), or auto:
  // resident on a GPU whose memory holds the raster when no backlink or allocation is asked for.
  std::string exchange = "auto";
  std::uint32_t resident_tile = 64;  // --resident-tile: the resident exchange's tile side
  std::uint64_t resident_round = 0;  // --resident-round: tiles per round it aims at; 0: its default
  // --block-solver: bfs (the frontier BFS block solvers of --weight unit, kernels/sssp/block_bfs.h;
  // refused for other models), sweep (the generic solvers: relaxation sweeps on a GPU, Dijkstra on
  // the CPU), auto (= sweep: measured faster, docs/benchmarks.md "Unit weights"). Tuning only: the
  // result is the same.
  std::string block_solver = "auto";
  CellType cost_type = CellType::Float64;  // --ot: Float64 or Float32 (docs/sssp.md "Outputs")
  GeoTiffOptions geotiff;            // --co and the compression threads, for all three outputs
};

struct SsspPhaseSeconds {
  double import = 0, load = 0, sources = 0, exchange = 0, flush = 0, write = 0, total = 0;
  // Inside the write phase: the labels read (beside the rest), the tiles prepared, handed to the
  // writers, and the writers finished (their last blocks encoded and written).
  double write_read = 0, write_prepare = 0, write_hand_off = 0, write_finish = 0;
};

struct SsspResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;
  std::string device;
  std::string exchange;                    // "streamed" or "resident"
  std::string input_read;                  // how INPUT was read: PipelineInput::how() (engine/raster_inputs/pipeline_input.h)
  std::string block_solver;                // "bfs" (the unit model's frontier BFS) or "sweep"
  WeightParams params;                     // model, scale, offset used
  WeightChoice weights;                    // the same, with the error bounds (engine/cost_models/weight_params.h)
  std::string length_unit = "cell";        // the unit of the step lengths (--distance)
  DistanceMode distance = DistanceMode::Cells;  // the step lengths used (walk, tobler: map or geodesic by default)
  std::uint64_t barrier_cells = 0;         // valid cells the barrier raster closed
  std::uint32_t barrier_band = 0;          // the barrier raster's band read (0: no barrier raster)
  PathLength max_cost_fixed = kUnreached;  // the limit in fixed point (kUnreached: none)
  std::uint64_t sources = 0;               // source cells set
  std::uint64_t sources_beyond_max_cost = 0;  // point sources whose initial cost exceeds their maximum cost (reach nothing)
  // Per-source settings (docs/sssp.md "Per-source settings"): the groups of sources sharing a
  // (multiplier, maximum cost), each one pass of the pipeline, merged cell by cell; 1 without them.
  std::uint64_t source_groups = 1;
  std::uint64_t mask_cells_on_nodata = 0;  // --source-raster cells skipped
  std::uint64_t valid_cells = 0;
  std::uint64_t reached_cells = 0;
  PathLength max_distance_fixed = 0;       // largest finite distance, fixed point
  double max_distance = 0;                 // the same / scale
  std::uint64_t tiles = 0;                 // tiles of the grid
  std::uint64_t tiles_solved = 0;          // distinct tiles solved (reached)
  std::uint64_t solves = 0;                // block solver calls
  std::uint64_t resolves = 0;              // solves - tiles_solved
  std::uint64_t rounds = 0;                // batches (streamed) or rounds (resident)
  ResidentSsspStats resident;              // the resident exchange's own counters (exchange "resident")
  std::uint64_t resident_slots = 0;        // its device slots when paged (0: every tile on the device)
  std::uint64_t cache_tiles = 0, cache_evictions = 0;
  SsspPhaseSeconds seconds;
  std::uint64_t bytes_read = 0;            // input cells, distance store, mask
  std::uint64_t bytes_written = 0;         // import, distance store, outputs
  std::uint64_t scratch_bytes = 0;         // distance store on disk at the end of the exchange (its peak)
  std::uint64_t peak_rss_bytes = 0;
  std::uint64_t memory_peak_reserved = 0;
  // A distributed run (docs/distributed.md "sssp"): every rank's report, at rank 0; empty otherwise.
  std::vector<RankReport> ranks;
};

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
SsspResult run_sssp(const SsspOptions& options, RunContext& context);

// The fixed needs of run_sssp's write phase at tile side `tile` for `options`' outputs (GDAL block
// cache, output windows, the output tile): what run_sssp checks before its exchange, and what a
// caller that runs sssp after other work (network, after its matrix) checks before that work.
std::uint64_t sssp_write_phase_bytes(const SsspOptions& options, std::uint32_t tile);

}  // namespace terrazo
