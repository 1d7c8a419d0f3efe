// engine/commands/corridor_command.cpp: parse_corridor_options, corridor_usage, run_corridor_command
// (engine/commands/corridor_command.h).
#include "engine/commands/corridor_command.h"

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

CorridorCommandOptions parse_corridor_options(const std::vector<std::string>& arguments) {
  ArgParser args("corridor", arguments);
  auto parsed = parse_common<CorridorCommandOptions>(args);
  CorridorOptions& options = parsed.corridor;
  if (auto c = parse_signed_double(args, "--threshold", Sign::NonNegative, "a cost >= 0")) options.threshold = *c;
  if (auto p = parse_signed_double(args, "--percent", Sign::NonNegative, "a percentage >= 0, e.g. 5")) options.percent = *p;
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
  check_run_files({o.a, o.b}, {o.output});
  return run_entry_point<CorridorCommandResult>(options, progress, run_corridor, o, MemoryBudget::kRaiseMemory);
}

std::string CorridorCommandResult::summary() const {
  const CorridorResult& r = result;
  return format_line("corridor: %llu of %llu cells in the corridor, sums %.6f..%.6f%s",
                     static_cast<unsigned long long>(r.corridor_cells), static_cast<unsigned long long>(r.valid_cells),
                     r.min_sum, r.max_sum, r.threshold >= 0 ? format_line(", threshold %.6f", r.threshold).c_str() : "") +
         run_line_tail(r.seconds, r.peak_rss_bytes);
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
