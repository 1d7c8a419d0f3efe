// engine/commands/sssp_pass_input.cpp: the input stages of one sssp pass (engine/commands/sssp_pass_input.h).
#include "engine/commands/sssp_pass_input.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <thread>
#include "engine/commands/cost_outputs_writer.h"
#include "engine/commands/sssp_groups.h"
#include "engine/commands/sssp_pass_sources.h"
#include "engine/cost_models/walk_weights.h"
#include "engine/index/index_fingerprint.h"
#include "engine/index/index_sssp.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/raster_inputs/raster_io.h"
#include "engine/run/tile_ownership.h"
#include "engine/sssp/border_mail.h"
#include "engine/sssp/distance_store.h"
#include "engine/sssp/distributed_output.h"
#include "engine/sssp/exchange.h"
#include "engine/sssp/output.h"
#include "engine/sssp/resident_exchange.h"
#include "engine/sssp/source_groups.h"
#include "engine/tile_inputs/barrier_input.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "engine/tile_inputs/walk_input.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/index_file.h"
#include "io/store/run_directory.h"
#include "io/store/tile_store.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/sssp/backlink.h"
#include "kernels/sssp/knight.h"

namespace terrazo {
namespace sssp_pass {

namespace {

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

// --index (docs/index.md "sssp --index"): distances from the boundary-graph index, in its tile size.
std::unique_ptr<IndexFile> open_index(const SsspOptions& options, bool labelled, MemoryBudget& budget, SsspResult& result) {
  if (options.index.empty()) return nullptr;
  if (labelled) throw UsageError("--index computes distances only; --backlink and --allocation need the exchange (drop --index)");
  if (!options.source_raster.empty()) throw UsageError("--index takes --source points and --sources-file, not --source-raster");
  if (options.distance == DistanceMode::Geodesic)
    throw UsageError("--distance geodesic has no index (its step lengths vary by row); drop --index");
  if (!IndexFile::looks_like_index(options.index))
    throw UsageError("--index '" + options.index + "' is not a terrazo index (.tzi); make one with `terrazo index`");
  std::unique_ptr<IndexFile> index = IndexFile::open(options.index, budget);
  result.device = "cpu (the index query)";
  return index;
}

}  // namespace

// The barrier raster's band before any work: a raster of several bands needs --barrier-band
// (--band chooses INPUT's), refused with that flag's name (docs/reliability.md "Bands"). Returns
// its info (empty without --barrier-raster).
RasterInfo open_barrier_band(const SsspOptions& options, MemoryBudget& budget, SsspResult& result) {
  RasterInfo barrier_info;
  if (!options.barrier_raster.empty()) {
    const auto reader = RasterReader::open(options.barrier_raster, options.barrier_band, kChooseBarrierBand, &budget);
    barrier_info = reader->info();
    result.barrier_band = reader->band();
  } else if (options.barrier_band) {
    throw UsageError("--barrier-band chooses a band of --barrier-raster, and no --barrier-raster is given");
  }
  return barrier_info;
}


// Phase "import": the index, then INPUT (a store, tiles in memory, a tiled GeoTIFF in place or an
// import: engine/raster_inputs/pipeline_input.h), checked against the index's fingerprint; a raster
// without a valid cell is refused.
void open_pass_input(const SsspOptions& options, const SsspPass& pass, bool labelled, RunContext& context,
                     PassInput& input, SsspResult& result) {
  MemoryBudget& budget = context.budget();
  Stopwatch phase;
  input.index = open_index(options, labelled, budget, result);
  PipelineInputOptions in = pipeline_input_options(options, context);
  if (input.index) in.tile = input.index->header().tile;  // the index's tile with --index
  else in.tile = options.tile;
  input.threads = in.threads;
  // A group's pass reads the input the run opened once for all groups (pass.input).
  if (!pass.input) input.owned = open_pipeline_input(in, input.run, budget, context.progress());
  input.source = pass.input ? pass.input : input.owned.get();
  if (input.index && !options.skip_fingerprint_check)
    check_index_raster(*input.index, options.index, input.source->cells(), input.source->store(), options.input, budget);
  result.seconds.import = phase.seconds();
  result.input_read = input.source->how();
  input.info = input.source->info();
  input.grid = input.source->grid();
  result.width = input.grid.width;
  result.height = input.grid.height;
  result.tile = input.grid.tile;
  result.tiles = input.grid.tile_count();
  result.valid_cells = input.info.valid_cells;
  if (pass.info_out) *pass.info_out = input.info;
  if (input.info.valid_cells == 0)
    throw Error("INPUT '" + options.input + "' has no valid cell (nodata everywhere): there is nothing to reach");
}


// The step lengths of --distance (walk and tobler: map units, or metres on a lon/lat CRS, unless
// given) and, for the symmetric models, the weights.
void choose_steps(const SsspOptions& options, const PassInput& input, MemoryBudget& budget, PassWeights& weights,
                  SsspResult& result) {
  const RasterInfo& info = input.info;
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
  weights.steps_reservation = budget.reserve(step_table_bytes(distance, input.grid.height), "sssp step-length table");
  weights.steps = make_step_table(distance, info);
  result.length_unit = weights.steps.unit;
  if (!directed) {
    result.weights = choose_weight_params(options.weight, options.scale, info, options.connectivity,
                                          kSsspDefaultStepLimit, &input.source->cells(), &budget,
                                          &weights.steps.lengths);
  }
}


// Barriers (--barrier-raster): cells of INPUT's grid that cannot be entered; counts the valid cells
// they close (one pass over both).
void open_barriers(const SsspOptions& options, const RasterInfo& barrier_info, PassInput& input, RunContext& context,
                   PassCells& cells, SsspResult& result) {
  if (options.barrier_raster.empty()) return;
  MemoryBudget& budget = context.budget();
  const TileGrid& grid = input.grid;
  const std::uint32_t t = grid.tile;
  RasterInfo bi = barrier_info;  // the grid check before any import
  if (bi.width == grid.width && bi.height == grid.height) {
    cells.barrier_source = open_on_input_grid(options.barrier_raster, options.barrier_band, t, options.input_mode,
                                              input.threads, input.run, budget, context.progress());
    bi = cells.barrier_source->info();
  }
  check_on_input_grid("--barrier-raster", options.barrier_raster, bi, input.info, grid, "INPUT");
  cells.barrier_reservation =
      budget.reserve(static_cast<std::uint64_t>(input.threads + 1) * t * t * 8, "sssp barrier tiles");
  const TileInput& input_cells = input.source->cells();
  const TileInput& barrier_cells = cells.barrier_source->cells();
  cells.barred = std::make_unique<BarrierTileInput>(input_cells, barrier_cells);
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
// its grid; both are packed into one value per cell (engine/tile_inputs/walk_input.h), whose
// weights are chosen here.
void open_walk_cells(const SsspOptions& options, PassInput& input, const PassWeights& weights, RunContext& context,
                     PassCells& cells, SsspResult& result) {
  if (!is_directed(options.weight)) return;
  MemoryBudget& budget = context.budget();
  const RasterInfo& info = input.info;
  const TileGrid& grid = input.grid;
  const std::uint32_t t = grid.tile;
  if (!options.friction.empty()) {
    const RasterInfo fi = RasterReader::open(options.friction)->info();  // the grid check before any import
    if (fi.width == grid.width && fi.height == grid.height && fi.has_geotransform != info.has_geotransform)
      throw UsageError("--friction '" + options.friction + "' and INPUT must both be georeferenced on the same grid, or neither");
    check_on_input_grid("--friction", options.friction, fi, info, grid, "INPUT (elevation)");
    cells.friction_source = open_on_input_grid(options.friction, 0, t, options.input_mode, input.threads, input.run,
                                               budget, context.progress());
  }
  if (cells.friction_source)
    cells.walk_reservation =
        budget.reserve(static_cast<std::uint64_t>(input.threads + 1) * t * t * 8, "sssp friction tiles");
  const TileInput& elevation = cells.barred ? static_cast<const TileInput&>(*cells.barred) : input.source->cells();
  cells.walk_cells =
      std::make_unique<WalkTileInput>(elevation, cells.friction_source ? &cells.friction_source->cells() : nullptr);
  result.weights = choose_walk_weight_params(options.weight, options.walk, options.scale, *cells.walk_cells,
                                             weights.steps.lengths, input.threads, &budget);
}

// The run's fixed point, --max-cost (and the group's maximum) in it, and the solver's weights: the
// group's multiplier times each exact weight, rounded once (the scale times the multiplier), in the
// run's fixed point; distances, starts and maxima keep the run's scale.
void fix_weights(const SsspOptions& options, const SsspPass& pass, PassWeights& weights, SsspResult& result) {
  WeightParams params = result.weights.params;
  params.walk.reverse = options.walk.reverse;
  result.weights.params = params;
  result.params = params;
  weights.params = params;
  const double max_cost_units = std::min(options.max_cost >= 0 ? options.max_cost : kNoMaximum, pass.max_cost);
  if (max_cost_units < kNoMaximum) {
    const double fixed = std::floor(max_cost_units * params.scale);
    weights.max_cost = fixed >= 18446744073709549568.0 ? kUnreached - 1 : static_cast<PathLength>(fixed);
  }
  result.max_cost_fixed = weights.max_cost;
  weights.solve_params = params;
  if (pass.multiplier == 1) return;
  WeightParams& solve_params = weights.solve_params;
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

}  // namespace sssp_pass
}  // namespace terrazo
