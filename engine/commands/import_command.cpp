// engine/commands/import_command.cpp: parse_import_options, import_usage, run_import_command (engine/commands/import_command.h).
#include "engine/commands/import_command.h"

#include <cctype>
#include <cstdio>

#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

ImportCommandOptions parse_import_options(const std::vector<std::string>& arguments) {
  ArgParser args("import", arguments);
  auto parsed = parse_common<ImportCommandOptions>(args);
  const std::uint32_t band = parse_band_option(args);  // before positionals(): they refuse unknown flags
  const auto paths = args.positionals(2, 2, "INPUT OUTPUT");
  ImportOptions& options = parsed.import;
  options.input = paths[0];
  options.band = band;
  options.output = paths[1];
  options.tile = parsed.common.tile;
  const std::string ext = file_extension(options.output);
  if (ext == ".tif" || ext == ".tiff")
    throw UsageError("OUTPUT '" + options.output + "' looks like a GeoTIFF, but import writes a tile store; "
                     "name it .tzs (terrazo export writes GeoTIFF)");
  return parsed;
}

ImportCommandResult run_import_command(const ImportCommandOptions& options, Progress& progress) {
  check_run_files({options.import.input}, {options.import.output});
  MemoryBudget budget(options.common.memory_bytes);
  return run_in_budget<ImportCommandResult>(
      options, budget, [&](MemoryBudget& b) { return run_import(options.import, b, progress); });
}

std::string ImportCommandResult::summary() const {
  const RasterInfo& info = result.info;
  return format_line("wrote %s: %llu x %llu %s, tile %u (%u x %u tiles, %llu stored), %s in %.1f s",
                options.import.output.c_str(), static_cast<unsigned long long>(info.width),
                static_cast<unsigned long long>(info.height), to_string(info.type), result.grid.tile,
                result.grid.tiles_x(), result.grid.tiles_y(), static_cast<unsigned long long>(result.present_tiles),
                MemoryBudget::format_size(result.bytes_written).c_str(), result.seconds);
}

std::string ImportCommandResult::to_json() const {
  const RasterInfo& info = result.info;
  JsonObject summary = copy_json_head("import", options.import.input, options.import.output, info);
  summary.add("band", result.band)
      .add("bands", result.bands)
      .add("tile", result.grid.tile)
      .add("tiles", result.grid.tile_count())
      .add("present_tiles", result.present_tiles)
      .add("valid_cells", info.valid_cells);
  if (info.has_stats) summary.add("min", info.min).add("max", info.max);
  else summary.add_null("min").add_null("max");
  return add_copy_totals(summary, *this).str();
}

}  // namespace terrazo
