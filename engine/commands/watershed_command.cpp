// engine/commands/watershed_command.cpp: parse_watershed_options, watershed_usage,
// run_watershed_command (engine/commands/watershed_command.h).
#include "engine/commands/watershed_command.h"

#include "engine/commands/flag_table.h"
#include "engine/commands/flow_run.h"
#include "kernels/common/error.h"

namespace terrazo {
namespace {

constexpr std::int64_t kMostSnap = 1000000;

const char kUsage[] =
    "Usage: terrazo watershed [options] DIRECTIONS BASINS.tif\n"
    "\n"
    "Drainage basins of a D8 direction raster, exactly and out of core: the cells whose flow ends at\n"
    "the same cell (code 0, or a code pointing off the raster or at nodata) form one basin. Basins are\n"
    "numbered 1..K in raster order of their first cell (the topmost, then leftmost), as clump numbers\n"
    "its regions, so the output is the same for every --tile, --threads and --memory. The tiles'\n"
    "perimeter links of flowacc (Barnes 2017) give each tile's flow its outlet. On a GPU (--device\n"
    "cuda, or auto with one) the basins without pour points or streams are labelled with the whole raster\n"
    "in its memory, the same bytes; a raster that --gpu-memory does not hold runs on the CPU.\n"
    "\n"
    "DIRECTIONS  D8 codes as terrazo flowdir writes them (ESRI's): 1 E, 2 SE, 4 S, 8 SW, 16 W, 32 NW,\n"
    "            64 N, 128 NE; 0 no flow (an outlet); 255 or the raster's nodata: nodata. Any other\n"
    "            value, and directions that loop, are refused, naming a cell.\n"
    "BASINS.tif  UInt32 GeoTIFF on DIRECTIONS' georeference, 0 at nodata\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "Pour points:\n"
    "{flags Pour points}\n"
    "\n"
    "Streams:\n"
    "{flags Streams}\n"
    "\n"
    "The stream network: the valid cells whose --accumulation is at least THRESHOLD, following the\n"
    "codes. Strahler order: 1 at a cell no stream cell flows into; where two or more stream cells of\n"
    "the highest order k flow in, k + 1; else k. A segment runs from a source or a junction (two or more\n"
    "stream cells flow in) down to the next junction or the network's end; segments are numbered 1..S\n"
    "in raster order of their first cell. Pour points do not change the network.\n"
    "\n"
    "With pour points, each is an outlet (its flow stops there) and only the cells whose flow reaches\n"
    "one are labelled, 1..K in raster order of each basin's first cell; every other valid cell is 0. A\n"
    "pour point upstream of another cuts its basin out of the downstream one's (as ArcGIS Watershed).\n"
    "\n"
    "JSON keys: width, height, tile, valid_cells, labelled_cells, basins, spanning_basins, exits, snap,\n"
    "pour_points [{x, y, snapped_x, snapped_y, basin}], streams (THRESHOLD or null), stream_cells,\n"
    "segments, max_order, device, path (tiles: the CPU's pipeline; resident: the GPU's), fallback (when a\n"
    "GPU run took the tiles: why), kernel_ms, phases {import, snap, tiles, links, firsts, ranks, write,\n"
    "streams_tiles, streams_links, streams_write, streams_vector} (resident: {import, load, label, write}),\n"
    "seconds, memory_budget_bytes, memory_plan, peak_rss_bytes, bytes_read, bytes_written.\n"
    "\n"
    "Example:\n"
    "  terrazo flowdir filled.tif dir.tif && terrazo watershed --memory 2G --json dir.tif basins.tif\n"
    "  terrazo flowacc dir.tif acc.tif && terrazo watershed --outlet 812,455 --outlet 1290,73 --snap 5 \\\n"
    "      --accumulation acc.tif --json dir.tif gauged.tif\n"
    "  terrazo watershed --streams 1000 --accumulation acc.tif --streams-raster strahler.tif \\\n"
    "      --streams-vector streams.geojson dir.tif basins.tif\n";

// The pour points' flags: --outlet, --map-coords, --outlets-file, --snap, --accumulation.
void parse_pour_point_flags(ArgParser& args, WatershedOptions& options) {
  for (const std::string& text : args.values("--outlet")) options.outlets.push_back(parse_source_point(text, "--outlet"));
  options.map_coords = args.flag("--map-coords");
  if (auto file = args.value("--outlets-file")) {
    if (file->empty()) throw UsageError("--outlets-file needs a file name (a point layer, or a CSV of x,y)");
    options.outlets_file = *file;
  }
  if (auto n = args.int_value("--snap")) {
    if (*n < 0 || *n > kMostSnap)
      throw UsageError("invalid --snap " + std::to_string(*n) + ": expected cells from 0 to " + std::to_string(kMostSnap));
    options.snap = static_cast<std::uint32_t>(*n);
  }
  if (auto file = args.value("--accumulation")) {
    if (file->empty()) throw UsageError("--accumulation needs a file name (terrazo flowacc's output)");
    options.accumulation = *file;
  }
}

// The stream network's flags: --streams, --streams-raster, --streams-vector.
void parse_stream_flags(ArgParser& args, WatershedOptions& options) {
  if (auto n = args.int_value("--streams")) {
    if (*n < 1)
      throw UsageError("invalid --streams " + std::to_string(*n) +
                       ": expected the least accumulation of a stream cell, a whole number of cells >= 1");
    options.streams = *n;
  }
  for (const char* flag : {"--streams-raster", "--streams-vector"})
    if (auto file = args.value(flag)) {
      if (file->empty()) throw UsageError(std::string(flag) + " needs a file name");
      (std::string(flag) == "--streams-raster" ? options.streams_raster : options.streams_vector) = *file;
    }
}

void parse_watershed_flags(ArgParser& args, WatershedOptions& options) {
  parse_pour_point_flags(args, options);
  parse_stream_flags(args, options);
}

}  // namespace

const char* watershed_usage() { return usage_text("watershed", kUsage); }

WatershedCommandOptions parse_watershed_options(const std::vector<std::string>& arguments) {
  return parse_raster_command("watershed", arguments, &WatershedCommandOptions::watershed, "DIRECTIONS BASINS.tif",
                            parse_watershed_flags);
}

WatershedCommandResult run_watershed_command(const WatershedCommandOptions& options, Progress& progress) {
  const WatershedOptions& o = options.watershed;
  return run_flow_command<WatershedCommandResult>(options, o, progress, run_watershed, {o.outlets_file, o.accumulation},
                                                  {o.streams_raster, o.streams_vector});
}

std::string WatershedCommandResult::summary() const {
  const WatershedPhaseResult& w = result.phases;
  const std::string points =
      result.pour_points.empty() ? std::string()
                                 : format_line(" of %llu pour points, %llu cells labelled",
                                               static_cast<unsigned long long>(result.pour_points.size()),
                                               static_cast<unsigned long long>(w.labelled_cells));
  return format_line("watershed: %llu basins", static_cast<unsigned long long>(w.basins)) + points +
         format_line(" over %llu valid cells (%llu span tiles)", static_cast<unsigned long long>(w.valid_cells),
                     static_cast<unsigned long long>(w.spanning_basins)) +
         (options.watershed.streams
              ? format_line("; streams: %llu cells, %llu segments, highest order %llu",
                            static_cast<unsigned long long>(result.streams.stream_cells),
                            static_cast<unsigned long long>(result.streams.segments),
                            static_cast<unsigned long long>(result.streams.max_order))
              : std::string()) +
         run_line_tail(result.seconds.total, result.peak_rss_bytes);
}

std::string WatershedCommandResult::to_json() const {
  const WatershedPhaseResult& p = result.phases;
  JsonObject summary = json_head("watershed", options.watershed.input, options.watershed.output);
  std::vector<JsonObject> points;
  for (const WatershedPourPoint& q : result.pour_points)
    points.push_back(JsonObject()
                         .add("x", q.x)
                         .add("y", q.y)
                         .add("snapped_x", q.snapped_x)
                         .add("snapped_y", q.snapped_y)
                         .add("basin", q.basin));
  add_raster_keys(summary, result)
      .add("valid_cells", p.valid_cells)
      .add("labelled_cells", p.labelled_cells)
      .add("basins", p.basins)
      .add("spanning_basins", p.spanning_basins)
      .add("exits", p.exits);
  if (options.watershed.snap) summary.add("snap", std::uint64_t{*options.watershed.snap});
  else summary.add_null("snap");
  summary.add("pour_points", points);
  const StreamPhaseResult& st = result.streams;
  if (options.watershed.streams) summary.add("streams", static_cast<std::uint64_t>(*options.watershed.streams));
  else summary.add_null("streams");
  summary.add("stream_cells", st.stream_cells).add("segments", st.segments).add("max_order", st.max_order);
  summary.add("device", result.device).add("path", result.path);
  if (!result.fallback.empty()) summary.add("fallback", result.fallback);
  summary.add("kernel_ms", result.kernel_ms);
  if (result.path == "resident")
    return flow_json_tail(summary, *this,
                          {{"load", p.load_seconds}, {"label", p.label_seconds}, {"write", p.write_seconds}});
  return flow_json_tail(summary, *this,
                        {{"snap", result.snap_seconds}, {"tiles", p.tiles_seconds}, {"links", p.links_seconds},
                         {"firsts", p.firsts_seconds}, {"ranks", p.ranks_seconds}, {"write", p.write_seconds},
                         {"streams_tiles", st.tiles_seconds}, {"streams_links", st.links_seconds},
                         {"streams_write", st.write_seconds}, {"streams_vector", st.vector_seconds}});
}

}  // namespace terrazo
