// cli/cmd_import.cpp: `terrazo import`, a thin main over run_import (api/raster_io.h).
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
    "Usage: terrazo import [options] INPUT OUTPUT.tzs\n"
    "\n"
    "Converts any GDAL raster (GeoTIFF, SRTM .hgt, ENVI .bil, ESRI .asc and .asc.gz, ...) into a\n"
    "terrazo tile store: t x t tiles in Z-order, georeferencing and nodata kept, min/max computed\n"
    "from the data. One streaming pass; memory stays within --memory whatever the raster size.\n"
    "\n"
    "Options:\n"
    "  --tile T        tile edge, power of two 16..4096 (default 256)\n"
    "  --memory SIZE   host memory budget, e.g. 256M or 2G (default 1G)\n"
    "  --json          print a JSON summary as the last line of stdout\n"
    "  -q, --quiet     no progress, no summary line\n"
    "\n"
    "Example:\n"
    "  terrazo import --memory 512M --tile 256 dem.tif dem.tzs\n";

int run_import_command(const std::vector<std::string>& argv) {
  ArgParser args("import", argv);
  const CommonOptions common = parse_common_options(args);
  const auto paths = args.positionals(2, 2, "INPUT OUTPUT");
  ImportOptions options;
  options.input = paths[0];
  options.output = paths[1];
  options.tile = common.tile;
  const std::string ext = file_extension(options.output);
  if (ext == ".tif" || ext == ".tiff")
    throw UsageError("OUTPUT '" + options.output + "' looks like a GeoTIFF, but import writes a tile store; "
                     "name it .tzs (terrazo export writes GeoTIFF)");
  check_input_file(options.input);
  check_output_file(options.output, {options.input});

  MemoryBudget budget(common.memory_bytes);
  CliProgress progress(common.quiet);
  const ImportResult result = run_import(options, budget, progress.progress());
  progress.finish();

  const RasterInfo& info = result.info;
  if (!common.quiet && !common.json) {
    std::printf("wrote %s: %llu x %llu %s, tile %u (%u x %u tiles, %llu stored), %s in %.1f s\n",
                options.output.c_str(), static_cast<unsigned long long>(info.width),
                static_cast<unsigned long long>(info.height), to_string(info.type), result.grid.tile,
                result.grid.tiles_x(), result.grid.tiles_y(), static_cast<unsigned long long>(result.present_tiles),
                MemoryBudget::format_size(result.bytes_written).c_str(), result.seconds);
  }
  if (common.json) {
    JsonObject summary;
    summary.add("command", "import")
        .add("input", options.input)
        .add("output", options.output)
        .add("width", info.width)
        .add("height", info.height)
        .add("type", to_string(info.type))
        .add("tile", result.grid.tile)
        .add("tiles", result.grid.tile_count())
        .add("present_tiles", result.present_tiles)
        .add("valid_cells", info.valid_cells);
    if (info.has_stats) summary.add("min", info.min).add("max", info.max);
    else summary.add_null("min").add_null("max");
    summary.add("bytes_read", result.bytes_read)
        .add("bytes_written", result.bytes_written)
        .add("buffer_bytes", result.buffer_bytes)
        .add("memory_bytes", common.memory_bytes)
        .add("seconds", result.seconds)
        .add("peak_rss_bytes", peak_rss_bytes());
    print_json_line(summary);
  }
  return 0;
}

const RegisterCommand kRegister({"import", "convert a GDAL raster into a Z-order tile store (.tzs)", kUsage,
                                 run_import_command});

}  // namespace
}  // namespace terrazo
