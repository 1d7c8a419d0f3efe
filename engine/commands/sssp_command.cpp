// engine/commands/sssp_command.cpp: parse_sssp_options, sssp_usage, run_sssp_command (engine/commands/sssp_command.h).
#include "engine/commands/sssp_command.h"
#include "kernels/sssp/knight.h"
#include "engine/cost_models/walk_weights.h"

#include <cstdio>

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

namespace {

// The sources' flags: --source, --map-coords, --source-crs, --sources-file and its fields,
// --source-raster, --index, --source-initial, --source-multiplier.
void parse_source_flags(ArgParser& args, SsspOptions& options) {
  for (const std::string& text : args.values("--source")) options.sources.push_back(parse_source_point(text));
  options.map_coords = args.flag("--map-coords");
  if (auto crs = args.value("--source-crs")) options.source_crs = *crs;
  if (auto file = args.value("--sources-file")) options.sources_file = *file;
  options.skip_empty_features =
      parse_qualifying_switch(args, "--skip-empty-features", !options.sources_file.empty(), "--sources-file FILE");
  if (auto file = args.value("--source-raster")) options.source_raster = *file;
  if (auto file = args.value("--index")) options.index = *file;
  options.skip_fingerprint_check =
      parse_qualifying_switch(args, "--skip-fingerprint-check", !options.index.empty(), "--index INDEX.tzi");
  for (const char* flag : {"--source-start", "--source-initial-field", "--source-max-field", "--source-multiplier-field"}) {
    const auto field = args.value(flag);
    if (!field) continue;
    if (field->empty()) throw UsageError(std::string(flag) + " needs an attribute name of --sources-file");
    const std::string name = flag;
    std::string& target = name == "--source-max-field"          ? options.source_max_field
                          : name == "--source-multiplier-field" ? options.source_multiplier_field
                                                                : options.source_start;
    if (!target.empty() && (name == "--source-start" || name == "--source-initial-field"))
      throw UsageError("--source-start and --source-initial-field are the same setting: give one");
    target = *field;
    if (options.sources_file.empty())
      throw UsageError(name + " names an attribute of --sources-file, and no --sources-file is given");
  }
  if (auto v = parse_signed_double(args, "--source-initial", Sign::NonNegative, "a cost >= 0")) options.source_initial = *v;
  if (auto v = parse_signed_double(args, "--source-multiplier", Sign::Positive, "a number > 0"))
    options.source_multiplier = *v;
}

// The weight model's flags: --weight or --model walk|tobler, --friction, the walk's parameters,
// --direction, --distance.
void parse_weight_flags(ArgParser& args, SsspOptions& options) {
  const auto weight_text = args.value("--weight");
  if (weight_text) options.weight = parse_weight_model(*weight_text);
  // --model walk|tobler: directed weights from INPUT's elevations (docs/cost_models.md).
  if (auto model = args.value("--model")) {
    if (*model != "walk" && *model != "tobler")
      throw UsageError("invalid --model '" + *model + "': expected walk (GRASS r.walk) or tobler (Tobler's hiking function)");
    if (weight_text)
      throw UsageError("--model " + *model + " and --weight " + *weight_text + " are two weight models: give one");
    options.weight = *model == "walk" ? WeightModel::Walk : WeightModel::Tobler;
  }
  const bool directed = is_directed(options.weight);
  if (auto file = args.value("--friction")) options.friction = *file;
  if (auto text = args.value("--walk-coeff")) {
    if (options.weight != WeightModel::Walk) throw UsageError("--walk-coeff applies to --model walk");
    std::vector<double> v;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = text->find(',', start);
      v.push_back(parse_finite_double("--walk-coeff", text->substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (v.size() != 4) throw UsageError("invalid --walk-coeff '" + *text + "': expected four numbers a,b,c,d, e.g. 0.72,6.0,1.9998,-1.9998");
    options.walk.a = v[0];
    options.walk.b = v[1];
    options.walk.c = v[2];
    options.walk.d = v[3];
  }
  if (auto text = args.value("--lambda")) options.walk.lambda = parse_finite_double("--lambda", *text);
  if (auto text = args.value("--slope-factor")) {
    if (options.weight != WeightModel::Walk) throw UsageError("--slope-factor applies to --model walk");
    options.walk.slope_factor = parse_finite_double("--slope-factor", *text);
  }
  if (!directed && (!options.friction.empty() || options.walk.lambda != WalkParams{}.lambda))
    throw UsageError(std::string(options.friction.empty() ? "--lambda" : "--friction") +
                     " applies to --model walk and tobler (INPUT is then the elevation)");
  if (auto direction = args.value("--direction")) {
    if (*direction != "from" && *direction != "to")
      throw UsageError("invalid --direction '" + *direction + "': expected from (travel from the sources, the default) or to (travel to them)");
    options.walk.reverse = *direction == "to";
  }
  if (directed) check_walk_params(options.walk);
  if (auto distance = args.value("--distance")) {
    options.distance = parse_distance_mode(*distance);
    options.distance_given = true;
    if (options.distance != DistanceMode::Cells && options.weight != WeightModel::Friction &&
        options.weight != WeightModel::Geometric && !directed)
      throw UsageError("--distance " + *distance + " applies to --weight friction and geometric and --model walk and tobler, not --weight " +
                       to_string(options.weight));
  }
}

// The solver's flags: --scale, --connectivity, --exchange, --block-solver, --resident-tile,
// --resident-round.
void parse_solver_flags(ArgParser& args, SsspOptions& options) {
  if (auto scale = parse_signed_double(args, "--scale", Sign::Positive, "a positive number, e.g. 1000")) options.scale = *scale;
  if (auto connectivity = args.value("--connectivity"))
    options.connectivity = *connectivity == "16" ? Connectivity::Sixteen : parse_connectivity(*connectivity);
  if (auto exchange = args.value("--exchange")) {
    if (*exchange != "auto" && *exchange != "streamed" && *exchange != "resident")
      throw UsageError("invalid --exchange '" + *exchange + "': expected auto, streamed or resident");
    options.exchange = *exchange;
  }
  if (auto solver = args.value("--block-solver")) {
    if (*solver != "auto" && *solver != "bfs" && *solver != "sweep")
      throw UsageError("invalid --block-solver '" + *solver + "': expected auto, bfs or sweep");
    options.block_solver = *solver;
  }
  if (auto side = args.int_value("--resident-tile")) {
    if (*side < 8 || *side > 256)
      throw UsageError("invalid --resident-tile " + std::to_string(*side) + ": expected a tile side from 8 to 256");
    options.resident_tile = static_cast<std::uint32_t>(*side);
  }
  if (auto round = args.int_value("--resident-round")) {
    if (*round < 1 || *round > (std::int64_t{1} << 32))
      throw UsageError("invalid --resident-round " + std::to_string(*round) + ": expected 1 to 2^32 tiles");
    options.resident_round = static_cast<std::uint64_t>(*round);
  }
}

// --barrier-raster and its --barrier-band.
void parse_barrier_flags(ArgParser& args, SsspOptions& options) {
  options.barrier_band = parse_band_option(args, "--barrier-band");
  if (auto file = args.value("--barrier-raster")) options.barrier_raster = *file;
  if (options.barrier_band && options.barrier_raster.empty())
    throw UsageError("--barrier-band chooses a band of --barrier-raster, and no --barrier-raster is given");
}

}  // namespace

SsspCommandOptions parse_sssp_options(const std::vector<std::string>& arguments) {
  auto parsed = parse_raster_command("sssp", arguments, &SsspCommandOptions::sssp, "INPUT COST.tif",
                                     [](ArgParser& args, SsspOptions& options) {
    parse_source_flags(args, options);
    if (auto file = args.value("--backlink")) options.backlink = *file;
    if (auto file = args.value("--allocation")) options.allocation = *file;
    parse_weight_flags(args, options);
    parse_barrier_flags(args, options);
    parse_solver_flags(args, options);
    if (auto type = args.value("--ot")) options.cost_type = parse_float_output_type(*type);
    if (auto cost = parse_signed_double(args, "--max-cost", Sign::NonNegative, "a cost >= 0")) options.max_cost = *cost;
  });
  const CommonOptions& common = parsed.common;
  SsspOptions& options = parsed.sssp;
  if (options.output == "-") options.output.clear();
  if (options.output.empty() && options.backlink.empty() && options.allocation.empty() && !common.json)
    throw UsageError("COST.tif is '-' and none of --backlink, --allocation, --json is given: nothing would be output");
  if (options.output.empty() && options.cost_type != CellType::Float64)
    throw UsageError("--ot applies to COST.tif, and COST.tif is '-'");
  if (options.sources.empty() && options.sources_file.empty() && options.source_raster.empty())
    throw UsageError("no source: give --source x,y (repeatable), --sources-file FILE or --source-raster FILE");
  if (options.map_coords && options.sources.empty())
    throw UsageError("--map-coords applies to --source points, and none is given");
  return parsed;
}

SsspCommandResult run_sssp_command(const SsspCommandOptions& options, Progress& progress) {
  const SsspOptions& o = options.sssp;
  return run_ranked_entry_point<SsspCommandResult>(
      options, progress, run_sssp, o, "sssp", {o.input, o.sources_file, o.source_raster, o.index, o.barrier_raster, o.friction},
      {o.output, o.backlink, o.allocation});
}

std::string SsspCommandResult::summary() const {
  const SsspResult& r = result;
  return format_line("sssp: %llu sources, %llu of %llu valid cells reached, max cost %.6f; %llu tiles solved "
                     "(%llu re-solves)",
                     static_cast<unsigned long long>(r.sources), static_cast<unsigned long long>(r.reached_cells),
                     static_cast<unsigned long long>(r.valid_cells), r.max_distance,
                     static_cast<unsigned long long>(r.tiles_solved), static_cast<unsigned long long>(r.resolves)) +
         run_line_tail(r.seconds.total, r.peak_rss_bytes);
}

namespace {

// The resident exchange's own counters, and the paged solver's when it paged.
JsonObject resident_json(const SsspResult& r, std::uint32_t tile) {
  JsonObject resident;
  resident.add("tile", tile)
      .add("rounds", r.resident.rounds)
      .add("max_round_tiles", r.resident.max_active)
      .add("sweeps", r.resident.sweeps)
      .add("gpu_ms", r.resident.kernel_ms)
      .add("select_ms", r.resident.select_ms)
      .add("solve_ms", r.resident.solve_ms);
  if (r.resident_slots) {
    JsonObject paged;
    paged.add("device_slots", r.resident_slots)
        .add("pages_in", r.resident.pages_in)
        .add("pages_out", r.resident.pages_out)
        .add("bus_bytes", r.resident.bus_bytes)
        .add("paging_ms", r.resident.paging_ms)
        .add("host_setup_ms", r.resident.host_setup_ms);
    resident.add("paged", paged);
  }
  return resident;
}

}  // namespace

std::string SsspCommandResult::to_json() const {
  const SsspResult& r = result;
  const SsspOptions& o = options.sssp;
  JsonObject phases;
  phases.add("import", r.seconds.import)
      .add("load", r.seconds.load)
      .add("sources", r.seconds.sources)
      .add("exchange", r.seconds.exchange)
      .add("flush", r.seconds.flush)
      .add("write", r.seconds.write)
      .add("write_read", r.seconds.write_read)
      .add("write_prepare", r.seconds.write_prepare)
      .add("write_hand_off", r.seconds.write_hand_off)
      .add("write_finish", r.seconds.write_finish);
  JsonObject summary = json_head("sssp", o.input, o.output);
  summary.add("backlink", o.backlink)
      .add("allocation", o.allocation)
      .add("cost_type", to_string(o.cost_type));
  add_raster_keys(summary, r)
      .add("device", r.device)
      .add("exchange", r.exchange)
      .add("block_solver", r.block_solver)
      .add("weight", to_string(r.params.model))
      .add("distance", to_string(r.distance))
      .add("direction", r.params.walk.reverse ? "to" : "from")
      .add("length_unit", r.length_unit)
      .add("barrier_raster", o.barrier_raster)
      .add("barrier_band", r.barrier_band)
      .add("barrier_cells", r.barrier_cells)
      .add("connectivity", static_cast<int>(o.connectivity));
  add_scale_keys(summary, r.params, r.weights)
      .add("sources", r.sources)
      .add("source_start", o.source_start)
      .add("source_max_field", o.source_max_field)
      .add("source_multiplier_field", o.source_multiplier_field)
      .add("source_initial", o.source_initial)
      .add("source_multiplier", o.source_multiplier)
      .add("source_groups", r.source_groups)
      .add("sources_beyond_max_cost", r.sources_beyond_max_cost)
      .add("valid_cells", r.valid_cells)
      .add("reached_cells", r.reached_cells)
      .add("max_distance", r.max_distance)
      .add("max_distance_fixed", r.max_distance_fixed)
      .add("tiles", r.tiles)
      .add("tiles_solved", r.tiles_solved)
      .add("solves", r.solves)
      .add("resolves", r.resolves)
      .add("rounds", r.rounds)
      .add("cache_tiles", r.cache_tiles)
      .add("cache_evictions", r.cache_evictions)
      .add("phases", phases)
      .add("seconds", r.seconds.total);
  add_pipeline_totals(summary, *this).add("scratch_bytes", r.scratch_bytes);
  if (r.max_cost_fixed != kUnreached) summary.add("max_cost_fixed", r.max_cost_fixed);
  if (r.exchange == "resident") summary.add("resident", resident_json(r, o.resident_tile));
  if (!r.ranks.empty()) summary.add("ranks", ranks_json(r.ranks));
  return summary.str();
}

}  // namespace terrazo
