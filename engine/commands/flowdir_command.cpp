// engine/commands/flowdir_command.cpp: parse_flowdir_options, flowdir_usage, run_flowdir_command
// (engine/commands/flowdir_command.h).
#include "engine/commands/flowdir_command.h"

#include "engine/commands/flag_table.h"
#include "engine/commands/flow_run.h"
#include "engine/flow/flowdir_resident.h"

namespace terrazo {
namespace {

const char kUsage[] =
    "Usage: terrazo flowdir [options] FILLED FLOWDIR.tif\n"
    "\n"
    "Writes the D8 flow direction of every cell of the elevation raster FILLED, exactly and out of\n"
    "core: each cell flows to its steepest lower neighbour (a diagonal drop counts 1/sqrt 2); the cells\n"
    "of a flat, which has no lower neighbour, flow towards the flat's outlets and away from the higher\n"
    "terrain around it (Barnes, Lehman and Mulla 2014), so every path reaches an outlet. Run\n"
    "`terrazo fill` first: a depression left unfilled is a pit whose cells get 0. On a GPU (--device\n"
    "cuda, or auto with one) the whole raster is held in its memory (31 bytes a cell). The output is\n"
    "the same for every --tile, --threads and --device.\n"
    "\n"
    "FILLED       any GDAL raster (GeoTIFF, .hgt, .bil, .asc, .asc.gz) or a terrazo tile store (.tzs),\n"
    "             usually the output of `terrazo fill` with the same --outlets\n"
    "FLOWDIR.tif  Byte GeoTIFF of FILLED's grid and georeference, the codes of ESRI's Flow Direction:\n"
    "               32  64 128     NW  N  NE\n"
    "               16   .   1      W  .   E\n"
    "                8   4   2     SW  S  SE\n"
    "             0: no flow (an outlet with no lower neighbour: water leaves the raster there; or a\n"
    "             cell of an undrained pit); 255: nodata\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, tile, outlets, device, path (tiles: the CPU's pipeline; resident: the\n"
    "GPU's), fallback (when a GPU run took the tiles: why), valid_cells, flat_cells, outlet_cells,\n"
    "flats, undrained_flats, undrained_cells, cross_tile_flat_cells, kept_tiles (tiles whose codes\n"
    "were kept for the write, not computed twice), resident {tile, rounds, solves, max_round_tiles,\n"
    "sweeps, gpu_ms} (resident only), phases {import, halos, directions, flats, write} (resident:\n"
    "{import, load, solve, write}), seconds, memory_budget_bytes, memory_plan, peak_rss_bytes,\n"
    "bytes_read, bytes_written.\n"
    "\n"
    "Example:\n"
    "  terrazo fill --memory 2G dem.tif filled.tif\n"
    "  terrazo flowdir --memory 2G --json filled.tif flowdir.tif\n";

// flowdir's own flag: --outlets.
void parse_own_flags(ArgParser& args, FlowdirOptions& options) {
  if (auto outlets = args.value("--outlets")) options.outlets = parse_fill_outlets(*outlets);
}

}  // namespace

const char* flowdir_usage() { return usage_text("flowdir", kUsage); }

FlowdirCommandOptions parse_flowdir_options(const std::vector<std::string>& arguments) {
  return parse_raster_command("flowdir", arguments, &FlowdirCommandOptions::flowdir, "FILLED FLOWDIR.tif", parse_own_flags);
}

FlowdirCommandResult run_flowdir_command(const FlowdirCommandOptions& options, Progress& progress) {
  return run_flow_command<FlowdirCommandResult>(options, options.flowdir, progress, run_flowdir);
}

std::string FlowdirCommandResult::summary() const {
  const FlowdirPhaseResult& f = result.phases;
  return format_line("flowdir: %llu valid cells, %llu on %llu flats (%llu undrained)",
                     static_cast<unsigned long long>(f.valid_cells), static_cast<unsigned long long>(f.flat_cells),
                     static_cast<unsigned long long>(f.flats), static_cast<unsigned long long>(f.undrained_cells)) +
         run_line_tail(result.seconds.total, result.peak_rss_bytes);
}

namespace {

// The resident directions' BFS rounds (engine/flow/flowdir_resident.h).
JsonObject resident_json(const ResidentFlowdirStats& r) {
  JsonObject resident;
  resident.add("tile", kResidentFlowdirTile)
      .add("rounds", r.rounds)
      .add("solves", r.solves)
      .add("max_round_tiles", r.max_active)
      .add("sweeps", r.sweeps)
      .add("gpu_ms", r.kernel_ms);
  return resident;
}

}  // namespace

std::string FlowdirCommandResult::to_json() const {
  const FlowdirPhaseResult& p = result.phases;
  const bool resident = std::string(p.path) == "resident";
  JsonObject summary = json_head("flowdir", options.flowdir.input, options.flowdir.output);
  add_raster_keys(summary, result)
      .add("outlets", to_string(options.flowdir.outlets))
      .add("device", p.device)
      .add("path", p.path);
  if (!p.fallback.empty()) summary.add("fallback", p.fallback);
  summary.add("valid_cells", p.valid_cells)
      .add("flat_cells", p.flat_cells)
      .add("outlet_cells", p.outlet_cells)
      .add("flats", p.flats)
      .add("undrained_flats", p.undrained_flats)
      .add("undrained_cells", p.undrained_cells)
      .add("cross_tile_flat_cells", p.cross_tile_flat_cells)
      .add("kept_tiles", p.kept_tiles);
  if (resident) {
    summary.add("resident", resident_json(p.resident));
    return flow_json_tail(summary, *this, {{"load", p.load_seconds}, {"solve", p.solve_seconds}, {"write", p.write_seconds}});
  }
  return flow_json_tail(summary, *this,
                        {{"halos", p.halos_seconds}, {"directions", p.directions_seconds}, {"flats", p.flats_seconds},
                         {"write", p.write_seconds}});
}

}  // namespace terrazo
