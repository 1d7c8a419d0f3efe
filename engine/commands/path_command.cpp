// engine/commands/path_command.cpp: parse_path_options, path_usage, run_path_command (engine/commands/path_command.h).
#include "engine/commands/path_command.h"

#include <cstdio>

#include "engine/commands/output_paths.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

PathCommandOptions parse_path_options(const std::vector<std::string>& arguments) {
  ArgParser args("path", arguments);
  auto parsed = parse_common<PathCommandOptions>(args);
  PathOptions& options = parsed.path;
  for (const std::string& text : args.values("--dest")) options.dests.push_back(parse_source_point(text, "--dest"));
  if (auto file = args.value("--backlink")) options.backlink = *file;
  if (auto file = args.value("--cost")) options.cost = *file;
  if (auto file = args.value("--mask")) options.mask = *file;
  options.map_coords = args.flag("--map-coords");
  if (auto crs = args.value("--dest-crs")) options.dest_crs = *crs;
  const std::vector<std::string> files = args.positionals(1, 1, "PATHS.geojson");
  options.output = files[0];
  if (options.backlink.empty()) throw UsageError("--backlink FILE is required (from terrazo sssp --backlink)");
  if (options.cost.empty()) throw UsageError("--cost FILE is required (the cost raster of the same sssp run)");
  if (options.dests.empty()) throw UsageError("no destination: give --dest x,y (repeatable)");
  return parsed;
}

PathCommandResult run_path_command(const PathCommandOptions& options, Progress& progress) {
  const PathOptions& o = options.path;
  check_run_files({o.backlink, o.cost}, {o.output, o.mask});
  return run_entry_point<PathCommandResult>(options, progress, run_path, o, MemoryBudget::kRaiseMemory);
}

std::string PathCommandResult::summary() const {
  std::string text;
  for (const TracedPath& p : result.paths) {
    const std::string line =
        format_line("path: %s: cost %.6f, length %.6f %ss (%.6f cells), %llu cells, from source cell %llu,%llu",
                    p.dest.c_str(), p.cost, p.length, result.length_unit.c_str(), p.length_cells,
                    static_cast<unsigned long long>(p.cells),
                    static_cast<unsigned long long>(p.source_x), static_cast<unsigned long long>(p.source_y));
    text += (text.empty() ? "" : "\n") + line;
  }
  return text;
}

std::string PathCommandResult::to_json() const {
  const PathResult& r = result;
  std::vector<JsonObject> paths;
  for (const TracedPath& p : r.paths) {
    JsonObject o;
    o.add("dest", p.dest).add("x", p.x).add("y", p.y).add("source_x", p.source_x).add("source_y", p.source_y);
    o.add("cost", p.cost).add("length", p.length).add("length_cells", p.length_cells).add("cells", p.cells);
    paths.push_back(o);
  }
  JsonObject summary;
  summary.add("command", "path")
      .add("output", options.path.output)
      .add("length_unit", r.length_unit)
      .add("paths", paths)
      .add("seconds", r.seconds)
      .add("window_reads", r.window_reads)
      .add("memory_plan", memory_plan)
      .add("peak_rss_bytes", r.peak_rss_bytes)
      .add("bytes_read", r.bytes_read)
      .add("bytes_written", r.bytes_written)
      .add("bytes_spilled", r.bytes_spilled);
  return summary.str();
}

}  // namespace terrazo
