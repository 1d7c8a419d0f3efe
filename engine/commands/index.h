// engine/commands/index.h: the boundary-graph index as library entry points (docs/index.md): `terrazo index`
// builds it (run_index), `terrazo od-matrix` answers origin-destination cost matrices with it or
// without it (run_od_matrix). tools/cli/cmd_index.cpp and tools/cli/cmd_od_matrix.cpp are thin mains over
// engine/commands/index_command.h and engine/commands/od_matrix_command.h.
//
// Source: [Gerritsen2012, ch. 4] (the boundary graph G'); [PandeySharma] (blocked Floyd-Warshall);
// [Malison2012, sec. 4.1] (min-plus products).
// Phases (Progress phase names in quotes):
//   "import"               a non-store input is imported into the run directory (engine/raster_inputs/raster_io.h)
//   "index: matrices"      every tile's boundary matrix, written to the .tzi (engine/index/build_index.h)
//   "od-matrix: sites"     the sites' in-tile solves (with --index)
//   "od-matrix: queries"   one Dijkstra over G' per site (with --index)
//   "od-matrix: runs"      one SSSP exchange per site (without --index)
// Weights: the rule of engine/cost_models/weight_params.h with the sssp limit, so an index and `terrazo sssp` with the
// same flags use the same fixed-point weights, and od-matrix costs equal sssp's costs at the sites.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/run/run_context.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "engine/cost_models/step_lengths.h"
#include "engine/cost_models/weight_params.h"
#include "io/store/raster_info.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"

namespace terrazo {

constexpr std::uint32_t kDefaultIndexTile = 64;
// od-matrix's transient index on the CPU: tiles of 32 and leaves of 4 (the cheapest CPU build with the
// sweep's per-tile work; the matrices do not depend on the leaf).
constexpr std::uint32_t kDefaultCpuTransientTile = 32;
constexpr std::uint32_t kDefaultCpuIndexLeaf = 4;

struct IndexOptions {
  std::string input, output;  // INPUT raster, INDEX.tzi
  WeightModel weight = WeightModel::Friction;
  double scale = 0.0;  // 0: the default rule
  Connectivity connectivity = Connectivity::Eight;
  std::uint32_t tile = 0;  // 0: kDefaultIndexTile (a .tzs of another tile is re-tiled)
  std::uint32_t leaf = 0;  // nested dissection leaf: 4, 8 or 16; 0: kDefaultCpuIndexLeaf on the CPU, kDefaultIndexLeaf on a GPU
  DistanceMode distance = DistanceMode::Cells;  // --distance cells|map (geodesic: no index)
};

struct IndexResult {
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0, leaf = 0;
  std::string device;
  std::string distance = "cells";
  WeightChoice weights;
  std::uint64_t tiles = 0, present_tiles = 0, batch_tiles = 0;
  std::uint64_t bytes = 0;  // of the index file
  double bytes_per_cell = 0;
  double matrices_per_second = 0;
  double seconds_import = 0, seconds_read = 0, seconds_matrices = 0, seconds_write = 0, seconds_total = 0;
  double kernel_ms = 0;
  std::uint64_t fingerprint = 0;
  std::uint64_t peak_rss_bytes = 0, memory_peak_reserved = 0;
};

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
IndexResult run_index(const IndexOptions& options, RunContext& context);

struct OdMatrixOptions {
  std::string input, output;  // INPUT raster, OUT.csv
  std::string index;          // --index INDEX.tzi; empty: the SSSP exchange per site
  // --skip-fingerprint-check: answer from --index without checking that it was built from INPUT's
  // cells (engine/index/index_fingerprint.h); only the site tiles' values are checked then
  bool skip_fingerprint_check = false;
  // --transient-index (the default with --device cuda and no --index): build an index of INPUT in the
  // run directory first (`terrazo index` with these weight flags, --tile, --device), query it, delete it
  bool transient_index = false;
  std::vector<SourcePoint> sites;  // --site, ids 1.. in order, then --sites-file points
  std::string sites_file;
  bool skip_empty_features = false;  // --skip-empty-features: --sites-file features without geometry skipped, ids kept
  std::string sites_raster;  // --sites-raster: region sites (ids = the raster's values), instead of points
  bool map_coords = false;
  WeightModel weight = WeightModel::Friction;
  double scale = 0.0;
  Connectivity connectivity = Connectivity::Eight;
  DistanceMode distance = DistanceMode::Cells;  // --distance cells|map|geodesic (geodesic: without --index)
  double max_cost = -1.0;  // < 0: none
  bool wide = false;       // K x K table instead of the long form
  std::string geojson;     // --geojson: straight lines between the pairs of sites (empty: none)
  std::uint32_t tile = 0;  // without --index: the exchange's tile (0: the store's or kDefaultTile)
  std::uint64_t cache_bytes = 0;  // tests: the index tile cache / exchange tile cache (0: the budget's rest)
  std::uint64_t round_tiles = 0;  // tests: tiles per GPU launch (0: 512)
  std::uint64_t max_batch = 0;    // tests: at most this many sources per batch (0: what the budget holds)
  std::string exchange = "auto";  // --exchange: the index's G' exchange (auto, queue, rounds, sweep; docs/index.md)
};

struct OdMatrixResult {
  std::uint64_t width = 0, height = 0, sites = 0, pairs_reached = 0;
  std::uint32_t tile = 0;
  std::string method;  // "index" or "exchange"
  std::string device;  // "cpu" or "cuda (NAME)"
  std::string exchange;  // "queue", "rounds-cpu", "rounds-gpu" or "sweep": the G' exchange that ran
  std::uint64_t rounds = 0, gpu_uploads = 0, site_parts = 0, max_active = 0;
  double kernel_ms = 0;
  double kernel_ms_select = 0, kernel_ms_solve = 0, kernel_ms_push = 0;  // the GPU rounds' stages
  std::uint64_t due_sources = 0;  // the GPU rounds' (tile, source) pairs with a due label, all solves
  // The CPU sweep: tiles settled, sources stopped once their targets settled, the most label blocks of
  // one source, the index's records in memory.
  std::uint64_t settled = 0, stopped_early = 0, max_live = 0, index_bytes = 0;
  WeightParams params;
  std::vector<std::uint64_t> site_cells;  // a point's cell; a region's first cell (row-major)
  std::vector<std::uint64_t> site_ids;    // --sites-raster: the regions' ids; point sites with ids left
                                          // unused by --skip-empty-features: theirs; empty: 1..K
  RasterInfo info;  // INPUT's georeferencing (for --geojson)
  std::vector<PathLength> costs;  // K x K, fixed point, kUnreached where none
  std::uint64_t batch_sources = 0, tile_solves = 0, matrix_loads = 0, cache_tiles = 0, exchange_solves = 0, site_tiles = 0;
  double seconds_import = 0, seconds_sites = 0, seconds_queries = 0, seconds_total = 0;
  double seconds_index = 0;  // the transient index's build (0 without one)
  double index_kernel_ms = 0;  // the index built on the GPU (method "index on the GPU"): its kernel time
  std::uint64_t peak_rss_bytes = 0, memory_peak_reserved = 0;
};

// `terrazo info INDEX.tzi`: the header, the tiles and their entry widths; every tile record is read
// and its checksum verified (an Error names a corrupt tile).
struct IndexSummary {
  std::string path;
  std::uint64_t width = 0, height = 0, tiles = 0, present_tiles = 0, tiles_32bit = 0, bytes = 0;
  std::uint32_t tile = 0, leaf = 0;
  WeightModel weight = WeightModel::Friction;
  Connectivity connectivity = Connectivity::Eight;
  double scale = 0, offset = 0;
  std::string distance = "cells";
  double step_ew = 1, step_ns = 1, step_diag = 1;
  std::uint64_t fingerprint = 0;
  std::string text() const;
  std::string to_json() const;
};
bool looks_like_index(const std::string& path);
IndexSummary describe_index(const std::string& path, MemoryBudget& budget, Progress& progress);

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
// --device picks where the min-plus products of the index query run; --gpu-memory their GPU slots
// (0: 60% of the free memory).
OdMatrixResult run_od_matrix(const OdMatrixOptions& options, RunContext& context);

}  // namespace terrazo
