// engine/commands/corridor_command.cpp: parse_corridor_options, corridor_usage, run_corridor_command
// (engine/commands/corridor_command.h).
#include "engine/commands/corridor_command.h"

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {
namespace {

// The usage text; each "{flags SECTION}" line becomes that section's flags (engine/commands/flag_table.h).
const char kUsage[] =
    "Usage: terrazo corridor [--threshold C | --percent P] [options] A.tif B.tif CORRIDOR.tif\n"
    "\n"
    "The least-cost corridor between two sources: the sum of their two cost surfaces (two runs of\n"
    "`terrazo sssp` over the same friction, one from each source). A cell's sum is the cost of the\n"
    "cheapest path from source A to source B through that cell; the least-cost path is where the sum\n"
    "is smallest, and thresholding the sum keeps the cells of near-optimal routes (ArcGIS's Corridor;\n"
    "docs/corridor.md). Streamed strip by strip: rasters of any size under --memory.\n"
    "\n"
    "A.tif, B.tif   cost surfaces of the same grid (width, height, geotransform), nodata where unreached\n"
    "CORRIDOR.tif   Float64 GeoTIFF georeferenced like A.tif: A + B, nodata -1 where either is nodata\n"
    "               or the sum is above the threshold\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, valid_cells, corridor_cells, min_sum, max_sum, threshold (-1: none),\n"
    "seconds, peak_rss_bytes, bytes_read, bytes_written.\n"
    "\n"
    "Example:\n"
    "  terrazo sssp --source 10,20 friction.tif from_a.tif\n"
    "  terrazo sssp --source 900,750 friction.tif from_b.tif\n"
    "  terrazo corridor --percent 5 from_a.tif from_b.tif corridor.tif\n";

}  // namespace

const char* corridor_usage() { return usage_text("corridor", kUsage); }

CorridorCommandOptions parse_corridor_options(const std::vector<std::string>& arguments) {
  ArgParser args("corridor", arguments);
  CorridorCommandOptions parsed;
  parsed.common = parse_common_options(args);
  CorridorOptions& options = parsed.corridor;
  if (auto text = args.value("--threshold")) {
    const double c = parse_finite_double("--threshold", *text);
    if (!(c >= 0)) throw UsageError("invalid --threshold '" + *text + "': expected a cost >= 0");
    options.threshold = c;
  }
  if (auto text = args.value("--percent")) {
    const double p = parse_finite_double("--percent", *text);
    if (!(p >= 0)) throw UsageError("invalid --percent '" + *text + "': expected a percentage >= 0, e.g. 5");
    options.percent = p;
  }
  if (options.threshold >= 0 && options.percent >= 0) throw UsageError("give --threshold or --percent, not both");
  if (auto type = args.value("--ot")) options.type = parse_float_output_type(*type);
  options.geotiff = parse_geotiff_options(args, parsed.common);
  const std::vector<std::string> files = args.positionals(3, 3, "A.tif B.tif CORRIDOR.tif");
  options.a = files[0];
  options.b = files[1];
  options.output = files[2];
  return parsed;
}

CorridorCommandResult run_corridor_command(const CorridorCommandOptions& options, Progress& progress) {
  const CorridorOptions& o = options.corridor;
  check_input_file(o.a);
  check_input_file(o.b);
  check_output_file(o.output, {o.a, o.b});
  return run_in_context<CorridorCommandResult>(options, run_settings(options.common, MemoryBudget::kRaiseMemory), progress,
                                        [&](RunContext& context) { return run_corridor(o, context); });
}

std::string CorridorCommandResult::summary() const {
  const CorridorResult& r = result;
  return format_line("corridor: %llu of %llu cells in the corridor, sums %.6f..%.6f%s; %.1f s, peak RSS %s",
                     static_cast<unsigned long long>(r.corridor_cells), static_cast<unsigned long long>(r.valid_cells),
                     r.min_sum, r.max_sum, r.threshold >= 0 ? format_line(", threshold %.6f", r.threshold).c_str() : "",
                     r.seconds, MemoryBudget::format_size(r.peak_rss_bytes).c_str());
}

std::string CorridorCommandResult::to_json() const {
  const CorridorResult& r = result;
  const CorridorOptions& o = options.corridor;
  JsonObject summary;
  summary.add("command", "corridor")
      .add("a", o.a)
      .add("b", o.b)
      .add("output", o.output)
      .add("width", r.width)
      .add("height", r.height)
      .add("valid_cells", r.valid_cells)
      .add("corridor_cells", r.corridor_cells)
      .add("min_sum", r.min_sum)
      .add("max_sum", r.max_sum)
      .add("threshold", r.threshold)
      .add("percent", o.percent)
      .add("seconds", r.seconds);
  add_run_totals(summary, *this, {{"peak_rss_bytes", r.peak_rss_bytes}, {"bytes_read", r.bytes_read},
                                  {"bytes_written", r.bytes_written}});
  return summary.str();
}

}  // namespace terrazo
