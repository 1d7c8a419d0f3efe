// engine/commands/export_command.cpp: parse_export_options, export_usage, run_export_command (engine/commands/export_command.h).
#include "engine/commands/export_command.h"

#include <cctype>
#include <cstdio>

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

ExportCommandOptions parse_export_options(const std::vector<std::string>& arguments) {
  ArgParser args("export", arguments);
  auto parsed = parse_common<ExportCommandOptions>(args);
  const std::uint32_t band = parse_band_option(args);  // before positionals(): they refuse unknown flags
  ExportOptions& options = parsed.export_;
  if (auto text = args.value("--block")) {
    const auto block = ArgParser("export", {"--block", *text}).int_value("--block");
    if (*block < 16 || *block > 4096 || *block % 16 != 0)
      throw UsageError("invalid --block '" + *text + "': expected a multiple of 16 from 16 to 4096");
    options.block = static_cast<std::uint32_t>(*block);
  }
  options.geotiff = parse_geotiff_options(args, parsed.common);
  const auto paths = args.positionals(2, 2, "INPUT OUTPUT");
  options.input = paths[0];
  options.band = band;
  options.output = paths[1];
  const std::string ext = file_extension(options.output);
  if (ext != ".tif" && ext != ".tiff")
    throw UsageError("OUTPUT '" + options.output + "' must end in .tif or .tiff: export writes GeoTIFF");
  return parsed;
}

ExportCommandResult run_export_command(const ExportCommandOptions& options, Progress& progress) {
  check_run_files({options.export_.input}, {options.export_.output});
  MemoryBudget budget(options.common.memory_bytes, MemoryBudget::kRaiseMemory);  // it has no --tile
  return run_in_budget<ExportCommandResult>(
      options, budget, [&](MemoryBudget& b) { return run_export(options.export_, b, progress); });
}

std::string ExportCommandResult::summary() const {
  const RasterInfo& info = result.info;
  return format_line("wrote %s: %llu x %llu %s GeoTIFF, %s in %.1f s", options.export_.output.c_str(),
                static_cast<unsigned long long>(info.width), static_cast<unsigned long long>(info.height),
                to_string(info.type), MemoryBudget::format_size(result.bytes_written).c_str(), result.seconds);
}

std::string ExportCommandResult::to_json() const {
  JsonObject summary = copy_json_head("export", options.export_.input, options.export_.output, result.info);
  return add_copy_totals(summary, *this).str();
}

}  // namespace terrazo
