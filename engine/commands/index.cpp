// engine/commands/index.cpp: run_index and run_od_matrix (engine/commands/index.h).
#include "engine/commands/index.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <thread>

#include <unistd.h>

#include "engine/commands/command_line.h"
#include "engine/commands/output_paths.h"
#include "engine/raster_inputs/raster_io.h"
#include "engine/raster_inputs/region_sites.h"
#include "io/gdal/gdal_raster.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/common/timer.h"
#include "engine/index/build_index.h"
#include "engine/index/index_fingerprint.h"
#include "engine/index/index_in_memory.h"
#include "engine/index/od_matrix.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/device_choice.h"
#include "kernels/index/tile_boundary_matrix.h"
#include "io/store/index_file.h"
#include "io/store/run_directory.h"

namespace terrazo {
namespace {

unsigned thread_count(unsigned requested) { return requested ? requested : std::max(1u, std::thread::hardware_concurrency()); }

// --distance map scales step lengths, which only --weight friction has among `whose` models (IndexOptions,
// OdMatrixOptions).
template <class Options>
void check_distance_weight(const Options& options, const char* whose) {
  if (options.distance != DistanceMode::Cells && options.weight != WeightModel::Friction)
    throw UsageError(std::string("--distance ") + to_string(options.distance) + " scales step lengths, which only " +
                     "--weight friction has among " + whose + " models; --weight " + to_string(options.weight) + " has none");
}

// INPUT as a tile store of side `tile` (imported into `run` unless it is one) and its statistics.
struct StoredInput {
  std::unique_ptr<TileStore> store;
  RasterInfo info;
};

// The StoredInput of `input` for `command` (index, od-matrix); the import's seconds and the grid's
// width, height and tile into `result`. An INPUT without a valid cell is an error (`refusal` ends it).
template <class Result>
StoredInput open_stored_input(const std::string& input, RunDirectory& run, std::uint32_t tile, MemoryBudget& budget,
                              Progress& progress, const std::string& command, const char* refusal, Result& result) {
  Stopwatch phase;
  StoredInput stored{open_as_tile_store(input, run, tile, budget, progress), {}};
  result.seconds_import = phase.seconds();
  stored.info = stored.store->info();
  if (!stored.info.has_stats) compute_store_statistics(*stored.store, &stored.info, budget, (command + " statistics tile").c_str());
  if (stored.info.valid_cells == 0)
    throw Error("INPUT '" + input + "' has no valid cell (nodata everywhere)" + refusal);
  const TileGrid& grid = stored.store->grid();
  result.width = grid.width;
  result.height = grid.height;
  result.tile = grid.tile;
  return stored;
}

// The index of `store` (its tile) written to `path`: header, every tile's record, the table.
IndexBuildStats write_index_file(const std::string& path, const TileStore& store, DistanceMode distance,
                                 const IndexBuildOptions& bo, MemoryBudget& budget, Progress& progress,
                                 std::uint64_t* bytes, std::uint64_t* fingerprint) {
  const TileStoreInput input(store);
  const TileGrid& grid = input.grid();
  IndexFileHeader header;
  header.store_fingerprint = store.content_fingerprint();
  header.width = grid.width;
  header.height = grid.height;
  header.tile = grid.tile;
  header.leaf = bo.leaf;
  header.model = bo.params.model;
  header.connectivity = bo.connectivity;
  header.scale = bo.params.scale;
  header.offset = bo.params.offset;
  header.distance = distance == DistanceMode::Map ? 1 : 0;
  header.step_ew = bo.params.steps.ew;
  header.step_ns = bo.params.steps.ns;
  header.step_diag = bo.params.steps.diag;
  IndexFileWriter writer(path, header, budget);
  const IndexBuildStats stats = build_index(input, writer, bo, budget, progress);
  writer.finish();
  *bytes = writer.bytes_written();
  *fingerprint = writer.fingerprint();
  return stats;
}

// The parts of the cheaper CPU query over an index (`records`: its bytes in memory): by --exchange;
// auto takes the sweep when it fits, else the queue, so the smaller of the two.
std::vector<MemoryPlan::Part> index_query_needs(const OdQueryOptions& qo, const TileGrid& grid, std::uint64_t present,
                                                std::uint64_t records, std::uint64_t sites) {
  auto needs = [&](OdQueryKind kind) { return od_query_needs(kind, grid, present, records, sites, sites, 1, qo.threads); };
  auto total = [](const std::vector<MemoryPlan::Part>& parts) {
    std::uint64_t sum = 0;
    for (const MemoryPlan::Part& part : parts) sum += part.minimum;
    return sum;
  };
  if (qo.exchange == OdExchange::Sweep) return needs(OdQueryKind::Sweep);
  if (qo.exchange == OdExchange::Rounds) return needs(OdQueryKind::Rounds);
  const std::vector<MemoryPlan::Part> queue = needs(OdQueryKind::Queue);
  if (qo.exchange != OdExchange::Auto) return queue;
  const std::vector<MemoryPlan::Part> sweep = needs(OdQueryKind::Sweep);
  return total(sweep) < total(queue) ? sweep : queue;
}

// The memory plan of od-matrix on the CPU (docs/memory_budget.md "The plan"), assigned before any
// work: a transient index's build and then its query, the query over --index, or the exchange. The
// GPU's paths plan their device memory themselves.
void plan_od_matrix(RunContext& context, const TileInput& input, const IndexFile* index, bool transient,
                    const OdQueryOptions& qo, std::uint64_t sites) {
  MemoryPlan& plan = context.plan();
  const TileGrid& grid = input.grid();
  auto add = [&](const std::string& phase, const std::vector<MemoryPlan::Part>& parts) {
    for (const MemoryPlan::Part& part : parts) plan.need(phase, part.what, part.minimum, part.wanted);
  };
  if (qo.device == Device::Cuda) return;
  if (transient) {
    const std::uint64_t present = input_present_tiles(input);
    const std::string build = "od-matrix: transient index build", query = "od-matrix: query";
    plan.need(build, "the index file's table and record buffer", IndexFileWriter::reserved_bytes(grid));
    plan.need(build, "a batch of one tile and the threads' workspaces",
              build_index_minimum_bytes(grid.tile, kDefaultCpuIndexLeaf, qo.threads, false));
    plan.need(query, "the index table", IndexFile::table_bytes(grid.tile_count()));
    add(query, index_query_needs(qo, grid, present, IndexInMemory::bytes_for(grid.tile, present, 4), sites));
  } else if (index) {
    add("od-matrix: query over --index",
        index_query_needs(qo, grid, index->present_tiles(), IndexInMemory::bytes_of(*index), sites));
  } else {
    add("od-matrix: exchange", od_query_needs(OdQueryKind::Exchange, grid, 0, 0, sites, sites, 1, qo.threads));
  }
  plan.assign(context.budget());
}

}  // namespace

IndexResult run_index(const IndexOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  IndexResult result;
  if (options.leaf != 0 && options.leaf != 4 && options.leaf != 8 && options.leaf != 16)
    throw UsageError("invalid --leaf " + std::to_string(options.leaf) + ": expected 4, 8 or 16");
  const bool cuda = context.device() == Device::Cuda;
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(cuda ? Device::Cuda : Device::Cpu, budget);
  result.device = device_description(cuda ? Device::Cuda : Device::Cpu);
  // Leaves of 4 on the CPU (its cheapest build: 12% under 8 at t = 32), 8 on a GPU (its kernels' blocks).
  const std::uint32_t leaf = options.leaf ? options.leaf : cuda ? kDefaultIndexLeaf : kDefaultCpuIndexLeaf;
  check_distinct_paths({{"INPUT", options.input}}, {{"INDEX", options.output}});
  RunDirectory run(context.tmpdir());
  const std::uint32_t tile = options.tile ? options.tile : kDefaultIndexTile;
  if (tile < 16 || tile > 1024 || (tile & (tile - 1)) != 0)
    throw UsageError("invalid --tile " + std::to_string(tile) + " for an index: expected a power of two from 16 to 1024");
  if (leaf > tile) throw UsageError("--leaf " + std::to_string(leaf) + " is larger than --tile " + std::to_string(tile));
  auto [store, info] = open_stored_input(options.input, run, tile, budget, progress, "index", ": nothing to index", result);
  const TileGrid grid = store->grid();
  result.leaf = leaf;
  TileStoreInput input(*store);
  // Step lengths (--distance): an index holds uniform ones (cells, or map from the geotransform).
  if (options.distance == DistanceMode::Geodesic)
    throw UsageError("--distance geodesic has no index: its step lengths vary by row; run od-matrix or sssp without --index");
  check_distance_weight(options, "the index's");
  const StepTable steps = make_step_table(options.distance, info);
  result.weights = choose_weight_params(options.weight, options.scale, info, options.connectivity, kSsspDefaultStepLimit,
                                        &input, &budget, &steps.lengths);
  result.distance = to_string(options.distance);
  IndexBuildOptions bo;
  bo.params = result.weights.params;
  bo.connectivity = options.connectivity;
  bo.leaf = leaf;
  bo.device = cuda ? Device::Cuda : Device::Cpu;
  bo.threads = thread_count(context.threads());  // CPU: the matrices; CUDA: the tile readers
  bo.gpu_memory_bytes = context.gpu_memory_bytes();
  std::uint64_t fingerprint = 0;
  const IndexBuildStats stats =
      write_index_file(options.output, *store, options.distance, bo, budget, progress, &result.bytes, &fingerprint);
  result.tiles = stats.tiles;
  result.present_tiles = stats.present_tiles;
  result.batch_tiles = stats.batch_tiles;
  result.bytes_per_cell = static_cast<double>(result.bytes) / static_cast<double>(grid.width * grid.height);
  result.seconds_read = stats.read_seconds;
  result.seconds_matrices = stats.matrix_seconds;
  result.seconds_write = stats.write_seconds;
  result.kernel_ms = stats.kernel_ms;
  result.matrices_per_second = stats.matrix_seconds > 0 ? static_cast<double>(stats.present_tiles) / stats.matrix_seconds : 0;
  result.fingerprint = fingerprint;
  result.seconds_total = start.seconds();
  result.peak_rss_bytes = peak_rss_bytes();
  result.memory_peak_reserved = budget.peak_reserved();
  return result;
}

bool looks_like_index(const std::string& path) { return IndexFile::looks_like_index(path); }

IndexSummary describe_index(const std::string& path, MemoryBudget& budget, Progress& progress) {
  auto index = IndexFile::open(path, budget);
  const IndexFileHeader& h = index->header();
  IndexSummary s;
  s.path = path;
  s.width = h.width;
  s.height = h.height;
  s.tile = h.tile;
  s.leaf = h.leaf;
  s.weight = h.model;
  s.connectivity = h.connectivity;
  s.scale = h.scale;
  s.offset = h.offset;
  s.distance = h.distance == 1 ? "map" : "cells";
  s.step_ew = h.step_ew;
  s.step_ns = h.step_ns;
  s.step_diag = h.step_diag;
  s.fingerprint = h.fingerprint;
  s.tiles = h.grid().tile_count();
  s.present_tiles = index->present_tiles();
  s.bytes = index->file_bytes();
  const std::uint32_t b = ring_size(h.tile);
  MemoryBudget::Reservation reservation = budget.reserve(static_cast<std::uint64_t>(b) * b * 8 + b * 8, "index tile");
  std::vector<double> ring(b);
  std::vector<PathLength> matrix(static_cast<std::uint64_t>(b) * b);
  progress.update("info", 0, s.tiles);
  for (std::uint64_t i = 0; i < s.tiles; ++i) {
    if (index->entry(i).offset == 0) continue;
    index->read_tile(i, ring.data(), matrix.data());
    s.tiles_32bit += index->entry(i).width == 4;
    progress.update("info", i + 1, s.tiles);
  }
  progress.update("info", s.tiles, s.tiles);
  return s;
}

std::string IndexSummary::text() const {
  return format_line("%s: terrazo boundary-graph index (.tzi)\n"
                     "  raster       %llu x %llu cells, fingerprint %016llx\n"
                     "  weights      %s, connectivity %d, scale %.17g, offset %.17g, distance %s (steps %.17g, %.17g, %.17g)\n"
                     "  tiles        %llu of %u (leaf %u), %llu with a boundary, %llu of them with 32-bit entries\n"
                     "  size         %llu bytes (%.2f bytes per cell); every tile checksum verified",
                     path.c_str(), static_cast<unsigned long long>(width), static_cast<unsigned long long>(height),
                     static_cast<unsigned long long>(fingerprint), to_string(weight), static_cast<int>(connectivity), scale,
                     offset, distance.c_str(), step_ew, step_ns, step_diag, static_cast<unsigned long long>(tiles), tile, leaf,
                     static_cast<unsigned long long>(present_tiles), static_cast<unsigned long long>(tiles_32bit),
                     static_cast<unsigned long long>(bytes), static_cast<double>(bytes) / static_cast<double>(width * height));
}

std::string IndexSummary::to_json() const {
  JsonObject s;
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fingerprint));
  s.add("command", "info")
      .add("input", path)
      .add("format", "tzi")
      .add("width", width)
      .add("height", height)
      .add("tile", tile)
      .add("leaf", leaf)
      .add("weight", to_string(weight))
      .add("connectivity", static_cast<int>(connectivity))
      .add("scale", scale)
      .add("offset", offset)
      .add("distance", distance)
      .add("fingerprint", std::string(hex))
      .add("tiles", tiles)
      .add("present_tiles", present_tiles)
      .add("tiles_32bit", tiles_32bit)
      .add("bytes", bytes);
  return s.str();
}

namespace {

// The tile of the run: a transient index's (--tile, else its default: 64 on a GPU; on the CPU 32,
// where the build costs about t per cell and the sweep's overheads grow as 1/t, the least total at
// 16.8 and 268 M cells, docs/benchmarks.md), --index's own (opened here), else --tile.
std::uint32_t choose_od_tile(const OdMatrixOptions& options, bool transient, bool cuda, MemoryBudget& budget,
                             std::unique_ptr<IndexFile>& index) {
  std::uint32_t tile = options.tile;
  if (transient) {
    tile = tile ? tile : cuda ? kDefaultIndexTile : kDefaultCpuTransientTile;
    if (tile < 16 || tile > 1024 || (tile & (tile - 1)) != 0)
      throw UsageError("invalid --tile " + std::to_string(tile) + " for an index: expected a power of two from 16 to 1024");
  }
  if (!options.index.empty()) {
    if (!IndexFile::looks_like_index(options.index))
      throw UsageError("--index '" + options.index + "' is not a terrazo index (.tzi); make one with `terrazo index`");
    index = IndexFile::open(options.index, budget);
    tile = index->header().tile;
  }
  return tile;
}

// The sites: the regions of --sites-raster (every cell not nodata and not 0 belongs to the region
// of its value, a positive integer; the regions in ascending id order, named by their ids), or the
// --site points (pixel, or map with --map-coords) then the points of --sites-file. At least 2.
std::vector<OdSite> locate_od_sites(const OdMatrixOptions& options, const RasterInfo& info, const TileGrid& grid,
                                    MemoryBudget& budget, RegionSites& regions, OdMatrixResult& result) {
  std::vector<OdSite> sites;
  if (!options.sites_raster.empty()) {
    if (!options.sites.empty() || !options.sites_file.empty())
      throw UsageError("--sites-raster gives region sites; --site and --sites-file give point sites: use one kind");
    regions = read_region_sites(options.sites_raster, grid, budget);
    sites = std::move(regions.sites);
    result.site_ids = regions.ids;
    for (const OdSite& site : sites) result.site_cells.push_back(site.cells.front());
  } else {
    std::vector<SourceCell> located = locate_source_points(options.sites, info, options.map_coords, "", 1, "--site");
    if (!options.sites_file.empty()) {
      std::string crs;
      SourceFields fields;
      fields.skip_empty_features = options.skip_empty_features;
      const std::vector<SourcePoint> points = read_source_points(options.sites_file, &crs, fields, "--sites-file");
      const auto more = locate_source_points(points, info, true, crs, static_cast<std::uint32_t>(located.size() + 1), "--sites-file");
      located.insert(located.end(), more.begin(), more.end());
    }
    for (const SourceCell& c : located) {
      sites.push_back(OdSite{{c.cell}, c.text});
      result.site_cells.push_back(c.cell);
    }
    // Features skipped by --skip-empty-features leave ids unused: the sites are named by their ids.
    for (std::size_t i = 0; i < located.size() && result.site_ids.empty(); ++i)
      if (located[i].id != i + 1)
        for (const SourceCell& c : located) result.site_ids.push_back(c.id);
  }
  if (sites.size() < 2)
    throw UsageError("od-matrix needs at least 2 sites (got " + std::to_string(sites.size()) + "): give --site x,y more than once, " +
                     "--sites-file FILE or --sites-raster R with 2 region ids or more");
  result.sites = sites.size();
  return sites;
}

// The query's options: weights, --max-cost in fixed point, device, threads, and --exchange (sweep
// only over an index on the CPU).
OdQueryOptions od_query_options(const OdMatrixOptions& options, const WeightParams& params, bool cuda, bool transient,
                                RunContext& context) {
  OdQueryOptions qo;
  qo.params = params;
  qo.connectivity = options.connectivity;
  if (options.max_cost >= 0) {
    const double fixed = std::floor(options.max_cost * params.scale);
    qo.max_cost = fixed >= 18446744073709549568.0 ? kUnreached - 1 : static_cast<PathLength>(fixed);
  }
  qo.cache_bytes = options.cache_bytes;
  qo.threads = thread_count(context.threads());
  qo.device = cuda ? Device::Cuda : Device::Cpu;
  qo.round_tiles = options.round_tiles;
  qo.max_batch = options.max_batch;
  qo.gpu_memory_bytes = context.gpu_memory_bytes();
  if (options.exchange == "queue") qo.exchange = OdExchange::Queue;
  else if (options.exchange == "rounds") qo.exchange = OdExchange::Rounds;
  else if (options.exchange == "sweep") qo.exchange = OdExchange::Sweep;
  else if (options.exchange != "auto")
    throw UsageError("--exchange must be auto, queue, rounds or sweep, not '" + options.exchange + "'");
  if (qo.exchange == OdExchange::Sweep && (cuda || (options.index.empty() && !transient)))
    throw UsageError("--exchange sweep runs over an index on the CPU: give --index or --transient-index, and --device cpu");
  return qo;
}

// What the queries of a run share.
struct OdQuery {
  const OdMatrixOptions& options;
  RunContext& context;
  const TileStore& store;
  const TileStoreInput& input;
  const RunDirectory& run;
  const std::vector<OdSite>& sites;
  const OdQueryOptions& qo;
  bool cuda;
};

// The build options of a transient index.
IndexBuildOptions transient_build_options(const OdQuery& q) {
  IndexBuildOptions bo;
  bo.params = q.qo.params;
  bo.connectivity = q.options.connectivity;
  bo.leaf = q.qo.device == Device::Cuda ? kDefaultIndexLeaf : kDefaultCpuIndexLeaf;
  bo.device = q.qo.device;
  bo.threads = q.qo.threads;
  bo.gpu_memory_bytes = q.context.gpu_memory_bytes();
  return bo;
}

// On the CPU: the index built into memory (no file), then the sweep over it, when the budget holds
// the index with 4-byte entries. Returns false when tiles of 8-byte entries overran the budget (and
// --exchange is not sweep, which then fails), or when it does not fit to begin with.
bool query_memory_index(const OdQuery& q, const Stopwatch& build, OdQueryStats* stats, OdMatrixResult& result) {
  MemoryBudget& budget = q.context.budget();
  if (q.cuda || (q.qo.exchange != OdExchange::Auto && q.qo.exchange != OdExchange::Sweep) ||
      !memory_index_fits(q.input, q.qo.threads, budget))
    return false;
  std::unique_ptr<IndexInMemory> memory;
  try {
    memory = std::make_unique<IndexInMemory>(q.store.grid(), &budget);
    build_index(q.input, *memory, transient_build_options(q), budget, q.context.progress());
  } catch (const BudgetError&) {
    if (q.qo.exchange == OdExchange::Sweep) throw;
    return false;
  }
  result.seconds_index = build.seconds();
  result.method = "transient index";
  result.costs = od_matrix_by_memory_index(q.input, *memory, q.sites, q.qo, budget, q.context.progress(), stats);
  return true;
}

// An index file in the run directory, built, queried and deleted.
void query_index_file(const OdQuery& q, const Stopwatch& build, OdQueryStats* stats, OdMatrixResult& result) {
  MemoryBudget& budget = q.context.budget();
  Progress& progress = q.context.progress();
  if (!q.cuda && q.qo.exchange == OdExchange::Auto) {
    // Said where a user looks (the progress on stderr): the CPU's fast path needs the index in memory.
    const std::string phase = "od-matrix: --memory " + MemoryBudget::format_size(budget.total()) +
                              " holds no index in memory (about " +
                              MemoryBudget::format_size(memory_index_bytes(q.input, q.qo.threads) / 3 * 4) +
                              " would): building an index file instead";
    progress.update(phase, 0, 1);
    progress.update(phase, 1, 1);
  }
  const std::string path = q.run.file("transient.tzi");
  std::uint64_t bytes = 0, fingerprint = 0;
  write_index_file(path, q.store, q.options.distance, transient_build_options(q), budget, progress, &bytes, &fingerprint);
  std::unique_ptr<IndexFile> index = IndexFile::open(path, budget);
  result.seconds_index = build.seconds();
  result.method = "transient index";
  result.costs = od_matrix_by_index(q.input, *index, q.sites, q.qo, budget, progress, stats);
  index.reset();
  ::unlink(path.c_str());
}

// The matrix: a transient index (on a GPU built straight into the query's memory when it fits
// there; else in memory on the CPU, or an index file), the query over --index, or the exchange.
OdQueryStats query_od_matrix(const OdQuery& q, bool transient, const IndexFile* index, OdMatrixResult& result) {
  MemoryBudget& budget = q.context.budget();
  Progress& progress = q.context.progress();
  OdQueryStats stats;
  if (transient && q.cuda && q.qo.exchange != OdExchange::Queue && gpu_index_fits(q.input, q.qo)) {
    result.method = "index on the GPU";
    result.costs = od_matrix_by_gpu_index(q.input, q.sites, q.qo, budget, progress, &stats);
    result.seconds_index = stats.seconds_index;
    result.index_kernel_ms = stats.index_kernel_ms;
  } else if (transient) {
    const Stopwatch build;
    if (!query_memory_index(q, build, &stats, result)) query_index_file(q, build, &stats, result);
  } else if (index) {
    result.method = "index";
    result.costs = od_matrix_by_index(q.input, *index, q.sites, q.qo, budget, progress, &stats);
  } else {
    result.method = "exchange";
    result.costs = od_matrix_by_exchange(q.input, q.sites, q.qo, budget, progress, &stats);
  }
  return stats;
}

// The query's counters into the result.
void fill_od_stats(const OdQueryStats& stats, OdMatrixResult& result) {
  result.rounds = stats.rounds;
  result.exchange = stats.exchange;
  result.max_active = stats.max_active;
  result.gpu_uploads = stats.gpu_uploads;
  result.kernel_ms = stats.kernel_ms;
  result.kernel_ms_select = stats.kernel_ms_select;
  result.kernel_ms_solve = stats.kernel_ms_solve;
  result.kernel_ms_push = stats.kernel_ms_push;
  result.due_sources = stats.due_sources;
  result.settled = stats.settled;
  result.stopped_early = stats.stopped_early;
  result.max_live = stats.max_live;
  result.index_bytes = stats.index_bytes;
  result.site_parts = stats.site_parts;
  for (PathLength d : result.costs) result.pairs_reached += d != kUnreached;
  result.batch_sources = stats.batch_sources;
  result.tile_solves = stats.tile_solves;
  result.matrix_loads = stats.matrix_loads;
  result.cache_tiles = stats.cache_tiles;
  result.exchange_solves = stats.exchange_solves;
  result.site_tiles = stats.site_tiles;
  result.seconds_sites = stats.seconds_sites;
  result.seconds_queries = stats.seconds_queries;
}

}  // namespace

OdMatrixResult run_od_matrix(const OdMatrixOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  OdMatrixResult result;
  if (options.max_cost >= 0 && !std::isfinite(options.max_cost)) throw UsageError("invalid --max-cost: expected a finite number");
  // --device: the G' exchange's min-plus products with --index (auto: the GPU when there is one);
  // without --index the in-tile solves run on the CPU.
  // A transient index (--transient-index; the default with --device cuda, whose without-index
  // exchange would be the CPU's in-tile solves): on a GPU the matrices built straight into the
  // query's memory (od_matrix_by_gpu_index); else, or when they do not fit there, an index built in
  // memory or into a file in the run directory from the store imported here, queried, and deleted.
  const bool transient = options.index.empty() && (options.transient_index || context.device_request() == DeviceRequest::Cuda);
  if (transient && options.distance == DistanceMode::Geodesic)
    throw UsageError("--distance geodesic has no index, so no transient one either: run od-matrix with --device cpu");
  // Without an index the exchange runs on the CPU: auto takes a GPU only for an index's products.
  const bool cuda = context.device(!options.index.empty() || transient) == Device::Cuda;
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(cuda ? Device::Cuda : Device::Cpu, budget);
  RunDirectory run(context.tmpdir());
  std::unique_ptr<IndexFile> index;
  const std::uint32_t tile = choose_od_tile(options, transient, cuda, budget, index);

  auto [store, info] = open_stored_input(options.input, run, tile, budget, progress, "od-matrix", "", result);
  const TileGrid grid = store->grid();
  TileStoreInput input(*store);
  if (index && !options.skip_fingerprint_check) check_index_raster(*index, options.index, input, store.get(), options.input, budget);
  check_distance_weight(options, "od-matrix's");
  auto steps_reservation = budget.reserve(step_table_bytes(options.distance, grid.height), "od-matrix step-length table");
  const StepTable steps = make_step_table(options.distance, info);  // lives until the matrix is done
  const WeightChoice weights = choose_weight_params(options.weight, options.scale, info, options.connectivity,
                                                    kSsspDefaultStepLimit, &input, &budget, &steps.lengths);
  result.params = weights.params;
  result.info = info;
  RegionSites regions;  // --sites-raster: its cell lists' reservations live as long as the sites
  const std::vector<OdSite> sites = locate_od_sites(options, info, grid, budget, regions, result);
  const OdQueryOptions qo = od_query_options(options, weights.params, cuda, transient, context);
  plan_od_matrix(context, input, index.get(), transient, qo, sites.size());

  const OdQuery query{options, context, *store, input, run, sites, qo, cuda};
  const OdQueryStats stats = query_od_matrix(query, transient, index.get(), result);
  result.device = device_description(qo.device);
  fill_od_stats(stats, result);
  result.seconds_total = start.seconds();
  result.peak_rss_bytes = peak_rss_bytes();
  result.memory_peak_reserved = budget.peak_reserved();
  return result;
}

}  // namespace terrazo
