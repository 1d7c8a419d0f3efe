// engine/commands/info_command.cpp: parse_info_options, info_usage, run_info_command (engine/commands/info_command.h).
#include "engine/commands/info_command.h"

#include <cctype>
#include <cstdio>

#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

namespace {

std::string describe(const RasterSummary& s) {
  std::string out;
  const RasterInfo& info = s.info;
  out += format_line("%s: %s\n", s.path.c_str(), s.format.c_str());
  out += format_line("  size         %llu x %llu cells (%llu)\n", static_cast<unsigned long long>(info.width),
              static_cast<unsigned long long>(info.height), static_cast<unsigned long long>(info.cells()));
  out += format_line("  type         %s\n", to_string(info.type));
  if (s.is_tile_store)
    out += format_line("  tiles        %u x %u cells: %llu x %llu = %llu, %llu stored\n", s.tile, s.tile,
                static_cast<unsigned long long>(s.tiles_x), static_cast<unsigned long long>(s.tiles_y),
                static_cast<unsigned long long>(s.tile_count), static_cast<unsigned long long>(s.present_tiles));
  if (info.has_nodata) out += format_line("  nodata       %.15g\n", info.nodata);
  else out += format_line("  nodata       none (NaN cells only)\n");
  out += format_line("  nodata share %.4f%% (%llu cells)\n", 100.0 * s.nodata_share,
              static_cast<unsigned long long>(s.nodata_cells));
  if (info.has_stats) out += format_line("  min / max    %.15g / %.15g (from the data)\n", info.min, info.max);
  else out += format_line("  min / max    none: no valid cell\n");
  if (info.has_geotransform) {
    const auto& g = info.geotransform;
    out += format_line("  origin       %.15g, %.15g\n", g[0], g[3]);
    out += format_line("  cell size    %.15g x %.15g", g[1], g[5]);
    if (g[2] != 0.0 || g[4] != 0.0) out += format_line(" (rotated: %.15g, %.15g)", g[2], g[4]);
    out += format_line("\n");
  } else {
    out += format_line("  geotransform none\n");
  }
  if (!s.crs_name.empty() || !s.crs_authority.empty()) {
    out += format_line("  CRS          %s%s%s%s\n", s.crs_name.c_str(), s.crs_authority.empty() ? "" : " (",
                s.crs_authority.c_str(), s.crs_authority.empty() ? "" : ")");
  } else if (!info.crs_wkt.empty()) {
    out += format_line("  CRS          (unnamed, %zu characters of WKT)\n", info.crs_wkt.size());
  } else {
    out += format_line("  CRS          none\n");
  }
  return out;
}

}  // namespace

InfoCommandOptions parse_info_options(const std::vector<std::string>& arguments) {
  ArgParser args("info", arguments);
  auto parsed = parse_common<InfoCommandOptions>(args);
  const std::uint32_t band = parse_band_option(args);  // before positionals(): they refuse unknown flags
  parsed.input = args.positionals(1, 1, "INPUT")[0];
  parsed.band = band;
  return parsed;
}

InfoCommandResult run_info_command(const InfoCommandOptions& options, Progress& progress) {
  check_input_file(options.input);
  MemoryBudget budget(options.common.memory_bytes, MemoryBudget::kRaiseMemory);  // it has no --tile
  InfoCommandResult r;
  r.options = options;
  if (looks_like_index(options.input)) {
    r.index = describe_index(options.input, budget, progress);
    r.memory_budget_bytes = budget.total();
    return r;
  }
  r.result = run_info(options.input, budget, progress, options.band);
  r.memory_budget_bytes = budget.total();
  return r;
}

std::string InfoCommandResult::summary() const {
  if (!index.path.empty()) return index.text();
  std::string text = describe(result);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string InfoCommandResult::to_json() const { return index.path.empty() ? terrazo::to_json(result) : index.to_json(); }

}  // namespace terrazo
