// engine/commands/output_options.h: the output flags every command that writes rasters shares, parsed in one
// place (each parse_<command>_options calls these):
//   --co KEY=VALUE   a GTiff creation option over terrazo's defaults (repeatable; GDAL's -co),
//                    checked against the GTiff driver here, at parse time (io/gdal/geotiff_options.h)
//   --ot TYPE        the cell type of a floating-point output (sssp's cost raster): Float32 or Float64
// Every bad value is one UsageError line naming the flag and the value as typed (exit 2).
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "io/gdal/geotiff_options.h"
#include "io/store/raster_info.h"

namespace terrazo {

// Consumes every --co of `args`; the compression threads are --threads (common.threads).
GeoTiffOptions parse_geotiff_options(ArgParser& args, const CommonOptions& common);

// `text`, the value of --ot, as Float32 or Float64 (case-insensitive, as GDAL's -ot).
CellType parse_float_output_type(const std::string& text);

// The flags and files of a command that reads one raster and writes one GeoTIFF (fill, flowdir,
// flowacc, watershed, clump, mst, sssp), in this order: --band, the command's own flags (`own_flags()`), --input-mode,
// --co, the common --tile into `options`, then the two files (`files` names them in the usage error).
template <class RasterOptions, class OwnFlags>
void parse_raster_to_raster(ArgParser& args, const CommonOptions& common, const char* files, RasterOptions& options,
                            OwnFlags own_flags) {
  options.band = parse_band_option(args);
  own_flags();
  if (auto input_mode = args.value("--input-mode")) options.input_mode = parse_input_mode(*input_mode);
  options.geotiff = parse_geotiff_options(args, common);
  options.tile = common.tile;
  const std::vector<std::string> paths = args.positionals(2, 2, files);
  options.input = paths[0];
  options.output = paths[1];
}

// The parser of such a command (`name`; its own options are CommandOptions::*member): the common
// flags, then parse_raster_to_raster with own_flags(args, options).
template <class CommandOptions, class RasterOptions, class OwnFlags>
CommandOptions parse_raster_command(const char* name, const std::vector<std::string>& arguments,
                                    RasterOptions CommandOptions::*member, const char* files, OwnFlags own_flags) {
  ArgParser args(name, arguments);
  auto parsed = parse_common<CommandOptions>(args);
  RasterOptions& options = parsed.*member;
  parse_raster_to_raster(args, parsed.common, files, options, [&] { own_flags(args, options); });
  return parsed;
}

}  // namespace terrazo
