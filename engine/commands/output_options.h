// engine/commands/output_options.h: the output flags every command that writes rasters shares, parsed in one
// place (each parse_<command>_options calls these):
//   --co KEY=VALUE   a GTiff creation option over terrazo's defaults (repeatable; GDAL's -co),
//                    checked against the GTiff driver here, at parse time (io/gdal/geotiff_options.h)
//   --ot TYPE        the cell type of a floating-point output (sssp's cost raster): Float32 or Float64
// Every bad value is one UsageError line naming the flag and the value as typed (exit 2).
#pragma once
#include <string>

#include "engine/commands/command_line.h"
#include "io/gdal/geotiff_options.h"
#include "io/store/raster_info.h"

namespace terrazo {

// Consumes every --co of `args`; the compression threads are --threads (common.threads).
GeoTiffOptions parse_geotiff_options(ArgParser& args, const CommonOptions& common);

// `text`, the value of --ot, as Float32 or Float64 (case-insensitive, as GDAL's -ot).
CellType parse_float_output_type(const std::string& text);

}  // namespace terrazo
