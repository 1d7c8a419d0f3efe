// engine/commands/watershed_command.cpp: parse_watershed_options, watershed_usage,
// run_watershed_command (engine/commands/watershed_command.h).
#include "engine/commands/watershed_command.h"

#include "engine/commands/flag_table.h"
#include "engine/commands/flow_run.h"

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

const char* watershed_usage() { return usage_text("watershed", kUsage); }

WatershedCommandOptions parse_watershed_options(const std::vector<std::string>& arguments) {
  return parse_raster_command("watershed", arguments, &WatershedCommandOptions::watershed, "DIRECTIONS BASINS.tif",
                            [](ArgParser&, WatershedOptions&) {});  // no flags of its own
}

WatershedCommandResult run_watershed_command(const WatershedCommandOptions& options, Progress& progress) {
  return run_flow_command<WatershedCommandResult>(options, options.watershed, progress, run_watershed);
}

std::string WatershedCommandResult::summary() const {
  const WatershedPhaseResult& w = result.phases;
  return format_line("watershed: %llu basins over %llu valid cells (%llu span tiles)",
                     static_cast<unsigned long long>(w.basins), static_cast<unsigned long long>(w.valid_cells),
                     static_cast<unsigned long long>(w.spanning_basins)) +
         run_line_tail(result.seconds.total, result.peak_rss_bytes);
}

std::string WatershedCommandResult::to_json() const {
  const WatershedPhaseResult& p = result.phases;
  JsonObject summary = json_head("watershed", options.watershed.input, options.watershed.output);
  add_raster_keys(summary, result)
      .add("valid_cells", p.valid_cells)
      .add("basins", p.basins)
      .add("spanning_basins", p.spanning_basins)
      .add("exits", p.exits);
  return flow_json_tail(summary, *this,
                        {{"tiles", p.tiles_seconds}, {"links", p.links_seconds}, {"firsts", p.firsts_seconds},
                         {"ranks", p.ranks_seconds}, {"write", p.write_seconds}});
}

}  // namespace terrazo
