// engine/commands/flowacc_command.cpp: parse_flowacc_options, flowacc_usage, run_flowacc_command
// (engine/commands/flowacc_command.h).
#include "engine/commands/flowacc_command.h"

#include "engine/commands/flag_table.h"
#include "engine/commands/flow_run.h"
#include "kernels/common/error.h"

namespace terrazo {
namespace {

const char kUsage[] =
    "Usage: terrazo flowacc [options] DIRECTIONS ACCUMULATION.tif\n"
    "\n"
    "Flow accumulation of a D8 direction raster, exactly and out of core: each cell gets the number\n"
    "of cells whose water flows through it, itself included (so a ridge cell is 1; ArcGIS counts one\n"
    "less), or with --weight the sum of their weights. The tiles are accumulated alone, the links\n"
    "between their perimeters solved once, and the tiles accumulated again with what enters them\n"
    "(Barnes 2017); the sums are integers, so the output is the same for every --tile, --threads and\n"
    "--memory. On a GPU (--device cuda, or auto with one) the whole raster is held in its memory and\n"
    "accumulated there, the same bytes again; a raster that --gpu-memory does not hold runs on the CPU.\n"
    "\n"
    "DIRECTIONS        D8 codes as terrazo flowdir writes them (ESRI's): 1 E, 2 SE, 4 S, 8 SW, 16 W,\n"
    "                  32 NW, 64 N, 128 NE; 0 no flow (an outlet); 255 or the raster's nodata: nodata.\n"
    "                  A code pointing off the raster or at a nodata cell ends the flow there, as 0\n"
    "                  does. Any other value, and directions that loop, are refused, naming a cell.\n"
    "ACCUMULATION.tif  GeoTIFF on DIRECTIONS' georeference: UInt32 counts (nodata 0) when the raster\n"
    "                  has fewer than 2^32 cells, else Float64 (exact to 2^53); Float64 with --weight\n"
    "                  (nodata NaN)\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, tile, type, scale, valid_cells, outlets, exits, largest, kept_tiles (tiles\n"
    "decoded once: their ordered flow kept for the write), device, path (tiles: the CPU's pipeline;\n"
    "resident: the GPU's), fallback (when a GPU run took the tiles: why), kernel_ms, phases {import,\n"
    "tiles, links, write} (resident: {import, load, accumulate, write}), seconds, memory_budget_bytes,\n"
    "memory_plan, peak_rss_bytes, bytes_read, bytes_written.\n"
    "\n"
    "Example:\n"
    "  terrazo flowdir filled.tif dir.tif && terrazo flowacc --memory 2G --json dir.tif acc.tif\n"
    "  terrazo flowacc --weight rain_mm.tif dir.tif runoff.tif\n";

// flowacc's own flags: --weight, --scale, --ot.
void parse_own_flags(ArgParser& args, FlowAccOptions& options) {
  if (auto weight = args.value("--weight")) options.weight = *weight;
  if (auto text = args.value("--scale")) {
    options.scale = parse_finite_double("--scale", *text);
    if (!(options.scale > 0)) throw UsageError("invalid --scale '" + *text + "': expected a number > 0");
  }
  if (auto type = args.value("--ot")) options.type = parse_flowacc_type(*type);
}

}  // namespace

const char* flowacc_usage() { return usage_text("flowacc", kUsage); }

FlowaccCommandOptions parse_flowacc_options(const std::vector<std::string>& arguments) {
  return parse_raster_command("flowacc", arguments, &FlowaccCommandOptions::flowacc, "DIRECTIONS ACCUMULATION.tif",
                            parse_own_flags);
}

FlowaccCommandResult run_flowacc_command(const FlowaccCommandOptions& options, Progress& progress) {
  return run_flow_command<FlowaccCommandResult>(options, options.flowacc, progress, run_flowacc,
                                                {options.flowacc.weight});
}

std::string FlowaccCommandResult::summary() const {
  return format_line("flowacc: %llu valid cells, %llu outlets, largest accumulation %s",
                     static_cast<unsigned long long>(result.phases.valid_cells),
                     static_cast<unsigned long long>(result.phases.outlets), format_value(result.largest).c_str()) +
         run_line_tail(result.seconds.total, result.peak_rss_bytes);
}

std::string FlowaccCommandResult::to_json() const {
  const FlowAccResult& r = result;
  JsonObject summary = json_head("flowacc", options.flowacc.input, options.flowacc.output);
  summary.add("weight", options.flowacc.weight);
  add_raster_keys(summary, r)
      .add("type", to_string(r.type))
      .add("scale", r.scale)
      .add("valid_cells", r.phases.valid_cells)
      .add("outlets", r.phases.outlets)
      .add("exits", r.phases.exits)
      .add("largest", r.largest)
      .add("kept_tiles", r.phases.kept_tiles)
      .add("device", r.device)
      .add("path", r.path);
  if (!r.fallback.empty()) summary.add("fallback", r.fallback);
  summary.add("kernel_ms", r.kernel_ms);
  if (r.path == "resident")
    return flow_json_tail(summary, *this,
                          {{"load", r.phases.load_seconds}, {"accumulate", r.phases.accumulate_seconds},
                           {"write", r.phases.write_seconds}});
  return flow_json_tail(summary, *this,
                        {{"tiles", r.phases.tiles_seconds}, {"links", r.phases.links_seconds},
                         {"write", r.phases.write_seconds}});
}

}  // namespace terrazo
