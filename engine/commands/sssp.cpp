// engine/commands/sssp.cpp: run_sssp (engine/commands/sssp.h): one pass of the pipeline (input, sources, exchange, outputs);
// per-source settings of several groups run their passes through engine/commands/sssp_groups.cpp.
#include "engine/commands/sssp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <thread>

#include "engine/commands/cost_outputs_writer.h"
#include "engine/commands/output_paths.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/commands/sssp_groups.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "engine/tile_inputs/barrier_input.h"
#include "engine/tile_inputs/walk_input.h"
#include "engine/cost_models/walk_weights.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "engine/sssp/distance_store.h"
#include "engine/raster_inputs/raster_io.h"
#include "io/store/run_directory.h"
#include "engine/sssp/exchange.h"
#include "engine/sssp/resident_exchange.h"
#include "engine/sssp/output.h"
#include "engine/sssp/source_groups.h"
#include "engine/index/index_fingerprint.h"
#include "engine/index/index_sssp.h"
#include "io/store/index_file.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"
#include "kernels/sssp/backlink.h"
#include "kernels/sssp/knight.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/device_choice.h"

namespace terrazo {

namespace {

// Tiles of a solved GPU batch; the cache must hold this many tiles at once.
constexpr std::uint32_t kCudaBatchTiles = 64;

constexpr const char* kChooseBarrierBand = "choose one with --barrier-band N";


// A raster that must lie on INPUT's grid (--barrier-raster, --friction): the same size and, where
// both are georeferenced, the same geotransform (to 1e-9 relative); `input_name` names INPUT in the
// messages.
void check_on_input_grid(const std::string& flag, const std::string& path, const RasterInfo& other,
                         const RasterInfo& input, const TileGrid& grid, const std::string& input_name) {
  if (other.width != grid.width || other.height != grid.height)
    throw UsageError(flag + " '" + path + "' is " + std::to_string(other.width) + " x " + std::to_string(other.height) +
                     " cells, " + input_name + " is " + std::to_string(grid.width) + " x " +
                     std::to_string(grid.height) + "; they must match cell for cell");
  if (!other.has_geotransform || !input.has_geotransform) return;
  for (int k = 0; k < 6; ++k) {
    const double a = other.geotransform[k], b = input.geotransform[k];
    const double tolerance = 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
    if (std::fabs(a - b) > tolerance)
      throw UsageError(flag + " '" + path + "' has another geotransform than INPUT (term " + std::to_string(k) + ": " +
                       format_value(a) + " against " + format_value(b) + "); they must cover the same cells");
  }
}

// Opens a raster of INPUT's grid in tiles of side t, as INPUT is opened (never in place: its tiles
// are read beside INPUT's), without statistics.
std::unique_ptr<PipelineInput> open_on_input_grid(const std::string& path, std::uint32_t band, std::uint32_t t, InputMode mode,
                                                  unsigned threads, RunDirectory& run, MemoryBudget& budget,
                                                  Progress& progress) {
  PipelineInputOptions o;
  o.path = path;
  o.tile = t;
  o.mode = mode == InputMode::Direct ? InputMode::Auto : mode;
  o.band = band;
  o.statistics = false;
  o.threads = threads;
  return open_pipeline_input(o, run, budget, progress);
}

}  // namespace

void check_sssp_paths(const SsspOptions& options) {
  check_distinct_paths({{"INPUT", options.input}, {"--sources-file", options.sources_file},
                        {"--source-raster", options.source_raster}, {"--friction", options.friction},
                        {"--barrier-raster", options.barrier_raster}, {"--index", options.index}},
                       {{"OUTPUT", options.output}, {"--backlink", options.backlink}, {"--allocation", options.allocation}});
}

void add_sssp_outputs(const SsspOptions& options, OutputSet& outputs) {
  for (const std::string* path : {&options.output, &options.backlink, &options.allocation})
    outputs.add_if(*path, geotiff_sidecar_suffixes());
}

std::uint64_t sssp_write_phase_bytes(const SsspOptions& options, std::uint32_t tile) {
  TileGrid grid;
  grid.tile = tile;
  const bool labelled = !options.backlink.empty() || !options.allocation.empty();
  return CostOutputsWriter::reserved_bytes(options, grid) +
         sssp_output_tile_bytes(tile, labelled, !options.backlink.empty(), halo_width(options.connectivity));
}

namespace {

// The write phase of a pass in the run's memory plan (its fixed needs: GDAL's block cache and the
// output windows, the output tile), planned now: a budget that cannot hold it is refused before any
// work. Returns its bytes.
std::uint64_t plan_sssp_write_phase(const SsspOptions& options, const TileGrid& grid, bool labelled, RunContext& context) {
  MemoryPlan& plan = context.plan();
  const std::string phase = plan.unique_name("the sssp write phase");
  const std::uint64_t outputs = CostOutputsWriter::reserved_bytes(options, grid);
  const std::uint64_t tile =
      sssp_output_tile_bytes(grid.tile, labelled, !options.backlink.empty(), halo_width(options.connectivity));
  plan.need(phase, "GDAL block cache and output windows", outputs);
  plan.need(phase, "output tile", tile);
  plan.assign(context.budget());
  return outputs + tile;
}

// The streamed exchange's phase of the plan, but its tile cache (the exchange declares that last,
// once its fixed structures are reserved): what stays unreserved beside the cache, served first.
void plan_streamed_exchange(std::uint64_t mask_bytes, std::uint64_t write_phase_bytes, RunContext& context,
                            SsspExchangeOptions& xo) {
  MemoryPlan& plan = context.plan();
  xo.plan = &plan;
  xo.plan_phase = plan.unique_name("the sssp exchange");
  if (mask_bytes) plan.need(xo.plan_phase, "the source mask's reader", mask_bytes);
  // Small allocations of the exchange (queue set nodes, lists), and the margin for what no
  // reservation tracks (worker threads' allocator slack, GDAL's encoder code): the cache is kept
  // through the write phase, where the 4 G-cell 16-neighbour run peaked.
  plan.need(xo.plan_phase, "small allocations and the allocator's margin", (1ull << 20) + context.budget().cache_margin());
  // Kept free when the cache's minimum fits beside it: the outputs are then written from the cache.
  plan.need(xo.plan_phase, "room for the write phase beside the cache", 0, write_phase_bytes);
}

}  // namespace

SsspResult run_sssp_pass(const SsspOptions& options, const SsspPass& pass, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  SsspResult result;
  if (options.input.empty()) throw UsageError("sssp: INPUT is missing");
  if (options.sources.empty() && options.sources_file.empty() && options.source_raster.empty())
    throw UsageError("no source: give --source x,y (repeatable), --sources-file FILE or --source-raster FILE");
  if (options.max_cost >= 0 && !std::isfinite(options.max_cost))
    throw UsageError("invalid --max-cost: expected a finite number");
  check_sssp_paths(options);

  // Knight's moves (GRASS r.cost -k, docs/sssp.md "Knight's moves"): the symmetric models whose
  // weight over four cells is defined, on uniform step lengths, through either exchange.
  const bool knight = options.connectivity == Connectivity::Sixteen;
  if (knight) {
    if (options.weight != WeightModel::Friction && options.weight != WeightModel::Geometric &&
        options.weight != WeightModel::Unit)
      throw UsageError(std::string("--connectivity 16 (knight's moves) takes --weight friction, geometric or unit, not ") +
                       (is_directed(options.weight) ? "--model " : "--weight ") + to_string(options.weight));
    if (options.distance == DistanceMode::Geodesic)
      throw UsageError("--connectivity 16 (knight's moves) takes --distance cells or map, not geodesic");
    if (!options.index.empty())
      throw UsageError("--connectivity 16 (knight's moves) has no index (its boundary graph is 8-connected); drop --index");
    if (options.block_solver == "bfs")
      throw UsageError("--connectivity 16 (knight's moves) runs the Dijkstra block solver; drop --block-solver bfs");
  }
  // Device: the CUDA block solver computes distances only; backlinks and allocation need the
  // CPU solver's labels.
  const bool labelled = !options.backlink.empty() || !options.allocation.empty() || pass.track_source;
  const bool use_cuda = context.device() == Device::Cuda && !labelled;
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(use_cuda ? Device::Cuda : Device::Cpu, budget);
  result.device = device_description(use_cuda ? Device::Cuda : Device::Cpu);
  if (context.device_request() == DeviceRequest::Cuda && labelled) result.device = "cpu (backlinks and allocation use the CPU solver)";
  if (options.exchange != "auto" && options.exchange != "streamed" && options.exchange != "resident")
    throw UsageError("--exchange must be auto, streamed or resident, not '" + options.exchange + "'");
  if (options.exchange == "resident" && labelled)
    throw UsageError("--exchange resident computes distances only; --backlink and --allocation need --exchange streamed");
  if (options.block_solver != "auto" && options.block_solver != "bfs" && options.block_solver != "sweep")
    throw UsageError("--block-solver must be auto, bfs or sweep, not '" + options.block_solver + "'");
  if (options.block_solver == "bfs" && options.weight != WeightModel::Unit)
    throw UsageError(std::string("--block-solver bfs needs --weight unit (every step the same weight), not --weight ") +
                     to_string(options.weight));
  if (options.resident_tile < 8 || options.resident_tile > 256)
    throw UsageError("--resident-tile must be 8 to 256, not " + std::to_string(options.resident_tile));

  if (is_directed(options.weight) && !options.index.empty())
    throw UsageError(std::string("--model ") + to_string(options.weight) + " has directed weights (uphill is not "
                     "downhill); the index holds symmetric distances: drop --index");

  // The barrier raster's band before any work: a raster of several bands needs --barrier-band
  // (--band chooses INPUT's), refused with that flag's name (docs/reliability.md "Bands").
  RasterInfo barrier_info;
  if (!options.barrier_raster.empty()) {
    const auto reader = RasterReader::open(options.barrier_raster, options.barrier_band, kChooseBarrierBand, &budget);
    barrier_info = reader->info();
    result.barrier_band = reader->band();
  } else if (options.barrier_band) {
    throw UsageError("--barrier-band chooses a band of --barrier-raster, and no --barrier-raster is given");
  }

  RunDirectory run(context.tmpdir());

  // 0. The input: a store, tiles in memory, a tiled GeoTIFF in place or an import (engine/raster_inputs/pipeline_input.h).
  Stopwatch phase;
  // --index (docs/index.md "sssp --index"): distances from the boundary-graph index, in its tile size.
  std::unique_ptr<IndexFile> index;
  std::uint32_t tile_size = options.tile;
  if (!options.index.empty()) {
    if (labelled) throw UsageError("--index computes distances only; --backlink and --allocation need the exchange (drop --index)");
    if (!options.source_raster.empty()) throw UsageError("--index takes --source points and --sources-file, not --source-raster");
    if (options.distance == DistanceMode::Geodesic)
      throw UsageError("--distance geodesic has no index (its step lengths vary by row); drop --index");
    if (!IndexFile::looks_like_index(options.index))
      throw UsageError("--index '" + options.index + "' is not a terrazo index (.tzi); make one with `terrazo index`");
    index = IndexFile::open(options.index, budget);
    tile_size = index->header().tile;
    result.device = "cpu (the index query)";
  }
  PipelineInputOptions in = pipeline_input_options(options, context);
  in.tile = tile_size;  // the index's tile with --index
  const unsigned threads = in.threads;
  // A group's pass reads the input the run opened once for all groups (pass.input).
  std::unique_ptr<PipelineInput> owned_input;
  if (!pass.input) owned_input = open_pipeline_input(in, run, budget, progress);
  const PipelineInput* const source = pass.input ? pass.input : owned_input.get();
  if (index && !options.skip_fingerprint_check)
    check_index_raster(*index, options.index, source->cells(), source->store(), options.input, budget);
  result.seconds.import = phase.seconds();
  result.input_read = source->how();
  const RasterInfo info = source->info();
  const TileGrid grid = source->grid();
  const std::uint32_t t = grid.tile;
  result.width = grid.width;
  result.height = grid.height;
  result.tile = t;
  result.tiles = grid.tile_count();
  result.valid_cells = info.valid_cells;
  if (pass.info_out) *pass.info_out = info;
  if (info.valid_cells == 0)
    throw Error("INPUT '" + options.input + "' has no valid cell (nodata everywhere): there is nothing to reach");
  // Step lengths (--distance): the geodesic table lives in `steps` for the whole run.
  const bool directed = is_directed(options.weight);
  if (options.distance != DistanceMode::Cells && options.weight != WeightModel::Friction &&
      options.weight != WeightModel::Geometric && !directed)
    throw UsageError(std::string("--distance ") + to_string(options.distance) + " scales step lengths, which only " +
                     "--weight friction, geometric and --model walk, tobler have; --weight " + to_string(options.weight) +
                     " has none");
  DistanceMode distance = options.distance;
  if (directed) {
    // r.walk's coefficients are per metre: map units on a projected CRS, metres on a lon/lat one.
    if (!options.distance_given)
      distance = !info.crs_wkt.empty() && crs_is_geographic(info.crs_wkt) ? DistanceMode::Geodesic : DistanceMode::Map;
    for (double v : {info.min, info.max})
      if (info.has_stats && !(std::fabs(v) <= 3.4e38))
        throw UsageError("INPUT (elevation) has the value " + format_value(v) + "; --model " + to_string(options.weight) +
                         " reads elevations as 32-bit floats: clip the values or set that value as nodata");
  } else if (!options.friction.empty()) {
    throw UsageError("--friction is the friction raster of --model walk and tobler (INPUT is then the elevation)");
  }
  result.distance = distance;
  auto steps_reservation = budget.reserve(step_table_bytes(distance, grid.height), "sssp step-length table");
  const StepTable steps = make_step_table(distance, info);
  result.length_unit = steps.unit;
  if (!directed) {
    result.weights = choose_weight_params(options.weight, options.scale, info, options.connectivity,
                                          kSsspDefaultStepLimit, &source->cells(), &budget, &steps.lengths);
  }

  // Barriers (--barrier-raster): cells of INPUT's grid that cannot be entered.
  std::unique_ptr<PipelineInput> barrier_source;
  std::unique_ptr<BarrierTileInput> barred;
  MemoryBudget::Reservation barrier_reservation;
  if (!options.barrier_raster.empty()) {
    RasterInfo bi = barrier_info;  // the grid check before any import
    if (bi.width == grid.width && bi.height == grid.height) {
      barrier_source = open_on_input_grid(options.barrier_raster, options.barrier_band, t, options.input_mode, threads,
                                          run, budget, progress);
      bi = barrier_source->info();
    }
    check_on_input_grid("--barrier-raster", options.barrier_raster, bi, info, grid, "INPUT");
    barrier_reservation = budget.reserve(static_cast<std::uint64_t>(threads + 1) * t * t * 8, "sssp barrier tiles");
    const TileInput& input_cells = source->cells();
    const TileInput& barrier_cells = barrier_source->cells();
    barred = std::make_unique<BarrierTileInput>(input_cells, barrier_cells);
    // Count the valid cells the barrier closes (one pass over both).
    std::vector<double> a(static_cast<std::size_t>(t) * t), b(static_cast<std::size_t>(t) * t);
    for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty)
      for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
        if (!input_cells.tile_present(tx, ty) || !barrier_cells.tile_present(tx, ty)) continue;
        input_cells.read_tile(tx, ty, a.data());
        barrier_cells.read_tile(tx, ty, b.data());
        for (std::size_t i = 0; i < a.size(); ++i)
          if (a[i] == a[i] && b[i] == b[i] && b[i] != 0) ++result.barrier_cells;
      }
  }
  // Directed models (--model walk|tobler): INPUT is the elevation, --friction an optional raster of
  // its grid; both are packed into one value per cell (engine/tile_inputs/walk_input.h).
  std::unique_ptr<PipelineInput> friction_source;
  std::unique_ptr<WalkTileInput> walk_cells;
  MemoryBudget::Reservation walk_reservation;
  if (directed) {
    if (!options.friction.empty()) {
      const RasterInfo fi = RasterReader::open(options.friction)->info();  // the grid check before any import
      if (fi.width == grid.width && fi.height == grid.height && fi.has_geotransform != info.has_geotransform)
        throw UsageError("--friction '" + options.friction + "' and INPUT must both be georeferenced on the same grid, or neither");
      check_on_input_grid("--friction", options.friction, fi, info, grid, "INPUT (elevation)");
      friction_source = open_on_input_grid(options.friction, 0, t, options.input_mode, threads, run, budget, progress);
    }
    if (friction_source)
      walk_reservation = budget.reserve(static_cast<std::uint64_t>(threads + 1) * t * t * 8, "sssp friction tiles");
    const TileInput& elevation = barred ? static_cast<const TileInput&>(*barred) : source->cells();
    walk_cells = std::make_unique<WalkTileInput>(elevation, friction_source ? &friction_source->cells() : nullptr);
    result.weights = choose_walk_weight_params(options.weight, options.walk, options.scale, *walk_cells, steps.lengths,
                                               threads, &budget);
  }
  WeightParams params = result.weights.params;
  params.walk.reverse = options.walk.reverse;
  result.weights.params = params;
  result.params = params;
  PathLength max_cost = kUnreached;
  const double max_cost_units = std::min(options.max_cost >= 0 ? options.max_cost : kNoMaximum, pass.max_cost);
  if (max_cost_units < kNoMaximum) {
    const double fixed = std::floor(max_cost_units * params.scale);
    max_cost = fixed >= 18446744073709549568.0 ? kUnreached - 1 : static_cast<PathLength>(fixed);
  }
  result.max_cost_fixed = max_cost;
  // The solver's weights: the group's multiplier times each exact weight, rounded once (the scale
  // times the multiplier), in the run's fixed point; distances, starts and maxima keep the run's scale.
  WeightParams solve_params = params;
  if (pass.multiplier != 1) {
    solve_params.scale = params.scale * pass.multiplier;
    const double largest = result.weights.largest_step * solve_params.scale;
    if (!(largest <= static_cast<double>(kMaxWeight)))
      throw UsageError("a source multiplier of " + format_value(pass.multiplier) + " takes the largest step weight to " +
                       format_value(largest) + " > 2^32 - 2 in the fixed point at scale " + format_value(params.scale) +
                       "; give a smaller --scale or a smaller multiplier");
    // Exact integer weights at the default scale (unit, or absdiff and max on integers) stay exact
    // only where scale x multiplier is an integer; a fraction would round every step by up to 0.5.
    if (!result.weights.scale_given && result.weights.step_error_bound == 0 &&
        solve_params.scale != std::floor(solve_params.scale))
      throw UsageError("the weights are exact integers at scale " + format_value(params.scale) +
                       " and a source multiplier of " + format_value(pass.multiplier) + " makes them fractions; give "
                       "--scale (e.g. --scale 1000: each step then rounds to 0.5 / 1000)");
    const double relative = result.weights.relative_error_bound / pass.multiplier;
    if (!result.weights.scale_given && relative > kMaxRelativeErrorBound)
      throw UsageError("a source multiplier of " + format_value(pass.multiplier) + " makes the cheapest step round with "
                       "a relative error up to " + format_value(relative) + " at scale " + format_value(params.scale) +
                       "; give a larger --scale or a larger multiplier");
  }

  // 1. Sources.
  phase.restart();
  progress.update("sssp: sources", 0, 1);
  std::vector<SourceCell> points;
  {
    std::string crs;
    if (!options.source_crs.empty()) crs = crs_to_wkt(options.source_crs, "--source-crs");
    std::vector<SourcePoint> flag_points = options.sources;
    for (SourcePoint& p : flag_points) {
      p.start = options.source_initial;
      p.multiplier = options.source_multiplier;
    }
    points = locate_source_points(flag_points, info, options.map_coords || !options.source_crs.empty(), crs, 1,
                                  "--source");
    if (!options.sources_file.empty()) {
      std::string file_crs;
      SourceFields fields;
      fields.start = options.source_start;
      fields.max_cost = options.source_max_field;
      fields.multiplier = options.source_multiplier_field;
      fields.default_start = options.source_initial;
      fields.default_multiplier = options.source_multiplier;
      fields.skip_empty_features = options.skip_empty_features;
      const std::vector<SourcePoint> file_points = read_source_points(options.sources_file, &file_crs, fields);
      if (file_points.empty())
        throw UsageError("--sources-file '" + options.sources_file + "' holds no point");
      // A vector file's points are map coordinates (pixel coordinates only with a CRS-less file and
      // no --map-coords would be ambiguous: a file without CRS is read in the raster's CRS).
      const auto located = locate_source_points(file_points, info, true, file_crs,
                                                static_cast<std::uint32_t>(points.size() + 1), "--sources-file");
      points.insert(points.end(), located.begin(), located.end());
    }
    // A group's pass keeps its own points (their ids stay those of the whole list).
    if (pass.filter) {
      const auto key = group_key(pass.multiplier, pass.max_cost);
      points.erase(std::remove_if(points.begin(), points.end(),
                                  [&](const SourceCell& c) { return group_key(c.multiplier, c.max_cost) != key; }),
                   points.end());
    }
  }

  const std::string store_path = run.file("distances.bin");
  if (t < halo_width(options.connectivity))
    throw UsageError("--tile " + std::to_string(t) + " is narrower than the two-cell halo of --connectivity 16");
  DistanceStore distances(store_path, grid, labelled, budget, halo_width(options.connectivity));
  // The write phase's fixed needs, planned before any work beside what is held now (the store's
  // index, the distance store). The streamed exchange leaves this much unreserved when it can, so
  // the outputs are written straight from its cache (no flush to the store and no second read of it).
  const std::uint64_t write_phase_bytes = plan_sssp_write_phase(options, grid, labelled, context);
  SsspExchangeOptions xo;
  xo.params = solve_params;
  xo.connectivity = options.connectivity;
  xo.max_cost = max_cost;
  xo.track_source = !options.allocation.empty() || pass.track_source;
  xo.track_hops = !options.backlink.empty();
  xo.device = use_cuda ? SsspSolverDevice::Cuda : SsspSolverDevice::Cpu;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  xo.threads = use_cuda ? 1 : (context.threads() ? context.threads() : cores);
  xo.batch = use_cuda ? kCudaBatchTiles : xo.threads;
  xo.cache_bytes = options.cache_bytes;
  xo.gpu_memory_bytes = context.gpu_memory_bytes();
  xo.frontier_bfs = options.block_solver == "bfs";
  result.block_solver = options.weight == WeightModel::Unit && xo.frontier_bfs && !labelled ? "bfs" : "sweep";
  // The source mask is read while the exchange holds its cache: open it first, keep its room free.
  std::unique_ptr<RasterReader> mask;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t mask_cache_bytes = 8ull << 20;
  if (!options.source_raster.empty() && pass.mask) mask = RasterReader::open(options.source_raster);
  const TileInput& input = walk_cells ? static_cast<const TileInput&>(*walk_cells)
                           : barred   ? static_cast<const TileInput&>(*barred)
                                      : source->cells();
  SsspExchangeStats stats;
  // Resident: asked for, or auto on a GPU whose memory holds the raster (with a quarter spare).
  bool resident = options.exchange == "resident" && !index;
  if (options.exchange == "auto" && use_cuda && !index) {
    const std::uint64_t need = ResidentSsspExchange::device_bytes(grid.width, grid.height, options.resident_tile,
                                                                  Device::Cuda, 1, options.connectivity);
    const std::uint64_t room = context.gpu_memory_bytes() ? context.gpu_memory_bytes() : cuda_device().global_memory / 4 * 3;
    resident = need <= room;
  }
  result.exchange = index ? "index" : resident ? "resident" : "streamed";
  // The distances of a resident exchange on a GPU stay there for the output phase (no flush to the
  // store); every other exchange leaves them in the store and releases its reservations first.
  const bool outputs_from_device = resident && use_cuda;
  // The streamed exchange serves the outputs from its cache when the write phase fits beside it.
  SsspExchange* outputs_from_cache = nullptr;
  std::unique_ptr<SsspExchangeRun> exchange_run;
  if (index) {
    result.seconds.sources = phase.seconds();
    phase.restart();
    std::vector<IndexSource> sources;
    for (const SourceCell& c : points) {
      if (c.start != 0)  // the index query seeds every source at 0
        throw UsageError(c.text + " has the initial cost " + format_value(c.start) +
                         "; --index starts every source at 0: drop --index or the initial costs");
      sources.push_back(IndexSource{c.cell, c.text});
    }
    GPrimeExchangeOptions go;
    go.params = solve_params;
    go.connectivity = options.connectivity;
    go.max_cost = max_cost;
    const IndexSsspStats is = index_sssp(input, *index, sources, go, options.cache_bytes, distances, budget, progress);
    result.sources = points.size();
    result.solves = is.tile_solves;
    result.tiles_solved = is.tiles_written;
    result.seconds.exchange = phase.seconds();
  } else {
    result.seconds.sources = phase.seconds();
    phase.restart();
    if (resident) {
      xo.threads = context.threads() ? context.threads() : cores;  // the CPU twin's solvers, or the GPU's tile readers
      exchange_run = std::make_unique<ResidentSsspExchange>(input, distances, xo, options.resident_tile,
                                                            options.resident_round, budget, progress);
    } else {
      plan_streamed_exchange(mask ? mask_cache_bytes + tile_cells * 8 + mask->resident_bytes(t) : 0, write_phase_bytes,
                             context, xo);
      exchange_run = std::make_unique<SsspExchange>(input, distances, xo, budget);
    }
    SsspExchangeRun& exchange = *exchange_run;
    result.seconds.load = phase.seconds();
    phase.restart();
    std::map<std::uint64_t, std::vector<TileSource>> by_tile;
    std::map<std::pair<std::uint64_t, std::uint32_t>, const SourceCell*> by_local;
    for (const SourceCell& s : points) {
      const std::uint64_t x = s.cell % grid.width, y = s.cell / grid.width;
      const std::uint64_t tile = (y / t) * grid.tiles_x() + x / t;
      const auto local = static_cast<std::uint32_t>((y % t) * t + x % t);
      // Initial cost in fixed point, rounded as the weights are (docs/cost_models.md).
      const double fixed = std::nearbyint(s.start * params.scale);
      if (!(fixed < 9.2e18))
        throw UsageError(s.text + ": the initial cost " + format_value(s.start) + " does not fit the fixed point at scale " +
                         format_value(params.scale));
      const PathLength start_fixed = static_cast<PathLength>(fixed);
      if (start_fixed > max_cost) ++result.sources_beyond_max_cost;
      by_tile[tile].push_back(TileSource{local, s.id, start_fixed});
      by_local.emplace(std::make_pair(tile, local), &s);
    }
    for (const auto& [tile, list] : by_tile) {
      const auto rejected = exchange.add_sources(static_cast<std::uint32_t>(tile % grid.tiles_x()),
                                                 static_cast<std::uint32_t>(tile / grid.tiles_x()), list);
      if (!rejected.empty())
        throw UsageError(by_local.at({tile, rejected.front()})->text + " is on a nodata cell" +
                         (barred ? std::string(" (or a --barrier-raster cell)") : std::string()) +
                         "; move it onto valid data");
    }
    result.sources = points.size();
    PathLength mask_start = 0;
    if (mask) {
      const double fixed = std::nearbyint(options.source_initial * params.scale);
      if (!(fixed < 9.2e18))
        throw UsageError("--source-initial " + format_value(options.source_initial) +
                         " does not fit the fixed point at scale " + format_value(params.scale));
      mask_start = static_cast<PathLength>(fixed);
    }
    if (mask) {
      const RasterInfo& mi = mask->info();
      if (mi.width != grid.width || mi.height != grid.height)
        throw UsageError("--source-raster '" + options.source_raster + "' is " + std::to_string(mi.width) + " x " +
                         std::to_string(mi.height) + " cells, INPUT is " + std::to_string(grid.width) + " x " +
                         std::to_string(grid.height) + "; they must match cell for cell");
      auto reservation = budget.reserve(tile_cells * 8 + mask->resident_bytes(t), "sssp source mask window");
      GdalCacheLimit mask_cache(budget, mask_cache_bytes);
      std::vector<double> window(tile_cells);
      std::vector<TileSource> list;
      for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty) {
        for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
          const TileWindow in = grid.window(tx, ty);
          const std::uint64_t x0 = in.x0, y0 = in.y0;
          const std::uint32_t w = in.w, h = in.h;
          mask->read_window(x0, y0, w, h, window.data());
          list.clear();
          for (std::uint32_t y = 0; y < h; ++y)
            for (std::uint32_t x = 0; x < w; ++x) {
              const double v = window[static_cast<std::size_t>(y) * w + x];
              if (v != v || v == 0) continue;
              if (!(v >= 1 && v <= 4294967294.0 && v == std::floor(v)))
                throw UsageError("--source-raster '" + options.source_raster + "' has the value " + format_value(v) +
                                 " at " + std::to_string(x0 + x) + "," + std::to_string(y0 + y) +
                                 "; source ids must be positive integers (0 or nodata: not a source)");
              list.push_back(TileSource{y * t + x, static_cast<std::uint32_t>(v), mask_start});
            }
          if (list.empty()) continue;
          const auto rejected = exchange.add_sources(tx, ty, list);
          result.mask_cells_on_nodata += rejected.size();
          result.sources += list.size() - rejected.size();
        }
        progress.update("sssp: sources", ty + 1, grid.tiles_y());
      }
      result.bytes_read += mask->bytes_read();
      if (result.sources == 0)
        throw UsageError("--source-raster '" + options.source_raster + "' marks no source on a valid INPUT cell" +
                         (result.mask_cells_on_nodata ? " (" + std::to_string(result.mask_cells_on_nodata) +
                                                            " marked cells are nodata in INPUT)"
                                                      : std::string()));
    }
    progress.update("sssp: sources", 1, 1);
    result.seconds.sources += phase.seconds();

    // 2. Block-local solves and boundary exchange.
    phase.restart();
    exchange.run(progress);
    result.seconds.exchange = phase.seconds();
    stats = exchange.stats();
    if (const auto* r = dynamic_cast<const ResidentSsspExchange*>(exchange_run.get())) result.resident = r->resident_stats();
    if (!outputs_from_device) {
      phase.restart();
      auto* streamed = dynamic_cast<SsspExchange*>(exchange_run.get());
      if (streamed && write_phase_bytes <= budget.available()) {
        outputs_from_cache = streamed;
      } else {
        exchange.flush();
        exchange_run.reset();
      }
      result.seconds.flush = phase.seconds();
    }
  }
  if (!index) {
    result.solves = stats.solves;
    result.tiles_solved = stats.tiles_solved;
    result.resolves = stats.resolves;
    result.rounds = stats.rounds;
    result.cache_tiles = stats.cache_capacity;
    result.cache_evictions = stats.cache_evictions;
  }

  // The header's statistics set the weight scale: every stored tile is checked against them
  // (exactly: io/store/tile_store.h) before any output is published, also the tiles this run did not
  // need (--max-cost, regions no source reaches), which are read now.
  source->check_unseen_tiles(budget);

  // 3. Outputs. The store is at its largest now; each tile's slot is released once written, so the
  // outputs grow into the space the store gives back.
  result.scratch_bytes = distances.bytes_on_disk();
  phase.restart();
  {
    std::unique_ptr<CostOutputsWriter> writer;
    SsspResultSink* sink_ptr = nullptr;
    if (pass.scratch) {
      *pass.scratch = std::make_unique<SsspGroupScratch>(pass.scratch_path, grid, xo.track_source,
                                                         !options.backlink.empty(), budget);
      sink_ptr = pass.scratch->get();
    } else {
      if (!pass.outputs) throw Error("internal error: an sssp pass without the run's outputs");
      writer = std::make_unique<CostOutputsWriter>(options, *pass.outputs, info, grid, params.scale, budget);
      sink_ptr = writer.get();
    }
    SsspResultSink& sink = *sink_ptr;
    SsspLabelSource& labels = outputs_from_device ? static_cast<SsspLabelSource&>(
                                                        static_cast<ResidentSsspExchange&>(*exchange_run))
                              : outputs_from_cache ? static_cast<SsspLabelSource&>(*outputs_from_cache)
                                                   : distances;
    const SsspOutputStats out =
        write_sssp_results(input, labels, xo, !options.backlink.empty(), sink, budget, progress, true);
    if (writer) result.bytes_written += writer->finish();
    if (pass.scratch) (*pass.scratch)->finish_writing();
    result.reached_cells = out.reached_cells;
    result.max_distance_fixed = out.max_dist;
    result.max_distance = static_cast<double>(out.max_dist) / params.scale;
  }
  result.seconds.write = phase.seconds();
  exchange_run.reset();

  result.bytes_read += (owned_input ? source->bytes_read() : 0) + distances.bytes_read() + (barrier_source ? barrier_source->bytes_read() : 0) +
                      (friction_source ? friction_source->bytes_read() : 0);
  result.bytes_written += distances.bytes_written() + (owned_input ? source->bytes_written() : 0) +
                          (barrier_source ? barrier_source->bytes_written() : 0) +
                          (friction_source ? friction_source->bytes_written() : 0);
  result.seconds.total = start.seconds();
  result.peak_rss_bytes = peak_rss_bytes();
  result.memory_peak_reserved = budget.peak_reserved();
  return result;
}

SsspResult run_sssp(const SsspOptions& options, RunContext& context) {
  if (!(options.source_initial >= 0 && std::isfinite(options.source_initial)))
    throw UsageError("invalid --source-initial " + format_value(options.source_initial) +
                     ": expected a finite cost >= 0");
  if (!(options.source_multiplier > 0 && std::isfinite(options.source_multiplier)))
    throw UsageError("invalid --source-multiplier " + format_value(options.source_multiplier) +
                     ": expected a finite number > 0");
  for (const auto& [flag, field] : {std::make_pair("--source-initial-field", &options.source_start),
                                    std::make_pair("--source-max-field", &options.source_max_field),
                                    std::make_pair("--source-multiplier-field", &options.source_multiplier_field)})
    if (!field->empty() && options.sources_file.empty())
      throw UsageError(std::string(flag) + " names an attribute of --sources-file, and no --sources-file is given");
  const bool per_source = !options.source_max_field.empty() || !options.source_multiplier_field.empty() ||
                          options.source_multiplier != 1;
  // Every output's partial file is made before any work and all are published together at the end
  // (io/store/output_set.h): a failure writing any of them publishes none.
  check_sssp_paths(options);
  OutputSet outputs;
  add_sssp_outputs(options, outputs);
  SsspResult result;
  if (per_source) {
    result = run_sssp_groups(options, outputs, context);
  } else {
    SsspPass pass;
    pass.outputs = &outputs;
    result = run_sssp_pass(options, pass, context);
  }
  outputs.publish();
  return result;
}

}  // namespace terrazo
