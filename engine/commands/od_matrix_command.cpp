// engine/commands/od_matrix_command.cpp: parse_od_matrix_options, od_matrix_usage, od_matrix_csv,
// run_od_matrix_command (engine/commands/od_matrix_command.h).
#include "engine/commands/od_matrix_command.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/commands/index_command.h"
#include "engine/commands/output_paths.h"
#include "engine/commands/path.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"
#include "io/store/atomic_output.h"
#include "io/store/output_set.h"

namespace terrazo {

namespace {

std::string format_cost(PathLength d, double scale) {
  if (d == kUnreached) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", static_cast<double>(d) / scale);
  return buffer;
}

}  // namespace

OdMatrixCommandOptions parse_od_matrix_options(const std::vector<std::string>& arguments) {
  ArgParser args("od-matrix", arguments);
  auto parsed = parse_common<OdMatrixCommandOptions>(args);
  OdMatrixOptions& o = parsed.od;
  for (const std::string& text : args.values("--site")) o.sites.push_back(parse_source_point(text, "--site"));
  o.map_coords = args.flag("--map-coords");
  if (auto file = args.value("--sites-file")) o.sites_file = *file;
  o.skip_empty_features = parse_qualifying_switch(args, "--skip-empty-features", !o.sites_file.empty(), "--sites-file FILE");
  if (auto file = args.value("--sites-raster")) o.sites_raster = *file;
  if (auto file = args.value("--index")) o.index = *file;
  o.transient_index = args.flag("--transient-index");
  o.skip_fingerprint_check = parse_qualifying_switch(args, "--skip-fingerprint-check", !o.index.empty(), "--index INDEX.tzi");
  if (o.transient_index && !o.index.empty()) throw UsageError("--transient-index builds its own index: leave out --index");
  parse_index_weight_options(args, o);
  if (auto cost = parse_signed_double(args, "--max-cost", Sign::NonNegative, "a cost >= 0")) o.max_cost = *cost;
  o.wide = args.flag("--wide");
  if (auto file = args.value("--geojson")) o.geojson = *file;
  if (auto exchange = args.value("--exchange")) o.exchange = *exchange;
  const std::vector<std::string> files = args.positionals(2, 2, "INPUT OUT.csv");
  o.input = files[0];
  o.output = files[1];
  if (!o.sites_raster.empty() && (!o.sites.empty() || !o.sites_file.empty()))
    throw UsageError("--sites-raster gives region sites; --site and --sites-file give point sites: use one kind");
  if (o.sites_file.empty() && o.sites_raster.empty() && o.sites.size() < 2)
    throw UsageError("od-matrix needs at least 2 sites (got " + std::to_string(o.sites.size()) +
                     "): give --site x,y more than once or --sites-file FILE");
  if (o.map_coords && o.sites.empty()) throw UsageError("--map-coords applies to --site points, and none is given");
  const CommonOptions& common = parsed.common;
  o.tile = common.tile;
  return parsed;
}

static std::string site_id(const OdMatrixResult& r, std::uint64_t i) {
  return std::to_string(r.site_ids.empty() ? i + 1 : r.site_ids[i]);
}

std::string od_matrix_geojson(const OdMatrixResult& r) {
  const std::uint64_t k = r.sites;
  const auto& g = r.info.geotransform;
  auto point = [&](std::uint64_t cell) {
    const double x = static_cast<double>(cell % r.width) + 0.5, y = static_cast<double>(cell / r.width) + 0.5;
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "[ %.17g, %.17g ]", g[0] + x * g[1] + y * g[2], g[3] + x * g[4] + y * g[5]);
    return std::string(buffer);
  };
  std::string out = "{\n\"type\": \"FeatureCollection\",\n\"name\": \"od_matrix\",\n";
  const std::string urn = crs_urn(r.info.crs_wkt);
  if (!urn.empty()) out += "\"crs\": { \"type\": \"name\", \"properties\": { \"name\": \"" + urn + "\" } },\n";
  out += "\"features\": [\n";
  bool first = true;
  for (std::uint64_t i = 0; i < k; ++i)
    for (std::uint64_t j = i + 1; j < k; ++j) {
      const PathLength d = std::min(r.costs[i * k + j], r.costs[j * k + i]);
      if (d == kUnreached) continue;
      out += std::string(first ? "" : ",\n") + "{ \"type\": \"Feature\", \"properties\": { \"from_id\": " + site_id(r, i) +
             ", \"to_id\": " + site_id(r, j) + ", \"cost\": " + format_cost(d, r.params.scale) +
             " }, \"geometry\": { \"type\": \"LineString\", \"coordinates\": [ " + point(r.site_cells[i]) + ", " +
             point(r.site_cells[j]) + " ] } }";
      first = false;
    }
  out += "\n]\n}\n";
  return out;
}

std::string od_matrix_csv(const OdMatrixResult& r, bool wide) {
  std::string out;
  const std::uint64_t k = r.sites;
  if (wide) {
    out += "from_id";
    for (std::uint64_t j = 0; j < k; ++j) out += "," + site_id(r, j);
    out += "\n";
    for (std::uint64_t i = 0; i < k; ++i) {
      out += site_id(r, i);
      for (std::uint64_t j = 0; j < k; ++j) out += "," + format_cost(r.costs[i * k + j], r.params.scale);
      out += "\n";
    }
    return out;
  }
  out += "from_id,to_id,cost\n";
  for (std::uint64_t i = 0; i < k; ++i)
    for (std::uint64_t j = 0; j < k; ++j)
      out += site_id(r, i) + "," + site_id(r, j) + "," + format_cost(r.costs[i * k + j], r.params.scale) + "\n";
  return out;
}

std::vector<NamedPath> od_matrix_input_paths(const OdMatrixOptions& o) {
  return {{"INPUT", o.input}, {"--index", o.index}, {"--sites-file", o.sites_file}, {"--sites-raster", o.sites_raster}};
}

namespace {

// `text` into the partial file of `output` (given as `role`), closed; the run's OutputSet publishes it.
void write_output_text(const AtomicOutput& output, const std::string& text, const std::string& role) {
  std::FILE* f = std::fopen(output.partial().c_str(), "wb");
  if (!f)
    throw IoError(role + " '" + output.path() + "': cannot create '" + output.partial() + "': " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int error = errno;
  if (std::fclose(f) != 0 || !ok)
    throw IoError(role + " '" + output.path() + "': write failed: " + std::strerror(ok ? errno : error) +
                  "; no output of this run was published");
}

}  // namespace

std::vector<std::string> check_od_matrix_inputs(const OdMatrixOptions& o) {
  std::vector<std::string> inputs;
  for (const std::string* path : {&o.input, &o.index, &o.sites_file, &o.sites_raster})
    if (!path->empty()) inputs.push_back(*path);
  check_run_files(inputs, {});
  return inputs;
}

OdMatrixCommandResult run_od_matrix_command(const OdMatrixCommandOptions& options, Progress& progress) {
  const OdMatrixOptions& o = options.od;
  const std::vector<std::string> inputs = check_od_matrix_inputs(o);
  check_distinct_paths(od_matrix_input_paths(o), {{"OUT.csv", o.output}, {"--geojson", o.geojson}});
  check_output_file(o.output, inputs);
  if (!o.geojson.empty()) check_output_file(o.geojson, inputs);
  // Every output's partial file is made before any work and all are published together at the end
  // (io/store/output_set.h): a failure writing either publishes neither.
  OutputSet outputs;
  AtomicOutput& csv = outputs.add(o.output);
  AtomicOutput* lines = outputs.add_if(o.geojson);
  const OdMatrixCommandResult r = run_in_context<OdMatrixCommandResult>(
      options, run_settings(options.common), progress, [&](RunContext& context) { return run_od_matrix(o, context); });
  write_output_text(csv, od_matrix_csv(r.result, o.wide), "OUT.csv");
  if (lines) write_output_text(*lines, od_matrix_geojson(r.result), "--geojson");
  outputs.publish();
  return r;
}

std::string OdMatrixCommandResult::summary() const {
  const OdMatrixResult& r = result;
  return format_line("od-matrix: %llu sites (%s, %s), %llu of %llu pairs reached",
                     static_cast<unsigned long long>(r.sites), r.method.c_str(), r.device.c_str(),
                     static_cast<unsigned long long>(r.pairs_reached), static_cast<unsigned long long>(r.sites * r.sites)) +
         run_line_tail(r.seconds_total, r.peak_rss_bytes);
}

std::string OdMatrixCommandResult::to_json() const {
  const OdMatrixResult& r = result;
  const OdMatrixOptions& o = options.od;
  JsonObject phases;
  phases.add("index", r.seconds_index).add("import", r.seconds_import).add("sites", r.seconds_sites).add("queries", r.seconds_queries);
  JsonObject s;
  s.add("command", "od-matrix")
      .add("input", o.input)
      .add("index", o.index)
      .add("output", o.output)
      .add("width", r.width)
      .add("height", r.height)
      .add("tile", r.tile)
      .add("method", r.method)
      .add("device", r.device)
      .add("exchange", r.exchange)
      .add("weight", to_string(r.params.model))
      .add("connectivity", static_cast<int>(o.connectivity))
      .add("distance", to_string(o.distance))
      .add("scale", r.params.scale)
      .add("sites", r.sites)
      .add("pairs_reached", r.pairs_reached)
      .add("site_tiles", r.site_tiles)
      .add("batch_sources", r.batch_sources)
      .add("tile_solves", r.tile_solves)
      .add("rounds", r.rounds)
      .add("max_active", r.max_active)
      .add("gpu_uploads", r.gpu_uploads)
      .add("kernel_ms", r.kernel_ms)
      .add("kernel_ms_select", r.kernel_ms_select)
      .add("kernel_ms_solve", r.kernel_ms_solve)
      .add("kernel_ms_push", r.kernel_ms_push)
      .add("due_sources", r.due_sources)
      .add("settled", r.settled)
      .add("stopped_early", r.stopped_early)
      .add("max_live", r.max_live)
      .add("index_bytes", r.index_bytes)
      .add("index_kernel_ms", r.index_kernel_ms)
      .add("site_parts", r.site_parts)
      .add("matrix_loads", r.matrix_loads)
      .add("cache_tiles", r.cache_tiles)
      .add("exchange_solves", r.exchange_solves)
      .add("phases", phases)
      .add("seconds", r.seconds_total);
  add_run_totals(s, *this, {{"memory_peak_reserved_bytes", r.memory_peak_reserved},
                            {"peak_rss_bytes", r.peak_rss_bytes}});
  return s.str();
}

}  // namespace terrazo
