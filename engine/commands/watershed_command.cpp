// engine/commands/watershed_command.cpp: parse_watershed_options, watershed_usage,
// run_watershed_command (engine/commands/watershed_command.h).
#include "engine/commands/watershed_command.h"

#include "engine/commands/command_result.h"
#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {
namespace {

const char kUsage[] =
    "Usage: terrazo watershed [options] DIRECTIONS BASINS.tif\n"
    "\n"
    "Drainage basins of a D8 direction raster, exactly and out of core: the cells whose flow ends at\n"
    "the same cell (code 0, or a code pointing off the raster or at nodata) form one basin. Basins are\n"
    "numbered 1..K in raster order of their first cell (the topmost, then leftmost), as clump numbers\n"
    "its regions, so the output is the same for every --tile, --threads and --memory. The tiles'\n"
    "perimeter links of flowacc (Barnes 2017) give each tile's flow its outlet.\n"
    "\n"
    "DIRECTIONS  D8 codes as terrazo flowdir writes them (ESRI's): 1 E, 2 SE, 4 S, 8 SW, 16 W, 32 NW,\n"
    "            64 N, 128 NE; 0 no flow (an outlet); 255 or the raster's nodata: nodata. Any other\n"
    "            value, and directions that loop, are refused, naming a cell.\n"
    "BASINS.tif  UInt32 GeoTIFF on DIRECTIONS' georeference, 0 at nodata\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, tile, valid_cells, basins, spanning_basins, exits, phases {import,\n"
    "tiles, links, firsts, ranks, write}, seconds, memory_budget_bytes, memory_plan, peak_rss_bytes,\n"
    "bytes_read, bytes_written.\n"
    "\n"
    "Example:\n"
    "  terrazo flowdir filled.tif dir.tif && terrazo watershed --memory 2G --json dir.tif basins.tif\n";

}  // namespace

const char* watershed_usage() {
  static const std::string usage = usage_with_flags("watershed", kUsage);
  return usage.c_str();
}

WatershedCommandOptions parse_watershed_options(const std::vector<std::string>& arguments) {
  ArgParser args("watershed", arguments);
  auto parsed = parse_common<WatershedCommandOptions>(args);
  parse_raster_to_raster(args, parsed.common, "DIRECTIONS BASINS.tif", parsed.watershed, [] {});
  return parsed;
}

WatershedCommandResult run_watershed_command(const WatershedCommandOptions& options, Progress& progress) {
  check_input_file(options.watershed.input);
  check_output_file(options.watershed.output, {options.watershed.input});
  return run_in_context<WatershedCommandResult>(options, run_settings(options.common), progress, [&](RunContext& context) {
    return run_watershed(options.watershed, context);
  });
}

std::string WatershedCommandResult::summary() const {
  const WatershedResult& w = result;
  return format_line("watershed: %llu basins over %llu valid cells (%llu span tiles); %.1f s, peak RSS %s",
                     static_cast<unsigned long long>(w.basins), static_cast<unsigned long long>(w.valid_cells),
                     static_cast<unsigned long long>(w.spanning_basins), w.seconds.total,
                     MemoryBudget::format_size(w.peak_rss_bytes).c_str());
}

std::string WatershedCommandResult::to_json() const {
  const WatershedResult& r = result;
  JsonObject phases;
  phases.add("import", r.seconds.import)
      .add("tiles", r.seconds.tiles)
      .add("links", r.seconds.links)
      .add("firsts", r.seconds.firsts)
      .add("ranks", r.seconds.ranks)
      .add("write", r.seconds.write);
  JsonObject summary;
  summary.add("command", "watershed")
      .add("input", options.watershed.input)
      .add("output", options.watershed.output)
      .add("width", r.width)
      .add("height", r.height)
      .add("tile", r.tile)
      .add("input_read", r.input_read)
      .add("valid_cells", r.valid_cells)
      .add("basins", r.basins)
      .add("spanning_basins", r.spanning_basins)
      .add("exits", r.exits)
      .add("phases", phases)
      .add("seconds", r.seconds.total)
      .add("memory_budget_bytes", memory_budget_bytes)
      .add("memory_plan", memory_plan)
      .add("memory_peak_reserved_bytes", r.memory_peak_reserved)
      .add("peak_rss_bytes", r.peak_rss_bytes)
      .add("bytes_read", r.bytes_read)
      .add("bytes_written", r.bytes_written);
  return summary.str();
}

}  // namespace terrazo
