// cli/cmd_info.cpp: `terrazo info`, a thin main over run_info (api/raster_io.h).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/memory_budget.h"
#include "api/command_line.h"
#include "api/raster_io.h"
#include "api/output_paths.h"
#include "cli/cli_progress.h"
#include "cli/command.h"

namespace terrazo {
namespace {

const char kUsage[] =
    "Usage: terrazo info [options] INPUT\n"
    "\n"
    "Describes a tile store or any GDAL raster: size, cell type, tiles, nodata value and share,\n"
    "min and max (computed by reading every cell, never taken from metadata; this also verifies\n"
    "every tile checksum of a store), geotransform and CRS.\n"
    "\n"
    "Options:\n"
    "  --json          print the description as one JSON object (the last line of stdout)\n"
    "  --memory SIZE   host memory budget for the scan, e.g. 256M (default 1G)\n"
    "  -q, --quiet     no progress\n"
    "\n"
    "Example:\n"
    "  terrazo info --json dem.tzs\n";

void print_summary(const RasterSummary& s) {
  const RasterInfo& info = s.info;
  std::printf("%s: %s\n", s.path.c_str(), s.format.c_str());
  std::printf("  size         %llu x %llu cells (%llu)\n", static_cast<unsigned long long>(info.width),
              static_cast<unsigned long long>(info.height), static_cast<unsigned long long>(info.cells()));
  std::printf("  type         %s\n", to_string(info.type));
  if (s.is_tile_store)
    std::printf("  tiles        %u x %u cells: %llu x %llu = %llu, %llu stored\n", s.tile, s.tile,
                static_cast<unsigned long long>(s.tiles_x), static_cast<unsigned long long>(s.tiles_y),
                static_cast<unsigned long long>(s.tile_count), static_cast<unsigned long long>(s.present_tiles));
  if (info.has_nodata) std::printf("  nodata       %.15g\n", info.nodata);
  else std::printf("  nodata       none (NaN cells only)\n");
  std::printf("  nodata share %.4f%% (%llu cells)\n", 100.0 * s.nodata_share,
              static_cast<unsigned long long>(s.nodata_cells));
  if (info.has_stats) std::printf("  min / max    %.15g / %.15g (from the data)\n", info.min, info.max);
  else std::printf("  min / max    none: no valid cell\n");
  if (info.has_geotransform) {
    const auto& g = info.geotransform;
    std::printf("  origin       %.15g, %.15g\n", g[0], g[3]);
    std::printf("  cell size    %.15g x %.15g", g[1], g[5]);
    if (g[2] != 0.0 || g[4] != 0.0) std::printf(" (rotated: %.15g, %.15g)", g[2], g[4]);
    std::printf("\n");
  } else {
    std::printf("  geotransform none\n");
  }
  if (!s.crs_name.empty() || !s.crs_authority.empty()) {
    std::printf("  CRS          %s%s%s%s\n", s.crs_name.c_str(), s.crs_authority.empty() ? "" : " (",
                s.crs_authority.c_str(), s.crs_authority.empty() ? "" : ")");
  } else if (!info.crs_wkt.empty()) {
    std::printf("  CRS          (unnamed, %zu characters of WKT)\n", info.crs_wkt.size());
  } else {
    std::printf("  CRS          none\n");
  }
}

int run_info_command(const std::vector<std::string>& argv) {
  ArgParser args("info", argv);
  const CommonOptions common = parse_common_options(args);
  const std::string input = args.positionals(1, 1, "INPUT")[0];
  check_input_file(input);

  MemoryBudget budget(common.memory_bytes);
  CliProgress progress(common.quiet);
  const RasterSummary summary = run_info(input, budget, progress.progress());
  progress.finish();
  if (common.json) {
    std::printf("%s\n", to_json(summary).c_str());
    std::fflush(stdout);
  } else {
    print_summary(summary);
  }
  return 0;
}

const RegisterCommand kRegister({"info", "describe a raster or tile store (size, type, nodata, min/max, CRS)", kUsage,
                                 run_info_command});

}  // namespace
}  // namespace terrazo
