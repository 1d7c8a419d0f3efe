// engine/commands/command_table.cpp: the command table (engine/commands/command_table.h).
#include "engine/commands/command_table.h"

#include "engine/commands/clump_command.h"
#include "engine/commands/corridor_command.h"
#include "engine/commands/export_command.h"
#include "engine/commands/fill_command.h"
#include "engine/commands/flowdir_command.h"
#include "engine/commands/flowacc_command.h"
#include "engine/commands/gen_command.h"
#include "engine/commands/import_command.h"
#include "engine/commands/index_command.h"
#include "engine/commands/info_command.h"
#include "engine/commands/mst_command.h"
#include "engine/commands/network_command.h"
#include "engine/commands/od_matrix_command.h"
#include "engine/commands/path_command.h"
#include "engine/commands/render_command.h"
#include "engine/commands/sssp_command.h"
#include "engine/commands/watershed_command.h"

namespace terrazo {
namespace {

// One command's options, parsed, and its run function.
template <class Options, class Result, Result (*Run)(const Options&, Progress&)>
class Parsed final : public ParsedCommand {
 public:
  explicit Parsed(Options options) : options_(std::move(options)) {}
  const CommonOptions& common() const override { return options_.common; }
  CommandOutput run(Progress& progress) const override {
    const Result result = Run(options_, progress);
    return {result.summary(), result.to_json(), Result::kTextOnStdout, Result::kQuietKeepsText};
  }

 private:
  Options options_;
};

template <class Options, class Result, Options (*Parse)(const std::vector<std::string>&),
          Result (*Run)(const Options&, Progress&)>
std::unique_ptr<ParsedCommand> parse(const std::vector<std::string>& args) {
  return std::make_unique<Parsed<Options, Result, Run>>(Parse(args));
}

#define TERRAZO_PARSE(name, Name) \
  parse<Name##CommandOptions, Name##CommandResult, parse_##name##_options, run_##name##_command>

}  // namespace

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"clump", "connected regions (equal values, valid cells or a value range), out of core", "clump", false,
       clump_usage, TERRAZO_PARSE(clump, Clump)},
      {"corridor", "least-cost corridor: the sum of two cost surfaces, thresholded", "corridor", false, corridor_usage,
       TERRAZO_PARSE(corridor, Corridor)},
      {"cost-distance", "the same as sssp", "sssp", true, sssp_usage, TERRAZO_PARSE(sssp, Sssp)},
      {"export", "write a tile store (or any raster) as a tiled, compressed GeoTIFF", "export", false, export_usage,
       TERRAZO_PARSE(export, Export)},
      {"fill", "fill the depressions of an elevation raster, exactly, out of core", "fill", false, fill_usage,
       TERRAZO_PARSE(fill, Fill)},
      {"flowacc", "flow accumulation of a D8 direction raster (cells or weights upstream), exactly, out of core",
       "flowacc", false, flowacc_usage, TERRAZO_PARSE(flowacc, Flowacc)},
      {"flowdir", "D8 flow directions of a filled elevation raster, flats resolved, exactly, out of core", "flowdir",
       false, flowdir_usage, TERRAZO_PARSE(flowdir, Flowdir)},
      {"gen", "make deterministic fractal terrain of any size (tile store or GeoTIFF)", "gen", false, gen_usage,
       TERRAZO_PARSE(gen, Gen)},
      {"import", "convert a GDAL raster into a Z-order tile store (.tzs)", "import", false, import_usage,
       TERRAZO_PARSE(import, Import)},
      {"index", "the boundary-graph index (G') of a terrain, for fast many-site queries", "index", false, index_usage,
       TERRAZO_PARSE(index, Index)},
      {"info", "describe a raster or tile store (size, type, nodata, min/max, CRS)", "info", false, info_usage,
       TERRAZO_PARSE(info, Info)},
      {"mst", "minimum spanning tree (forest) of a raster's grid graph, out of core", "mst", false, mst_usage,
       TERRAZO_PARSE(mst, Mst)},
      {"network", "least-cost network of K sites: the MST of their cost matrix, traced as paths", "network", false,
       network_usage, TERRAZO_PARSE(network, Network)},
      {"od-matrix", "exact cost-distance matrix between K sites (with or without an index)", "od-matrix", false,
       od_matrix_usage, TERRAZO_PARSE(od_matrix, OdMatrix)},
      {"path", "least-cost paths from a backlink raster to GeoJSON", "path", false, path_usage,
       TERRAZO_PARSE(path, Path)},
      {"render", "draw a quick-look PNG of a DEM, cost surface, backlinks, labels or MST edges", "render", false,
       render_usage, TERRAZO_PARSE(render, Render)},
      {"sssp", "cost distance (exact multi-source shortest paths) with backlinks and allocation, out of core", "sssp",
       false, sssp_usage, TERRAZO_PARSE(sssp, Sssp)},
      {"watershed", "drainage basins of a D8 direction raster, labelled in raster order, exactly, out of core",
       "watershed", false, watershed_usage, TERRAZO_PARSE(watershed, Watershed)},
  };
  return table;
}

const CommandSpec* find_command(const std::string& name) {
  for (const CommandSpec& command : command_table())
    if (name == command.name) return &command;
  return nullptr;
}

}  // namespace terrazo
