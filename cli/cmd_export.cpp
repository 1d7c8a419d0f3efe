// cli/cmd_export.cpp: `terrazo export`, a thin main over run_export (api/raster_io.h).
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/memory_budget.h"
#include "api/command_line.h"
#include "api/raster_io.h"
#include "core/json_summary.h"
#include "api/output_paths.h"
#include "cli/cli_progress.h"
#include "cli/command.h"

namespace terrazo {
namespace {

const char kUsage[] =
    "Usage: terrazo export [options] INPUT OUTPUT.tif\n"
    "\n"
    "Writes a tile store (or any raster) as a tiled, DEFLATE-compressed GeoTIFF with the input's\n"
    "cell type, nodata, geotransform and CRS, streaming tile rows within --memory.\n"
    "\n"
    "Options:\n"
    "  --block B       GeoTIFF block edge, a multiple of 16 up to 4096 (default: the store's tile, else 256)\n"
    "  --memory SIZE   host memory budget, e.g. 256M or 2G (default 1G)\n"
    "  --json          print a JSON summary as the last line of stdout\n"
    "  -q, --quiet     no progress, no summary line\n"
    "\n"
    "Example:\n"
    "  terrazo export dem.tzs dem.tif\n";

int run_export_command(const std::vector<std::string>& argv) {
  ArgParser args("export", argv);
  const CommonOptions common = parse_common_options(args);
  ExportOptions options;
  if (auto block = args.int_value("--block")) {
    if (*block < 16 || *block > 4096 || *block % 16 != 0)
      throw UsageError("invalid --block '" + std::to_string(*block) + "': expected a multiple of 16 from 16 to 4096");
    options.block = static_cast<std::uint32_t>(*block);
  }
  const auto paths = args.positionals(2, 2, "INPUT OUTPUT");
  options.input = paths[0];
  options.output = paths[1];
  const std::string ext = file_extension(options.output);
  if (ext != ".tif" && ext != ".tiff")
    throw UsageError("OUTPUT '" + options.output + "' must end in .tif or .tiff: export writes GeoTIFF");
  check_input_file(options.input);
  check_output_file(options.output, {options.input});

  MemoryBudget budget(common.memory_bytes);
  CliProgress progress(common.quiet);
  const ExportResult result = run_export(options, budget, progress.progress());
  progress.finish();

  const RasterInfo& info = result.info;
  if (!common.quiet && !common.json) {
    std::printf("wrote %s: %llu x %llu %s GeoTIFF, %s in %.1f s\n", options.output.c_str(),
                static_cast<unsigned long long>(info.width), static_cast<unsigned long long>(info.height),
                to_string(info.type), MemoryBudget::format_size(result.bytes_written).c_str(), result.seconds);
  }
  if (common.json) {
    JsonObject summary;
    summary.add("command", "export")
        .add("input", options.input)
        .add("output", options.output)
        .add("width", info.width)
        .add("height", info.height)
        .add("type", to_string(info.type))
        .add("bytes_read", result.bytes_read)
        .add("bytes_written", result.bytes_written)
        .add("buffer_bytes", result.buffer_bytes)
        .add("memory_bytes", common.memory_bytes)
        .add("seconds", result.seconds)
        .add("peak_rss_bytes", peak_rss_bytes());
    print_json_line(summary);
  }
  return 0;
}

const RegisterCommand kRegister({"export", "write a tile store (or any raster) as a tiled, compressed GeoTIFF", kUsage,
                                 run_export_command});

}  // namespace
}  // namespace terrazo
