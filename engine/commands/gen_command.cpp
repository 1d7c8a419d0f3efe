// engine/commands/gen_command.cpp: parse_gen_options, gen_usage, run_gen_command (engine/commands/gen_command.h).
#include "engine/commands/gen_command.h"

#include <cctype>
#include <cstdio>

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/text_case.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

namespace {

CellType parse_cell_type(const std::string& text) {
  const std::string lower = to_lower(text);
  if (lower == "uint8") return CellType::UInt8;  // GDAL's Byte
  for (CellType type : {CellType::UInt8, CellType::Int16, CellType::UInt16, CellType::Int32, CellType::UInt32,
                        CellType::Float32, CellType::Float64})
    if (lower == to_lower(to_string(type))) return type;
  throw UsageError("invalid --type '" + text + "': expected Byte, Int16, UInt16, Int32, UInt32, Float32 or Float64");
}
std::uint64_t required_size(ArgParser& args, const std::string& flag) {
  const auto text = args.value(flag);
  if (!text) throw UsageError("missing " + flag + ": give the raster size, e.g. --width 4096 --height 4096");
  const auto value = ArgParser(args.command(), {flag, *text}).int_value(flag);
  if (*value < 1) throw UsageError("invalid " + flag + " '" + *text + "': expected at least 1 cell");
  return static_cast<std::uint64_t>(*value);
}

}  // namespace

GenCommandOptions parse_gen_options(const std::vector<std::string>& arguments) {
  ArgParser args("gen", arguments);
  auto parsed = parse_common<GenCommandOptions>(args);
  GenerateOptions& options = parsed.gen;
  TerrainOptions& terrain = options.terrain;
  terrain.width = required_size(args, "--width");
  terrain.height = required_size(args, "--height");
  if (auto text = args.value("--seed")) {
    const auto seed = ArgParser("gen", {"--seed", *text}).int_value("--seed");
    if (*seed < 0) throw UsageError("invalid --seed '" + *text + "': expected a non-negative integer");
    terrain.seed = static_cast<std::uint64_t>(*seed);
  }
  if (auto type = args.value("--type")) terrain.type = parse_cell_type(*type);
  if (auto relief = parse_signed_double(args, "--relief", Sign::Positive, "a positive number")) terrain.relief = *relief;
  if (auto base = args.double_value("--base")) terrain.base = *base;
  if (auto text = args.value("--nodata-holes")) {
    const double holes = parse_finite_double("--nodata-holes", *text);
    if (!(holes >= 0.0 && holes < 1.0))
      throw UsageError("invalid --nodata-holes '" + *text + "': expected a fraction in [0, 1), e.g. 0.05");
    terrain.nodata_holes = holes;
  }
  terrain.rivers = !args.flag("--no-rivers");
  terrain.pits = !args.flag("--no-pits");
  if (auto size = parse_signed_double(args, "--cell-size", Sign::Positive, "a positive number of metres"))
    terrain.cell_size = *size;
  if (auto crs = args.value("--crs")) terrain.crs = *crs;
  options.geotiff = parse_geotiff_options(args, parsed.common);
  options.output = args.positionals(1, 1, "OUTPUT")[0];
  options.tile = parsed.common.tile;
  const std::string ext = file_extension(options.output);
  if (ext != ".tzs" && ext != ".tif" && ext != ".tiff")
    throw UsageError("OUTPUT '" + options.output + "' must end in .tzs (tile store) or .tif (GeoTIFF)");
  if (ext == ".tzs" && !options.geotiff.creation.empty())
    throw UsageError("--co '" + options.geotiff.creation.front() + "' applies to a GeoTIFF OUTPUT, and '" +
                     options.output + "' is a tile store");
  return parsed;
}

GenCommandResult run_gen_command(const GenCommandOptions& options, Progress& progress) {
  check_output_file(options.gen.output);
  return run_in_context<GenCommandResult>(options, run_settings(options.common), progress,
                                        [&](RunContext& context) { return run_generate(options.gen, context); });
}

std::string GenCommandResult::summary() const {
  const RasterInfo& info = result.info;
  const std::uint64_t nodata_cells = info.cells() - info.valid_cells;
  return format_line("wrote %s: %llu x %llu %s, seed %llu, min %g, max %g, nodata %.2f%%, %s in %.1f s",
                options.gen.output.c_str(), static_cast<unsigned long long>(info.width),
                static_cast<unsigned long long>(info.height), to_string(info.type),
                static_cast<unsigned long long>(options.gen.terrain.seed), info.min, info.max,
                100.0 * static_cast<double>(nodata_cells) / static_cast<double>(info.cells()),
                MemoryBudget::format_size(result.bytes_written).c_str(), result.seconds);
}

std::string GenCommandResult::to_json() const {
  const RasterInfo& info = result.info;
  const std::uint64_t nodata_cells = info.cells() - info.valid_cells;
  JsonObject summary;
  summary.add("command", "gen")
      .add("output", options.gen.output)
      .add("width", info.width)
      .add("height", info.height)
      .add("type", to_string(info.type))
      .add("seed", options.gen.terrain.seed)
      .add("tile", options.gen.tile ? options.gen.tile : 256u)
      .add("tiles", result.tiles)
      .add("valid_cells", info.valid_cells)
      .add("nodata_cells", nodata_cells)
      .add("nodata", info.nodata);
  if (info.has_stats) summary.add("min", info.min).add("max", info.max);
  else summary.add_null("min").add_null("max");
  summary.add("bytes_written", result.bytes_written)
      .add("buffer_bytes", result.buffer_bytes)
      .add("seconds", result.seconds)
      .add("memory_plan", memory_plan)
      .add("peak_rss_bytes", peak_rss_bytes());
  return summary.str();
}

}  // namespace terrazo
